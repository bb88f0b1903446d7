// The sync as it was before it streamed: one catalog statement per kind of object over the whole
// database, each in a session of its own, the answer built in memory. Not served: it is the
// reference the streamed sync must equal (analyzer/stream-sync.test.ts) and the baseline
// `npm run bench:analyzer` measures beside it in the same run.
import type { DisabledIndex, RemoteSyncResponse, SyncRequest } from '../shared/analyzer-schema';
import { listDisabledIndexes } from './catalog/disabled-indexes.sql';
import { listTablesWithoutSelect } from './catalog/visibility.sql';
import { readSchema } from './database-schema';
import { readIndexHealth } from './index-health';
import { readQueries, type QueriesResult } from './queries';
import { buildMeta, connect, DEFAULT_SYNC_SETTINGS, toResult, type SyncSettings } from './sync-common';

export async function referenceSync(request: SyncRequest, settings: SyncSettings = DEFAULT_SYNC_SETTINGS): Promise<RemoteSyncResponse> {
  const started = Date.now();
  const { db, server } = await connect(request.db, settings.limits);
  try {
    const [schema, queries, disabledIndexes, withoutSelect, indexHealth] = await Promise.allSettled([
      readSchema(db, { sampleRows: request.sampleRows, sampleConcurrency: settings.sampleConcurrency, maxSampledTables: settings.maxSampledTables }),
      readQueries(db, server.databaseOid, server.database, request.queryLimit),
      listDisabledIndexes(db),
      listTablesWithoutSelect(db),
      readIndexHealth(db, new Date(started)),
    ]);
    const queriesResult = toResult<QueriesResult>(queries);
    return {
      meta: { type: 'ok', value: buildMeta(server, started, queriesResult, withoutSelect) },
      schema: toResult(schema),
      queries: queriesResult.type === 'ok' ? { type: 'ok', value: queriesResult.value.queries } : queriesResult,
      disabledIndexes: toResult<DisabledIndex[]>(disabledIndexes),
      indexHealth: toResult(indexHealth),
    };
  } finally {
    await db.close().catch(() => {});
  }
}
