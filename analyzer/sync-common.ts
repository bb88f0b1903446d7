// What every way of syncing shares: opening the gateway and proving the session read only, the
// settings, and the meta part (who we are, what we could see).
import { STATS_FROM_SOURCE_MIN_ROWS, type Meta, type QualifiedName, type Result } from '../shared/analyzer-schema';
import { DEFAULT_LIMITS, messageOf, openGateway, type Gateway, type SessionLimits } from '../gateway/index';
import type { SchemaFilters } from '../shared/schema-filters';
import { readServer, type ServerRow } from './catalog/server.sql';
import { AnalyzerHttpError, classifyConnectionError } from './errors';
import type { QueriesResult } from './queries';
import { ANALYZER_VERSION } from './version';
import { MONITORING_ROLE_DOCS } from '../shared/statistics-warnings';

export interface SyncSettings {
  limits: SessionLimits;
  sampleConcurrency: number;
  maxSampledTables: number;
  /** How much of the database one transaction reads: relations plus their indexes (analyzer/chunks.ts). */
  chunkWeight: number;
  /** Chunks read at once, each on a session of its own. */
  chunkConcurrency: number;
  /** Characters of an answer held in memory; beyond, its lists wait in temp files until written. */
  spoolMemoryChars: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
  limits: DEFAULT_LIMITS,
  sampleConcurrency: 4,
  maxSampledTables: 2000,
  chunkWeight: 2000,
  chunkConcurrency: 3,
  spoolMemoryChars: 8 * 1024 * 1024,
};

export function toResult<T>(settled: PromiseSettledResult<T>): Result<T> {
  return settled.status === 'fulfilled' ? { type: 'ok', value: settled.value } : { type: 'error', error: messageOf(settled.reason) };
}

export interface Connected {
  db: Gateway;
  server: ServerRow;
}

/**
 * Opens the gateway and reads who we are. Throws AnalyzerHttpError when it cannot connect at all
 * or the session is not read only (the caller answers with that status); nothing is left open then.
 */
export async function connect(db: string, limits: SessionLimits, filters?: SchemaFilters): Promise<Connected> {
  let gateway: Gateway;
  try {
    gateway = openGateway(db, { limits });
  } catch (error) {
    throw classifyConnectionError(error);
  }
  try {
    let server: ServerRow;
    try {
      server = await readServer(gateway, filters);
    } catch (error) {
      throw classifyConnectionError(error);
    }
    // A pooler that drops startup parameters would leave the session writable: refuse to go on.
    if (server.readOnly !== 'on') {
      throw new AnalyzerHttpError(
        502,
        'not_read_only',
        'The session could not be made read only (default_transaction_read_only is off), so the analyzer will not use it.',
      );
    }
    return { db: gateway, server };
  } catch (error) {
    await gateway.close().catch(() => {});
    throw error;
  }
}

function visibilityNotes(server: ServerRow, queries: QueriesResult | undefined, withoutSelect: QualifiedName[] | undefined): string[] {
  const insufficient = queries?.insufficientPrivilege ?? null;
  const notes: string[] = [];
  if (!server.superuser && !server.pgReadAllStats) {
    notes.push(
      `Role "${server.user}" is not a member of pg_read_all_stats (or pg_monitor): pg_stat_statements hides other roles' query texts. ` +
        `GRANT pg_read_all_stats TO ${server.user}; shows them.`,
    );
  }
  if (insufficient) notes.push(`${insufficient} pg_stat_statements entries showed <insufficient privilege> and are left out.`);
  if (queries?.unparseable) {
    notes.push(`${queries.unparseable} pg_stat_statements entries could not be parsed (such as PostgreSQL 18's "SAVEPOINT $1") and are left out.`);
  }
  if (withoutSelect === undefined) notes.push('Table privileges could not be checked.');
  else if (withoutSelect.length) {
    notes.push(
      `${withoutSelect.length} tables cannot be read by this role: no sample rows, and pg_stats hides their columns, so they are planned with the planner's defaults. ` +
        `Grant SELECT, or have an administrator install the querytrail.column_stats() helper (${MONITORING_ROLE_DOCS}).`,
    );
  }
  return notes;
}

/** The meta part, once the queries and the table privileges were read (or failed). */
export function buildMeta(server: ServerRow, started: number, queries: Result<QueriesResult>, withoutSelect: PromiseSettledResult<QualifiedName[]>): Meta {
  const queriesRead = queries.type === 'ok' ? queries.value : undefined;
  const tablesWithoutSelect = withoutSelect.status === 'fulfilled' ? withoutSelect.value : undefined;
  return {
    version: ANALYZER_VERSION,
    serverVersion: server.serverVersion,
    serverVersionNum: server.serverVersionNum,
    database: server.database,
    user: server.user,
    syncedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    totalRows: server.totalRows,
    inferredStatsStrategy: server.totalRows >= STATS_FROM_SOURCE_MIN_ROWS ? 'fromSource' : 'default',
    visibility: {
      superuser: server.superuser,
      pgReadAllStats: server.pgReadAllStats,
      insufficientPrivilegeStatements: queriesRead?.insufficientPrivilege ?? null,
      tablesWithoutSelect: tablesWithoutSelect ?? [],
      notes: visibilityNotes(server, queriesRead, tablesWithoutSelect),
    },
  };
}
