// Who is asking, resolved once per request before any route: a session cookie, a bearer token (the
// API_TOKEN, a personal or CI token, or a CI job's ID token), or nobody. In single-user mode
// (isTeamMode false) everyone is the local admin, as querytrail always was on one machine.
// Each lookup is one statement that brings the person and their memberships along; its answer is
// kept in memory until any credential changes on any server of the store (principal-cache.ts), so a
// revoked token or an ended session still stops working at once everywhere.
import type { Request, RequestHandler, Response } from 'express';
import { eq, and, isNull, lt, or, sql } from 'drizzle-orm';
import { isTeamMode, type Config } from '../config';
import { apiTokens } from '../db/schema';
import type { Store } from '../db/store';
import type { EnvRole, InstanceRole, TokenScope } from '../../shared/auth';
import { CredentialsRefused, CredentialsUnverifiable, type Principal } from './principal';
import { hashSecret, parseToken, sameSecret, secretMatches } from './secret-values';
import { sessionIdOf, touchSession } from './sessions';
import { looksLikeJwt, verifyCiIdToken } from './ci-oidc';
import { openPrincipalCache, type PrincipalCache } from './principal-cache';

const IDLE_CHECK = `s.last_seen_at > now() - make_interval(secs => $2) AND s.expires_at > now()`;

const SESSION_LOOKUP = {
  name: 'qt_session_principal',
  text: `SELECT u.id AS user_id, u.email, u.name, u.role, s.csrf_token,
           s.last_seen_at < now() - interval '1 minute' AS stale,
           (extract(epoch FROM least(s.expires_at, s.last_seen_at + make_interval(secs => $2))) * 1000)::float8 AS valid_until_ms,
           coalesce((SELECT json_object_agg(m.environment_id, m.role) FROM memberships m WHERE m.email = u.email), '{}') AS memberships
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id_hash = $1 AND ${IDLE_CHECK}`,
};

const TOKEN_LOOKUP = {
  name: 'qt_token_principal',
  text: `SELECT t.kind, t.name AS token_name, t.scopes, t.secret_hash, t.environment_id,
           t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute' AS stale,
           (extract(epoch FROM t.expires_at) * 1000)::float8 AS valid_until_ms,
           u.id AS user_id, u.email, u.name, u.role,
           CASE WHEN u.email IS NULL THEN '{}'::json ELSE
             coalesce((SELECT json_object_agg(m.environment_id, m.role) FROM memberships m WHERE m.email = u.email), '{}') END AS memberships
         FROM api_tokens t LEFT JOIN users u ON u.id = t.user_id
         WHERE t.id = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
};

interface PersonRow {
  user_id: string;
  email: string;
  name: string;
  role: InstanceRole;
  memberships: Record<string, EnvRole> | string;
  stale: boolean;
  /** When the credential stops being good by itself (expiry, idle time), in epoch ms; null: never. */
  valid_until_ms: number | null;
}

type Resolved = { principal: Principal; validUntilMs: number | null };

const membershipsOf = (value: PersonRow['memberships']) => (typeof value === 'string' ? (JSON.parse(value) as Record<string, EnvRole>) : value);

async function sessionPrincipal(store: Store, config: Config, idHash: string): Promise<Resolved | undefined> {
  const [row] = await store.read<PersonRow & { csrf_token: string }>({ ...SESSION_LOOKUP, values: [idHash, config.auth.sessionIdleSeconds] });
  if (!row) return undefined;
  if (row.stale) void touchSession(store.db, idHash).catch(() => undefined);
  const principal: Principal = {
    kind: 'person',
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    memberships: membershipsOf(row.memberships),
    via: { session: { idHash, csrfToken: row.csrf_token } },
  };
  return { principal, validUntilMs: row.valid_until_ms };
}

async function tokenPrincipal(store: Store, value: string): Promise<Resolved> {
  const parsed = parseToken(value);
  if (!parsed) throw new CredentialsRefused('Unknown bearer token');
  const [row] = await store.read<
    Partial<PersonRow> & {
      kind: 'personal' | 'ci';
      token_name: string;
      scopes: TokenScope[] | string;
      secret_hash: string;
      environment_id: string | null;
      stale: boolean;
    }
  >({ ...TOKEN_LOOKUP, values: [parsed.id] });
  // the same answer for an unknown, revoked, expired or wrong token: nothing to learn from it
  if (!row || row.kind !== parsed.kind || !secretMatches(parsed.secret, row.secret_hash)) throw new CredentialsRefused('Unknown, revoked or expired token');
  if (row.stale) void markTokenUsed(store, parsed.id).catch(() => undefined);
  const validUntilMs = row.valid_until_ms ?? null;
  if (row.kind === 'ci') {
    return { principal: { kind: 'ci-token', tokenId: parsed.id, name: row.token_name, environmentId: row.environment_id! }, validUntilMs };
  }
  if (!row.user_id) throw new CredentialsRefused('Unknown, revoked or expired token');
  const scopes = typeof row.scopes === 'string' ? (JSON.parse(row.scopes) as TokenScope[]) : row.scopes;
  const principal: Principal = {
    kind: 'person',
    userId: row.user_id,
    email: row.email!,
    name: row.name!,
    role: row.role!,
    memberships: membershipsOf(row.memberships!),
    via: { token: { id: parsed.id, name: row.token_name, scopes } },
  };
  return { principal, validUntilMs };
}

/** "Last used" is kept to the minute: a token used all day costs one write a minute, not one per request. */
async function markTokenUsed(store: Store, id: string) {
  await store.db
    .update(apiTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiTokens.id, id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`))));
}

