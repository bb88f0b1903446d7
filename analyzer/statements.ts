// Reads one database's pg_stat_statements, grouped by fingerprint, for production sync and the
// ci-report command. The sessions are the gateway's (read-only transactions with timeouts, the
// marker); the reading is the analyzer's (the PostgreSQL 14-18 column differences, the system-catalog
// filter); this file opens and closes the gateway around it, keeps the application's data queries
// only, and turns failures into one readable message.
import type { QueryStats } from '../shared/analyzer-schema';
import { readServer } from './catalog/server.sql';
import { catalogHashOf, readQueries } from './queries';
import { listStatements } from './catalog/statements.sql';
import { readStatementsInfo, type StatementsInfo } from './catalog/statements-info.sql';
import { classifyError, DEFAULT_LIMITS, messageOf, openGateway, redactConnectionString, type Gateway, type SessionLimits } from '../gateway/index';
import { isDataQuery } from '../shared/data-queries';
import { loadParser } from '../shared/sql-fingerprint';
import type { SchemaFilters } from '../shared/schema-filters';
import { statementSchemaFilter } from './statement-schemas';
import { listTableFacts, type TableFact } from './catalog/table-facts.sql';

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
  /** The connection's schema filters: entries naming a schema they leave out are dropped (statement-schemas.ts). */
  schemaFilters?: SchemaFilters;
}

/** One pg_stat_statements entry's cumulative counters, under the catalog's fingerprint of its text. */
export interface StatementCounter {
  /** The entry's own key: user, queryid and top level (the database is the connected one). */
  entry: string;
  hash: string;
  calls: number;
  totalTimeMs: number;
  rows: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
}

export interface StatementCounters {
  counters: StatementCounter[];
  /** pg_stat_statements_info read before the entries; null when the extension has no such view. */
  info: StatementsInfo | null;
  /** true when stats_reset moved while the entries were read: they may be from either side of the reset. */
  resetDuringRead: boolean;
  /** The tables' sizes at the reading, when asked for (`withTables`). */
  tables?: TableFact[];
}

/**
 * Every catalog query's pg_stat_statements entries with their counters, unmerged (production history
 * takes the difference entry by entry, so one entry's reset or eviction never moves the others).
 * pg_stat_statements_info is read before and after, to tell a reset that happened meanwhile.
 */
export async function readStatementCounters(
  connectionString: string,
  options: { limits?: SessionLimits; schemaFilters?: SchemaFilters; withTables?: boolean } = {},
): Promise<StatementCounters> {
  return withReadOnlySession(connectionString, options.limits, async (pool, server) => {
    const before = await readStatementsInfo(pool);
    const [rows, keep] = await Promise.all([
      listStatements(pool, server.databaseOid, server.database),
      loadParser().then(() => statementSchemaFilter(pool, options.schemaFilters)),
    ]);
    const after = before ? await readStatementsInfo(pool) : null;
    const counters: StatementCounter[] = [];
    for (const row of rows) {
      if (row.query === null || row.query === '<insufficient privilege>' || !isDataQuery(row.query)) continue;
      const hash = catalogHashOf(row.query);
      if (hash === null) continue;
      if (keep && !keep(row.query)) continue;
      counters.push({
        entry: `${row.userid ?? ''}/${row.queryid ?? ''}/${row.toplevel === false ? 'f' : 't'}`,
        hash,
        calls: row.calls,
        totalTimeMs: row.totalTimeMs,
        rows: row.rows,
        sharedBlksHit: row.sharedBlksHit,
        sharedBlksRead: row.sharedBlksRead,
      });
    }
    const tables = options.withTables ? await listTableFacts(pool, options.schemaFilters) : undefined;
    return { counters, info: before, resetDuringRead: before !== null && before.statsReset !== after?.statsReset, ...(tables && { tables }) };
  });
}

/** Opens the gateway, proves the session read only, runs `read`, closes; failures become StatementsReadError. */
async function withReadOnlySession<T>(
  connectionString: string,
  limits: SessionLimits | undefined,
  read: (pool: Gateway, server: Awaited<ReturnType<typeof readServer>>) => Promise<T>,
): Promise<T> {
  let pool: Gateway;
  try {
    pool = openGateway(connectionString, { limits: limits ?? DEFAULT_LIMITS });
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
      return await read(pool, server);
    } catch (error) {
      throw new StatementsReadError(redactConnectionString((error as Error).message, connectionString), false);
    }
  } finally {
    await pool.close().catch(() => undefined);
  }
}

export async function readDatabaseStatements(connectionString: string, options: ReadOptions): Promise<DatabaseStatements> {
  return withReadOnlySession(connectionString, options.limits, async (pool, server) => {
    const { queries, insufficientPrivilege, unparseable } = await readQueries(pool, server.databaseOid, server.database, options.limit, options.schemaFilters);
    const kept = queries.filter((q) => isDataQuery(q.query));
    return {
      database: server.database,
      queries: kept,
      insufficientPrivilege,
      skipped: unparseable,
      notQueries: queries.length - kept.length,
    };
  });
}
