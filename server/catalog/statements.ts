// Reads one database's pg_stat_statements, grouped by fingerprint, for production sync and the
// ci-report command. The reading itself is the analyzer's (read-only sessions with timeouts, the
// PostgreSQL 14-18 column differences, the self-marker, the system-catalog filter); this file opens
// and closes the session around it, keeps the application's data queries only, and turns failures
// into one readable message.
import type { QueryStats } from '../../shared/analyzer-schema';
import { hashSchema } from '../../shared/environments';
import { readServer } from '../../analyzer/catalog/server.sql';
import { DEFAULT_LIMITS, openReadOnlyPool, type SessionLimits } from '../../analyzer/db';
import { classifyConnectionError } from '../../analyzer/errors';
import { readQueries } from '../../analyzer/queries';
import { isDataQuery } from '../../shared/data-queries';

/** Connecting or reading failed; the message is safe to show (it never carries the password). */
export class StatementsReadError extends Error {
  constructor(
    message: string,
    /** true when no session could be opened at all (as opposed to pg_stat_statements missing). */
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

export interface DatabaseStatements {
  database: string;
  /** One per fingerprint, with a hash the catalog accepts. */
  queries: QueryStats[];
  insufficientPrivilege: number;
  /** Statements the parser could not read, so they have no fingerprint to be catalogued under. */
  skipped: number;
  /** Statements left out because they are not queries (DDL of migrations, COPY, EXPLAIN...). */
  notQueries: number;
}

export interface ReadOptions {
  /** Most statements to keep (by total time). */
  limit: number;
  limits?: SessionLimits;
}

/** Strips the password of the connection string from a driver message, should one ever echo it. */
function redact(message: string, connectionString: string): string {
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    return password ? message.replaceAll(password, '****') : message;
  } catch {
    return message;
  }
}

export async function readDatabaseStatements(connectionString: string, options: ReadOptions): Promise<DatabaseStatements> {
  let pool: ReturnType<typeof openReadOnlyPool>;
  try {
    pool = openReadOnlyPool(connectionString, options.limits ?? DEFAULT_LIMITS);
  } catch (error) {
    throw new StatementsReadError(redact(`Invalid connection string: ${(error as Error).message}`, connectionString), true);
  }
  try {
    let server: Awaited<ReturnType<typeof readServer>>;
    try {
      server = await readServer(pool);
    } catch (error) {
      throw new StatementsReadError(redact(classifyConnectionError(error).message, connectionString), true);
    }
    // A pooler that drops startup parameters would leave the session writable: do not use it.
    if (server.readOnly !== 'on') {
      throw new StatementsReadError('The session could not be made read only (default_transaction_read_only is off); refusing to read', true);
    }
    try {
      const { queries, insufficientPrivilege } = await readQueries(pool, server.databaseOid, server.database, options.limit);
      // The analyzer names an unparseable statement by its queryid; the catalog keys on fingerprints only.
      const parsed = queries.filter((q) => hashSchema.safeParse(q.hash).success);
      const kept = parsed.filter((q) => isDataQuery(q.query));
      return {
        database: server.database,
        queries: kept,
        insufficientPrivilege,
        skipped: queries.length - parsed.length,
        notQueries: parsed.length - kept.length,
      };
    } catch (error) {
      throw new StatementsReadError(redact((error as Error).message, connectionString), false);
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
}
