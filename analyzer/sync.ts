// One sync, streamed: connect read only, read the database chunk by chunk (analyzer/chunks.ts), and
// write RemoteSyncResponse as JSON text without ever holding it whole. Each list of the schema
// (tables, indexes, constraints...) collects its chunks' items, in order, in a spool (memory up to a
// budget, then a temp file), and the answer is written from the spools once every part is read: a
// part that fails is still reported inside its own field, never half-written. The parts are those
// of RemoteSyncResponse: meta, schema, queries, disabledIndexes, and indexHealth.
import type { DisabledIndex, Extension, RemoteSyncResponse, Result, SyncRequest } from '../shared/analyzer-schema';
import type { IndexHealth } from '../shared/index-health';
import { messageOf, type Gateway } from '../gateway/index';
import { listDisabledIndexes } from './catalog/disabled-indexes.sql';
import { listExtensions } from './catalog/extensions.sql';
import { listReferencedIndexes } from './catalog/index-details.sql';
import { readStatsReset } from './catalog/index-health.sql';
import { listTablesWithoutSelect } from './catalog/visibility.sql';
import { planChunks, readChunksInOrder, sampleBudget, samplingWarnings, sampleTables } from './chunks';
import { readIndexHealth } from './index-health';
import { memorySink, SpoolSet, type JsonSink, type Spool } from './json-stream';
import { readQueries, type QueriesResult } from './queries';
import { buildMeta, connect, DEFAULT_SYNC_SETTINGS, toResult, type SyncSettings } from './sync-common';

export { DEFAULT_SYNC_SETTINGS, type SyncSettings } from './sync-common';

const LISTS = [
  'tables',
  'indexes',
  'constraints',
  'functions',
  'views',
  'enums',
  'domains',
  'composites',
  'triggers',
  'sequences',
  'disabledIndexes',
  'indexHealth',
] as const;
type ListName = (typeof LISTS)[number];

interface SchemaRead {
  schemas: { name: string; owner: string; comment: string | null }[];
  extensions: Extension[];
  warnings: string[];
  lists: Record<ListName, Spool>;
}

/** Reads every chunk, `settings.chunkConcurrency` at a time, and adds their items to the lists in order. */
async function readSchemaInChunks(db: Gateway, request: SyncRequest, settings: SyncSettings, spools: SpoolSet, cancelled: () => boolean): Promise<SchemaRead> {
  const [plan, extensions, referencedIndexes] = await Promise.all([
    planChunks(db, settings.chunkWeight, request),
    listExtensions(db),
    listReferencedIndexes(db),
  ]);
  const lists = Object.fromEntries(LISTS.map((name) => [name, spools.spool()])) as Record<ListName, Spool>;
  const options = { stats: true, health: true, sampleRows: request.sampleRows, referencedIndexes, extensionRelations: plan.extensionRelations };
  const budget = sampleBudget(settings.maxSampledTables);
  const warnings = new Set<string>();
  const stopIfCancelled = () => {
    if (cancelled()) throw new Error('The sync was cancelled');
  };
  for await (const read of readChunksInOrder(db, plan.chunks, options, settings.chunkConcurrency, stopIfCancelled)) {
    const tables = await sampleTables(db, read, budget, request.sampleRows, settings.sampleConcurrency);
    lists.tables.addAll(tables);
    lists.indexes.addAll(read.indexes);
    lists.constraints.addAll(read.constraints);
    lists.functions.addAll(read.functions);
    lists.views.addAll(read.views);
    lists.enums.addAll(read.types.enums);
    lists.domains.addAll(read.types.domains);
    lists.composites.addAll(read.types.composites);
    lists.triggers.addAll(read.triggers);
    lists.sequences.addAll(read.sequences);
    lists.disabledIndexes.addAll(read.disabledIndexes);
    lists.indexHealth.addAll(read.indexHealth);
    for (const warning of read.warnings) warnings.add(warning);
  }
  return {
    schemas: plan.namespaces.map(({ name, owner, comment }) => ({ name, owner, comment })),
    extensions,
    warnings: [...warnings, ...samplingWarnings(budget)],
    lists,
  };
}

export interface SyncOutcome {
  database: string;
  /** Parts that are errors in the answer. */
  failed: string[];
  /** Characters of the answer that waited in temp files. */
  spilledChars: number;
}

export interface StreamOptions {
  /** True once nobody waits for the answer (the client went away): the read stops early. */
  cancelled?: () => boolean;
}

/**
 * Syncs one database into `sink`. Throws AnalyzerHttpError when it cannot connect at all, before
 * anything is written (the caller answers with that status); once connected, every failure stays
 * inside its part and the whole answer is written.
 */
