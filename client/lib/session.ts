// The browser's session with the server. Every state-changing request made with the session cookie
// must carry the session's CSRF token (X-CSRF-Token), which another site cannot read; /api/me hands
// it to the SPA, which keeps it here for the tRPC client's headers and the sign-out request.
import type { EnvRole } from '../../shared/auth';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/routers/root';

// named from the router itself: trpc.ts imports this module for its headers
export type Me = inferRouterOutputs<AppRouter>['me']['get'];

/** The query key of who is signed in: its data is the person, or null when no one is. */
export const ME_KEY = ['me'] as const;

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** The headers every request of the SPA carries: the CSRF token once a session is known. */
export const sessionHeaders = (): Record<string, string> => (csrfToken ? { 'X-CSRF-Token': csrfToken } : {});

/** A path inside the app to come back to after sign-in; anything else (another site, //host) means the start page. */
export function safeReturnPath(value: string | null | undefined): string {
  return value && /^\/(?![/\\])/.test(value) ? value : '/';
}

/** Where the identity provider's sign-in starts; the server sends the person back to `returnTo`. */
export const signInHref = (base: string, returnTo: string) => `${base}/auth/login?returnTo=${encodeURIComponent(safeReturnPath(returnTo))}`;

/** The caller's role on an environment: admins may do everything an owner may. Undefined when they do not belong to it. */
export function envRoleOf(me: Me | undefined, envId: string | null | undefined): EnvRole | undefined {
  // no session context (a component rendered alone) is the single-user app: its user is the admin
  if (!me || me.role === 'admin') return 'owner';
  return envId ? me.memberships[envId] : undefined;
}

/** May this person read the audit log: admins all of it, owners their environments'. */
export const readsAudit = (me: Me) => me.role === 'admin' || Object.values(me.memberships).includes('owner');
