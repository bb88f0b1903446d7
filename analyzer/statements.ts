// Reads one database's pg_stat_statements, grouped by fingerprint, for production sync and the
// ci-report command. The sessions are the gateway's (read-only transactions with timeouts, the
// marker); the reading is the analyzer's (the PostgreSQL 14-18 column differences, the system-catalog
// filter); this file opens and closes the gateway around it, keeps the application's data queries
// only, and turns failures into one readable message.
import type { QueryStats } from '../shared/analyzer-schema';
import { readServer } from './catalog/server.sql';
import { readQueries } from './queries';
import { classifyError, DEFAULT_LIMITS, messageOf, openGateway, redactConnectionString, type Gateway, type SessionLimits } from '../gateway/index';
import { isDataQuery } from '../shared/data-queries';

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

export async function readDatabaseStatements(connectionString: string, options: ReadOptions): Promise<DatabaseStatements> {
  let pool: Gateway;
  try {
    pool = openGateway(connectionString, { limits: options.limits ?? DEFAULT_LIMITS });
  } catch (error) {
    throw new StatementsReadError(`Invalid connection string: ${messageOf(error)}`, true);
  }
  try {
    let server: Awaited<ReturnType<typeof readServer>>;
    try {
      server = await readServer(pool);
    } catch (error) {
      throw new StatementsReadError(redactConnectionString(classifyError(error).message, connectionString), true);
    }
    // A pooler that drops startup parameters would leave the session writable: do not use it.
    if (server.readOnly !== 'on') {
      throw new StatementsReadError('The session could not be made read only (default_transaction_read_only is off); refusing to read', true);
    }
    try {
      const { queries, insufficientPrivilege, unparseable } = await readQueries(pool, server.databaseOid, server.database, options.limit);
      const kept = queries.filter((q) => isDataQuery(q.query));
      return {
        database: server.database,
        queries: kept,
        insufficientPrivilege,
        skipped: unparseable,
        notQueries: queries.length - kept.length,
      };
    } catch (error) {
      throw new StatementsReadError(redactConnectionString((error as Error).message, connectionString), false);
    }
  } finally {
    await pool.close().catch(() => undefined);
  }
}
