// Who is asking: resolved once per request (server/auth/authenticate.ts) from a session cookie, a
// bearer token or a CI ID token, and checked against the access table (server/auth/access.ts).
import type { EnvRole, InstanceRole, TokenScope } from '../../shared/auth';

export type Principal =
  /** Single-user mode (no identity provider, no API_TOKEN): the person at this machine, an admin. */
  | { kind: 'local' }
  /** The API_TOKEN: an admin credential for when sign-in is broken. */
  | { kind: 'break-glass' }
  /** A person, by session (browser) or by personal access token (limited to its scopes). */
  | {
      kind: 'person';
      userId: string;
      email: string;
      name: string;
      role: InstanceRole;
      /** Environment id to role, for every environment the person belongs to. */
      memberships: Record<string, EnvRole>;
      via: { session: { idHash: string; csrfToken: string } } | { token: { id: string; name: string; scopes: TokenScope[] } };
    }
  /** An environment's CI token: posts that environment's runs and reads their verdicts, nothing else. */
  | { kind: 'ci-token'; tokenId: string; name: string; environmentId: string }
  /** A CI job's ID token (tokenless CI): posts runs of the one repository its claims name. */
  | { kind: 'ci-oidc'; issuer: string; repository: string; repositoryId?: string; ref?: string; subject: string };

export const isAdmin = (p: Principal) => p.kind === 'local' || p.kind === 'break-glass' || (p.kind === 'person' && p.role === 'admin');
export const isCi = (p: Principal): p is Extract<Principal, { kind: 'ci-token' | 'ci-oidc' }> => p.kind === 'ci-token' || p.kind === 'ci-oidc';

/** What the audit log and acknowledgements record of who did something; never a secret. */
export function actorOf(p: Principal): { kind: 'local' | 'break-glass' | 'user' | 'token' | 'ci-token' | 'ci-oidc'; name: string } {
  switch (p.kind) {
    case 'local':
      return { kind: 'local', name: 'local' };
    case 'break-glass':
      return { kind: 'break-glass', name: 'API_TOKEN' };
    case 'person':
      return 'token' in p.via ? { kind: 'token', name: `${p.email} (token "${p.via.token.name}")` } : { kind: 'user', name: p.email };
    case 'ci-token':
      return { kind: 'ci-token', name: `CI token "${p.name}"` };
    case 'ci-oidc':
      return { kind: 'ci-oidc', name: `${p.repository}${p.ref ? ` (${p.ref})` : ''}` };
  }
}

/** A request's credentials were presented but are not valid: 401 with this message. */
export class CredentialsRefused extends Error {}

/** Credentials that cannot be checked now (a CI issuer's keys unreachable): 503, so CI reads it as querytrail unavailable, not as a wrong token. */
export class CredentialsUnverifiable extends Error {}