export async function streamSync(request: SyncRequest, settings: SyncSettings, sink: JsonSink, options: StreamOptions = {}): Promise<SyncOutcome> {
  const started = Date.now();
  const { db, server } = await connect(request.db, settings.limits, request);
  const spools = new SpoolSet(settings.spoolMemoryChars);
  const cancelled = options.cancelled ?? (() => false);
  try {
    // The small parts start first, on sessions of their own; the chunks take the sessions left.
    const queriesRead = Promise.allSettled([readQueries(db, server.databaseOid, server.database, request.queryLimit, request)]).then(([r]) => r);
    const withoutSelectRead = Promise.allSettled([listTablesWithoutSelect(db, request)]).then(([r]) => r);
    const statsResetRead = Promise.allSettled([readStatsReset(db)]).then(([r]) => r);
    const [schemaSettled] = await Promise.allSettled([readSchemaInChunks(db, request, settings, spools, cancelled)]);
    if (cancelled()) throw new Error('The sync was cancelled');

    let schema: SchemaRead | undefined;
    let schemaError: string | undefined;
    let disabledIndexes: Result<DisabledIndex[]> | undefined;
    let indexHealth: Result<IndexHealth> | undefined;
    const readAt = new Date(started).toISOString();
    if (schemaSettled.status === 'fulfilled') {
      schema = schemaSettled.value;
      const statsReset = await statsResetRead;
      if (statsReset.status === 'rejected') indexHealth = { type: 'error', error: messageOf(statsReset.reason) };
    } else {
      // The schema failed: the indexes' parts were read with it, so they are read again on their own.
      schemaError = messageOf(schemaSettled.reason);
      spools.dispose();
      const [disabled, health] = await Promise.allSettled([listDisabledIndexes(db, request), readIndexHealth(db, new Date(started), request)]);
      disabledIndexes = toResult(disabled);
      indexHealth = toResult(health);
    }
    const queriesSettled = await queriesRead;
    const queries = toResult<QueriesResult>(queriesSettled);
    const meta = buildMeta(server, started, queries, await withoutSelectRead);
    const statsReset = await statsResetRead;

    const write = (text: string) => sink.write(text);
    const list = async (name: ListName) => {
      await write('[');
      await schema!.lists[name].copyTo(sink);
      await write(']');
    };
    await write(`{"meta":${JSON.stringify({ type: 'ok', value: meta })},"schema":`);
    if (schema) {
      await write(`{"type":"ok","value":{"schemas":${JSON.stringify(schema.schemas)},"tables":`);
      await list('tables');
      await write(',"indexes":');
      await list('indexes');
      await write(',"constraints":');
      await list('constraints');
      await write(',"functions":');
      await list('functions');
      await write(',"views":');
      await list('views');
      await write(',"types":{"enums":');
      await list('enums');
      await write(',"domains":');
      await list('domains');
      await write(',"composites":');
      await list('composites');
      await write('},"triggers":');
      await list('triggers');
      await write(`,"extensions":${JSON.stringify(schema.extensions)},"sequences":`);
      await list('sequences');
      await write(`,"warnings":${JSON.stringify(schema.warnings)}}}`);
    } else {
      await write(JSON.stringify({ type: 'error', error: schemaError }));
    }
    await write(`,"queries":${JSON.stringify(queries.type === 'ok' ? { type: 'ok', value: queries.value.queries } : queries)},"disabledIndexes":`);
    if (disabledIndexes) await write(JSON.stringify(disabledIndexes));
    else {
      await write('{"type":"ok","value":');
      await list('disabledIndexes');
      await write('}');
    }
    await write(',"indexHealth":');
    if (indexHealth) await write(JSON.stringify(indexHealth));
    else {
      const reset = statsReset.status === 'fulfilled' ? statsReset.value : null;
      await write(`{"type":"ok","value":{"statsReset":${JSON.stringify(reset)},"readAt":${JSON.stringify(readAt)},"indexes":`);
      await list('indexHealth');
      await write('}}');
    }
    await write('}');
    const failed = [
      ...(schema ? [] : ['schema']),
      ...(queries.type === 'error' ? ['queries'] : []),
      ...(disabledIndexes?.type === 'error' ? ['disabledIndexes'] : []),
      ...(indexHealth?.type === 'error' ? ['indexHealth'] : []),
    ];
    return { database: server.database, failed, spilledChars: spools.spilled };
  } finally {
    spools.dispose();
    await db.close().catch(() => {});
  }
}

/**
 * Syncs one database into one value (the demo, the attack suite: small databases). Throws
 * AnalyzerHttpError when it cannot connect at all; once connected, every failure stays in its part.
 */
export async function syncDatabase(request: SyncRequest, settings: SyncSettings = DEFAULT_SYNC_SETTINGS): Promise<RemoteSyncResponse> {
  const sink = memorySink();
  await streamSync(request, settings, sink);
  return JSON.parse(sink.text()) as RemoteSyncResponse;
}
