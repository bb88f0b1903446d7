// A team deployment's people for API tests: a server in team mode (API_TOKEN set), people with
// signed-in sessions (made in the store as sign-in makes them), a personal token and a CI token,
// each as the headers its requests carry. Sign-in itself is tested through a real OpenID provider
// (server/auth/sign-in.test.ts); here only what a session or a token may do matters.
import type { EnvRole } from '../../shared/auth';
import { startSession, sessionCookieName } from '../../server/auth/sessions';
import { upsertSignedInUser } from '../../server/domain/people';
import { createCiToken, createPersonalToken } from '../../server/domain/tokens';
import { memberships } from '../../server/db/schema';
import type { TestServer } from './services';
import { requestJson, type JsonAnswer, type JsonRequest } from './api';

export const BREAK_GLASS = 'break-glass-secret-for-tests';

/** How one caller authenticates: extra headers for every request, and whether it rides a session cookie. */
export interface Caller {
  name: string;
  headers: Record<string, string>;
  /** A session caller sends Origin and X-CSRF-Token on changes, as the SPA does. */
  csrf?: string;
}

export const anonymous: Caller = { name: 'anonymous', headers: {} };
export const breakGlass: Caller = { name: 'break-glass', headers: { authorization: `Bearer ${BREAK_GLASS}` } };

/** A person with a session: created as sign-in creates them (ADMIN_EMAILS decides admin). */
export async function signedIn(server: TestServer, email: string, options: { admin?: boolean; name?: string } = {}): Promise<Caller & { userId: string }> {
  const { db } = server.services.store;
  const auth = server.services.config.auth;
  const user = await upsertSignedInUser(db, { email, name: options.name ?? email.split('@')[0]! }, options.admin ? [email] : []);
  const session = await startSession(db, auth, user.id);
  return { name: email, userId: user.id, headers: { cookie: `${sessionCookieName(auth)}=${session.id}` }, csrf: session.csrfToken };
}

export async function grant(server: TestServer, environmentId: string, email: string, role: EnvRole) {
  await server.services.store.db
    .insert(memberships)
    .values({ environmentId, email, role })
    .onConflictDoUpdate({ target: [memberships.environmentId, memberships.email], set: { role } });
}

export async function personalToken(
  server: TestServer,
  person: { userId: string; name: string },
  scopes: ('read' | 'write')[],
  name = 'script',
): Promise<Caller & { id: string; token: string }> {
  const { id, token } = await createPersonalToken(server.services.store.db, { userId: person.userId, email: person.name }, { name, scopes });
  return { name: `${person.name} token (${scopes.join('+')})`, id, token, headers: { authorization: `Bearer ${token}` } };
}

export async function ciToken(server: TestServer, environmentId: string, name = 'ci'): Promise<Caller & { id: string; token: string }> {
  const { id, token } = await createCiToken(server.services.store.db, environmentId, name, 'tests');
  return { name: `CI token of ${environmentId}`, id, token, headers: { authorization: `Bearer ${token}` } };
}

/** One request as `caller`: a session caller's changes carry the page's Origin and the CSRF token. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function requestAs<T = any>(server: TestServer, caller: Caller, path: string, init: JsonRequest = {}): Promise<JsonAnswer<T>> {
  const method = init.method ?? 'GET';
  const session: Record<string, string> = caller.csrf && !['GET', 'HEAD'].includes(method) ? { origin: server.url, 'x-csrf-token': caller.csrf } : {};
  return requestJson<T>(`${server.url}${path}`, { ...init, headers: { ...caller.headers, ...session, ...init.headers } });
}
