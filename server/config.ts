// Everything the server reads from the environment, read once, with the documented defaults.
import path from 'node:path';
import { MISSING_SHARED_KEY } from './secrets';

export interface Config {
  port: number;
  host: string;
  analyzerPort: number;
  dataDir: string;
  databaseUrl?: string;
  secretKey?: string;
  apiToken?: string;
  allowUnauthenticated: boolean;
  /** Host names the server answers to besides loopback and HOST (ALLOWED_HOSTS, lower case; a port given is ignored). */
  allowedHosts: string[];
  /** Largest accepted request body, in bytes (after gzip inflation). */
  maxBodyBytes: number;
  /** A production snapshot (schema + statistics) older than this is read again before a CI run is planned. */
  snapshotMaxAgeSeconds: number;
  /** Shadow servers kept started between analyses (0: each analysis starts and stops its own). */
  warmShadows: number;
  /** A warm shadow unused this long is stopped. */
  warmShadowIdleSeconds: number;
  /**
   * What of production a CI run's verdict reads and rebuilds in the shadow (VERDICT_SNAPSHOT):
   * `scoped`, only the relations its queries touch and what planning them needs (advisor/scope.ts);
   * `full`, the whole database, as verdicts did before (for comparison, npm run bench:verdict).
   */
  verdictSnapshot: 'scoped' | 'full';
  /** Background jobs (server/queue/): see docs/operations.md, "Background jobs". */
  jobs: { heartbeatSeconds: number; retryLimit: number; retryDelaySeconds: number; pollSeconds: number };
  /** Production history: seconds between snapshots of an environment that has no setting of its own (at least 5). */
  snapshotIntervalSeconds: number;
  /** Production history points kept at full resolution this many days, then summed per hour. */
  historyFullDays: number;
  /** Hourly production history kept this many days. */
  historyHourlyDays: number;
  /** Webhooks may reach private and loopback addresses (WEBHOOK_ALLOW_PRIVATE=1; server/webhooks/addresses.ts). */
  webhookAllowPrivate: boolean;
  /** Sign-in and who may do what (server/auth/): see docs/teams.md. */
  auth: AuthConfig;
}

export interface AuthConfig {
  /** The address people reach the server at (PUBLIC_URL), without a trailing slash: redirect URI, cookie Secure, Origin check. */
  publicUrl?: string;
  /** Sign-in through an OpenID provider; absent when OIDC_ISSUER is unset. */
  oidc?: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    allowedDomains: string[];
    allowedGroups: string[];
    /** Scopes asked for (OIDC_SCOPES); by default `openid email profile`, and `groups` too while allowedGroups is set. */
    scopes: string[];
    /** The claim that lists a person's groups (OIDC_GROUPS_CLAIM, default `groups`). */
    groupsClaim: string;
  };
  /** First admins (ADMIN_EMAILS), lower case. */
  adminEmails: string[];
  /** Issuers whose CI ID tokens are accepted for tokenless CI (CI_OIDC_ISSUERS) and the audience they must carry. */
  ciIssuers: string[];
  ciAudience: string;
  /** Where each CI issuer's keys are, when not where its discovery document says (CI_OIDC_JWKS_URLS, "issuer=url" pairs). */
  ciJwksUrls: Record<string, string>;
  /** Branches CI ID tokens may post runs for (CI_OIDC_BRANCHES); empty means any. */
  ciBranches: string[];
  /** A session unused this long ends (SESSION_IDLE_HOURS, default 24). */
  sessionIdleSeconds: number;
  /** A session ends this long after sign-in whatever its use (SESSION_MAX_DAYS, default 7). */
  sessionMaxSeconds: number;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

function count(value: string | undefined, fallback: number, name: string): number {
  const raw = value?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(raw);
}