/** The bearer value of an Authorization header, if it is one. */
export function bearerOf(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return match?.[1];
}

/** Through the cache when there is one; the key is a hash of the whole credential, secret included. */
async function resolved(cache: PrincipalCache | undefined, key: string, read: () => Promise<Resolved | undefined>) {
  if (!cache) return (await read())?.principal;
  return (await cache.get(key)) ?? cache.remember(key, read);
}

/**
 * Resolves the request's principal; undefined when it carries no credentials. Throws
 * CredentialsRefused for bad ones (refusals are never kept: each is looked up again).
 */
export async function principalOf(req: Request, store: Store, config: Config, cache?: PrincipalCache): Promise<Principal | undefined> {
  if (!isTeamMode(config)) return { kind: 'local' };
  const bearer = bearerOf(req);
  if (bearer !== undefined) {
    if (config.apiToken && sameSecret(bearer, config.apiToken)) return { kind: 'break-glass' };
    if (looksLikeJwt(bearer)) return verifyCiIdToken(config.auth, bearer);
    return resolved(cache, `token:${hashSecret(bearer)}`, () => tokenPrincipal(store, bearer));
  }
  if (req.get('authorization')) throw new CredentialsRefused('Authorization must be "Bearer <token>"');
  const sessionId = sessionIdOf(req, config.auth);
  if (!sessionId) return undefined;
  const idHash = hashSecret(sessionId);
  return resolved(cache, `session:${idHash}`, () => sessionPrincipal(store, config, idHash));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin people reach the server at: PUBLIC_URL's, else the one this request was sent to. */
function expectedOrigin(req: Request, config: Config): string {
  if (config.auth.publicUrl) return new URL(config.auth.publicUrl).origin;
  return `${req.protocol}://${req.get('host')}`;
}

/**
 * A state-changing request that a cookie authenticates must prove it was sent by our own pages:
 * its Origin is ours (or, without Origin, Sec-Fetch-Site says same-origin) and it carries the
 * session's CSRF token, which another site cannot read. Bearer-token requests need neither: a
 * browser never attaches a bearer token by itself.
 */
export function crossSiteRefusal(req: Request, principal: Principal, config: Config): string | undefined {
  if (principal.kind !== 'person' || !('session' in principal.via) || SAFE_METHODS.has(req.method)) return undefined;
  const origin = req.get('origin');
  if (origin !== undefined) {
    if (origin !== expectedOrigin(req, config)) return `Cross-site request refused: Origin ${origin} is not this server's`;
  } else if (req.get('sec-fetch-site') !== 'same-origin') {
    return 'Cross-site request refused: the request names no Origin';
  }
  const sent = req.get('x-csrf-token');
  if (!sent || !sameSecret(sent, principal.via.session.csrfToken)) return 'Cross-site request refused: missing or wrong X-CSRF-Token';
  return undefined;
}

export interface Authenticated {
  principal?: Principal;
}

/** Express middleware: puts the principal on res.locals for the routes below; answers 401/403 itself when credentials are bad. */
export function authenticate(
  store: Store,
  config: Config,
  readsCredentials: (req: Request) => boolean,
  refuse: (res: Response, status: 401 | 403 | 503, code: 'unauthorized' | 'origin_not_allowed' | 'upstream_unavailable', message: string) => void,
): RequestHandler {
  // opened on the first request that reads credentials: single-user servers never need it
  let cache: Promise<PrincipalCache | undefined> | undefined;
  return (req, res, next) => {
    if (!readsCredentials(req)) return next();
    // without it (LISTEN refused) every request is looked up, which is never wrong
    cache ??= isTeamMode(config) ? openPrincipalCache(store).catch(() => undefined) : Promise.resolve(undefined);
    cache
      .then((opened) => principalOf(req, store, config, opened))
      .then(
        (principal) => {
          if (principal) {
            const crossSite = crossSiteRefusal(req, principal, config);
            if (crossSite) return refuse(res, 403, 'origin_not_allowed', crossSite);
          }
          (res.locals as Authenticated).principal = principal;
          next();
        },
        (error: unknown) => {
          if (error instanceof CredentialsRefused) {
            res.setHeader('WWW-Authenticate', 'Bearer');
            return refuse(res, 401, 'unauthorized', error.message);
          }
          if (error instanceof CredentialsUnverifiable) return refuse(res, 503, 'upstream_unavailable', error.message);
          next(error);
        },
      );
  };
}
