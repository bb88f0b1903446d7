// How a session to a user's database is opened: the driver settings built from a connection string
// that already passed the allow-list, and the settings every session is pinned to.
import type pg from 'pg';
import type { PostgresTarget } from '../shared/connection-string';

export interface SessionLimits {
  /** Give up connecting after this long (refused and DNS failures fail sooner on their own). */
  connectTimeoutMs: number;
  /** Server-side cap on any one statement. */
  statementTimeoutMs: number;
  /** Never queue behind an ACCESS EXCLUSIVE lock (a migration, VACUUM FULL) for longer than this. */
  lockTimeoutMs: number;
  /** Sessions opened in parallel by one gateway. */
  poolSize: number;
}

export const DEFAULT_LIMITS: SessionLimits = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 2_000,
  poolSize: 4,
};

export const APPLICATION_NAME = 'querytrail-analyzer';

/**
 * The settings no statement of ours runs without: read only (the transaction is also opened READ
 * ONLY; this is the second layer), only PostgreSQL's own objects resolvable by unqualified names, and
 * row security off, so that a policy (whose expression would run as us) makes a read fail instead.
 */
export const PINNED_SETTINGS = {
  default_transaction_read_only: 'on',
  search_path: 'pg_catalog, pg_temp',
  row_security: 'off',
} as const;

/**
 * Startup options. The connection string cannot carry `options` (the allow-list refuses it), and ours
 * would come last anyway: for a repeated -c setting the server keeps the last one. event_triggers=off
 * keeps login event triggers (PostgreSQL 17+) from running as us; only a superuser may send it.
 */
export function startupOptions(disableEventTriggers: boolean): string {
  const settings = Object.entries(PINNED_SETTINGS).map(([name, value]) => `-c ${name}=${value.replaceAll(' ', '')}`);
  if (disableEventTriggers) settings.push('-c event_triggers=off');
  return settings.join(' ');
}

export function clientConfig(target: PostgresTarget, limits: SessionLimits, applicationName: string, disableEventTriggers: boolean): pg.ClientConfig {
  const ownTimeout = target.connectTimeoutSeconds ? target.connectTimeoutSeconds * 1000 : Infinity;
  const password = target.password;
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    ...(target.user ? { user: target.user } : {}),
    // A function, so that a string without a password never falls back to PGPASSWORD or ~/.pgpass:
    // those belong to whoever runs querytrail, not to the server the string points at.
    password: () => password ?? '',
    ssl: target.tls === 'disable' ? false : target.tls === 'no-verify' ? { rejectUnauthorized: false } : {},
    application_name: applicationName,
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    idle_in_transaction_session_timeout: limits.statementTimeoutMs,
    connectionTimeoutMillis: Math.min(limits.connectTimeoutMs, ownTimeout),
    // Client-side backstop for a server that stops answering mid-query (statement_timeout is enforced
    // by that same server).
    query_timeout: limits.statementTimeoutMs + 5_000,
    options: startupOptions(disableEventTriggers),
  };
}
