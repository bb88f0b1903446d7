// One sync: connect read only, then read the parts of RemoteSyncResponse side by side. A part
// that fails (pg_stat_statements missing, a catalog the role may not read) is reported inside its
// own field; the others still carry their results.
import {
  STATS_FROM_SOURCE_MIN_ROWS,
  type DisabledIndex,
  type Meta,
  type QualifiedName,
  type RemoteSyncResponse,
  type Result,
  type SyncRequest,
} from '../shared/analyzer-schema';
import { ANALYZER_VERSION } from './version';
import { listDisabledIndexes } from './catalog/disabled-indexes.sql';
import { readIndexHealth } from './index-health';
import { readServer, type ServerRow } from './catalog/server.sql';
import { listTablesWithoutSelect } from './catalog/visibility.sql';
import { readSchema } from './database-schema';
import { DEFAULT_LIMITS, messageOf, openGateway, type Gateway, type SessionLimits } from '../gateway/index';
import { AnalyzerHttpError, classifyConnectionError } from './errors';
import { readQueries, type QueriesResult } from './queries';

export interface SyncSettings {
  limits: SessionLimits;
  sampleConcurrency: number;
  maxSampledTables: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
  limits: DEFAULT_LIMITS,
  sampleConcurrency: 4,
  maxSampledTables: 2000,
};

function toResult<T>(settled: PromiseSettledResult<T>): Result<T> {
  return settled.status === 'fulfilled' ? { type: 'ok', value: settled.value } : { type: 'error', error: messageOf(settled.reason) };
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
    notes.push(`${withoutSelect.length} tables cannot be read by this role: no sample rows, and pg_stats hides their columns.`);
  }
  return notes;
}

/**
 * Syncs one database. Throws AnalyzerHttpError when it cannot connect at all (the caller answers
 * with that status); once connected, every failure stays inside its part.
 */
export async function syncDatabase(
  request: SyncRequest,
  settings: SyncSettings = DEFAULT_SYNC_SETTINGS,
): Promise<RemoteSyncResponse> {
  const started = Date.now();
  let db: Gateway;
  try {
    db = openGateway(request.db, { limits: settings.limits });
  } catch (error) {
    throw classifyConnectionError(error);
  }
  try {
    let server: ServerRow;
    try {
      server = await readServer(db);
    } catch (error) {
      throw classifyConnectionError(error);
    }
    // A pooler that drops startup parameters would leave the session writable: refuse to go on.
    if (server.readOnly !== 'on') {
      throw new AnalyzerHttpError(502, 'not_read_only', 'The session could not be made read only (default_transaction_read_only is off), so the analyzer will not use it.');
    }

    const [schema, queries, disabledIndexes, withoutSelect, indexHealth] = await Promise.allSettled([
      readSchema(db, {
        sampleRows: request.sampleRows,
        sampleConcurrency: settings.sampleConcurrency,
        maxSampledTables: settings.maxSampledTables,
      }),
      readQueries(db, server.databaseOid, server.database, request.queryLimit),
      listDisabledIndexes(db),
      listTablesWithoutSelect(db),
      readIndexHealth(db, new Date(started)),
    ]);

    const queriesResult = toResult<QueriesResult>(queries);
    const queriesRead = queriesResult.type === 'ok' ? queriesResult.value : undefined;
    const insufficient = queriesRead?.insufficientPrivilege ?? null;
    const tablesWithoutSelect = withoutSelect.status === 'fulfilled' ? withoutSelect.value : undefined;
    const meta: Meta = {
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
        insufficientPrivilegeStatements: insufficient,
        tablesWithoutSelect: tablesWithoutSelect ?? [],
        notes: visibilityNotes(server, queriesRead, tablesWithoutSelect),
      },
    };
    return {
      meta: { type: 'ok', value: meta },
      schema: toResult(schema),
      queries: queriesResult.type === 'ok' ? { type: 'ok', value: queriesResult.value.queries } : queriesResult,
      disabledIndexes: toResult<DisabledIndex[]>(disabledIndexes),
      indexHealth: toResult(indexHealth),
    };
  } finally {
    await db.close().catch(() => {});
  }
}
