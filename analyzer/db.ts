// The one place that opens sessions on the user's database. Every session is read only and bounded
// in time, and every statement carries the analyzer's marker, so nothing here can write, hang, or
// show up among the user's own queries.
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';

/**
 * Appended to every statement. PostgreSQL 18's pg_stat_statements drops a leading comment from the
 * text it stores but keeps a trailing one (checked on 14 and 18), so the marker goes last.
 */
export const MARKER = '/* querytrail-analyzer */';
export const APPLICATION_NAME = 'querytrail-analyzer';

export interface SessionLimits {
  /** Give up connecting after this long (refused and DNS failures fail sooner on their own). */
  connectTimeoutMs: number;
  /** Server-side cap on any one statement. */
  statementTimeoutMs: number;
  /** Never queue behind an ACCESS EXCLUSIVE lock (a migration, VACUUM FULL) for longer than this. */
  lockTimeoutMs: number;
  /** Sessions opened in parallel for one sync. */
  poolSize: number;
}

export const DEFAULT_LIMITS: SessionLimits = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 2_000,
  poolSize: 4,
};

export type Db = pg.Pool;

/** Appends the marker; statements are single, without a trailing semicolon. */
export function tag(sql: string): string {
  return `${sql.trimEnd()}\n${MARKER}`;
}

/**
 * Session settings are sent as startup parameters, after whatever the connection string carries:
 * pg lets a connection string override options given beside it, so we parse it ourselves and put
 * ours last (for a repeated -c setting the server keeps the last one).
 */
export function sessionConfig(connectionString: string, limits: SessionLimits): pg.PoolConfig {
  const parsed = parseIntoClientConfig(connectionString);
  const userOptions = parsed.options ?? '';
  return {
    ...parsed,
    options: `${userOptions} -c default_transaction_read_only=on`.trim(),
    application_name: APPLICATION_NAME,
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    idle_in_transaction_session_timeout: limits.statementTimeoutMs,
    connectionTimeoutMillis: limits.connectTimeoutMs,
    // Client-side backstop for a server that stops answering mid-query (statement_timeout is enforced
    // by that same server).
    query_timeout: limits.statementTimeoutMs + 5_000,
    max: limits.poolSize,
    idleTimeoutMillis: 1_000,
  };
}

/** A small pool of read-only sessions; close it with `db.end()`. */
export function openReadOnlyPool(connectionString: string, limits: SessionLimits): Db {
  const pool = new pg.Pool(sessionConfig(connectionString, limits));
  // An idle session dropped by the server emits here; without a listener it would crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Runs one tagged statement and returns its rows. */
export async function queryRows<T extends pg.QueryResultRow>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query<T>(tag(sql), params);
  return result.rows;
}