/** One of `allowed` (the first when unset), said in lower case. */
function oneOf<T extends string>(value: string | undefined, allowed: readonly [T, ...T[]], name: string): T {
  const raw = value?.trim().toLowerCase();
  if (!raw) return allowed[0];
  const found = allowed.find((option) => option === raw);
  if (!found) throw new Error(`${name} must be ${allowed.map((option) => `"${option}"`).join(' or ')}, got "${value}"`);
  return found;
}

function atLeast(value: number, min: number, name: string): number {
  if (value < min) throw new Error(`${name} must be at least ${min}, got ${value}`);
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: port(env.PORT, 3000, 'PORT'),
    host: env.HOST || '127.0.0.1',
    analyzerPort: port(env.ANALYZER_PORT, 2345, 'ANALYZER_PORT'),
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    secretKey: env.SECRET_KEY || undefined,
    apiToken: env.API_TOKEN || undefined,
    allowUnauthenticated: env.ALLOW_UNAUTHENTICATED === '1',
    allowedHosts: (env.ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    maxBodyBytes: Number(env.MAX_BODY_BYTES) > 0 ? Number(env.MAX_BODY_BYTES) : 5 * 1024 * 1024,
    snapshotMaxAgeSeconds: count(env.SNAPSHOT_MAX_AGE_SECONDS, 3600, 'SNAPSHOT_MAX_AGE_SECONDS'),
    warmShadows: count(env.WARM_SHADOWS, 2, 'WARM_SHADOWS'),
    warmShadowIdleSeconds: count(env.WARM_SHADOW_IDLE_SECONDS, 600, 'WARM_SHADOW_IDLE_SECONDS'),
    verdictSnapshot: oneOf(env.VERDICT_SNAPSHOT, ['scoped', 'full'], 'VERDICT_SNAPSHOT'),
    jobs: {
      // pg-boss refuses a heartbeat interval under 10 s
      heartbeatSeconds: Math.max(10, count(env.JOB_HEARTBEAT_SECONDS, 30, 'JOB_HEARTBEAT_SECONDS')),
      retryLimit: count(env.JOB_RETRY_LIMIT, 2, 'JOB_RETRY_LIMIT'),
      retryDelaySeconds: Math.max(1, count(env.JOB_RETRY_DELAY_SECONDS, 10, 'JOB_RETRY_DELAY_SECONDS')),
      pollSeconds: Math.max(1, count(env.JOB_POLL_SECONDS, 2, 'JOB_POLL_SECONDS')),
    },
    snapshotIntervalSeconds: atLeast(count(env.SNAPSHOT_INTERVAL_SECONDS, 600, 'SNAPSHOT_INTERVAL_SECONDS'), 5, 'SNAPSHOT_INTERVAL_SECONDS'),
    historyFullDays: atLeast(count(env.HISTORY_FULL_DAYS, 7, 'HISTORY_FULL_DAYS'), 1, 'HISTORY_FULL_DAYS'),
    historyHourlyDays: atLeast(count(env.HISTORY_HOURLY_DAYS, 90, 'HISTORY_HOURLY_DAYS'), 1, 'HISTORY_HOURLY_DAYS'),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    auth: readAuthConfig(env),
  };
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** An identity provider's address: https, or http on a loopback address (a provider run beside the server, as tests do). */
export function checkIssuerUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be a URL, got "${value}"`);
  }
  const loopback = isLoopback(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`${name} must be an https:// URL (http:// only on a loopback address), got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function readAuthConfig(env: NodeJS.ProcessEnv): AuthConfig {
  const publicUrl = env.PUBLIC_URL?.trim() ? env.PUBLIC_URL.trim().replace(/\/+$/, '') : undefined;
  if (publicUrl && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new Error(`PUBLIC_URL must be an http(s) URL, got "${env.PUBLIC_URL}"`);
  let oidc: AuthConfig['oidc'];
  if (env.OIDC_ISSUER?.trim()) {
    if (!env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) throw new Error('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
    if (!publicUrl) throw new Error('OIDC_ISSUER needs PUBLIC_URL: the identity provider returns people to ${PUBLIC_URL}/auth/callback');
    oidc = {
      issuer: checkIssuerUrl(env.OIDC_ISSUER.trim(), 'OIDC_ISSUER'),
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      allowedDomains: list(env.OIDC_ALLOWED_DOMAINS).map((d) => d.toLowerCase().replace(/^@/, '')),
      allowedGroups: list(env.OIDC_ALLOWED_GROUPS),
      // some providers refuse a scope they do not know (Google, Entra ID, GitLab have no `groups`): OIDC_SCOPES says exactly what to ask for
      scopes: env.OIDC_SCOPES?.trim()
        ? env.OIDC_SCOPES.split(/[\s,]+/).filter(Boolean)
        : ['openid', 'email', 'profile', ...(list(env.OIDC_ALLOWED_GROUPS).length ? ['groups'] : [])],
      groupsClaim: env.OIDC_GROUPS_CLAIM?.trim() || 'groups',
    };
    if (!oidc.scopes.includes('openid')) throw new Error('OIDC_SCOPES must include openid');
  }
  const ciIssuers = list(env.CI_OIDC_ISSUERS ?? 'https://token.actions.githubusercontent.com').map((i) => checkIssuerUrl(i, 'CI_OIDC_ISSUERS'));
  const ciJwksUrls: Record<string, string> = {};
  for (const pair of list(env.CI_OIDC_JWKS_URLS)) {
    const at = pair.lastIndexOf('=');
    if (at <= 0) throw new Error(`CI_OIDC_JWKS_URLS takes issuer=url pairs, got "${pair}"`);
    ciJwksUrls[checkIssuerUrl(pair.slice(0, at), 'CI_OIDC_JWKS_URLS')] = checkIssuerUrl(pair.slice(at + 1), 'CI_OIDC_JWKS_URLS');
  }
  return {
    publicUrl,
    oidc,
    adminEmails: list(env.ADMIN_EMAILS).map((e) => e.toLowerCase()),
    ciIssuers,
    ciAudience: env.CI_OIDC_AUDIENCE?.trim() || 'querytrail',
    ciJwksUrls,
    ciBranches: list(env.CI_OIDC_BRANCHES),
    sessionIdleSeconds: atLeast(count(env.SESSION_IDLE_HOURS, 24, 'SESSION_IDLE_HOURS'), 1, 'SESSION_IDLE_HOURS') * 3600,
    sessionMaxSeconds: atLeast(count(env.SESSION_MAX_DAYS, 7, 'SESSION_MAX_DAYS'), 1, 'SESSION_MAX_DAYS') * 86_400,
  };
}

/**
 * Team mode: people sign in (an identity provider is configured) or every request carries a token
 * (API_TOKEN is set). Otherwise querytrail is the single-user app of one machine: no sign-in, and
 * whoever reaches it is its admin (it listens on loopback unless ALLOW_UNAUTHENTICATED=1).
 */
export const isTeamMode = (config: Config) => Boolean(config.auth.oidc || config.apiToken);

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || host.startsWith('127.');

/** Several servers on one DATABASE_URL must share one encryption key (server/secrets.ts). */
export function checkSecretKey(config: Config): string | undefined {
  return config.databaseUrl && !config.secretKey ? MISSING_SHARED_KEY : undefined;
}

/** Refuses to serve data to the network without a token unless the operator said so. */
export function checkExposure(config: Config): string | undefined {
  if (isLoopback(config.host) || isTeamMode(config) || config.allowUnauthenticated) return undefined;
  return `Refusing to listen on ${config.host} without API_TOKEN or sign-in (OIDC_ISSUER): anyone on the network could read and change your environments. Configure an identity provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, PUBLIC_URL) or API_TOKEN, or ALLOW_UNAUTHENTICATED=1 to accept that.`;
}
