// What the SPA's schema browser asks for instead of the whole RemoteSyncResponse:
// - a summary (POST /postgres/summary): meta, queries and disabled indexes as in a sync, and the
//   schemas with their counts, those of the same structure grouped ("t1 … t10: 10 schemas of the
//   same 893 tables"). It reads the whole catalog chunk by chunk like a sync, but keeps only counts
//   and one fingerprint per schema and kind of object: its memory does not grow with the database.
// - the objects (POST /postgres/objects): one page of a schema's objects, or of a search, read with
//   the sync's own statements scoped to the page.
import { createHash, type Hash } from 'node:crypto';
import type {
  DisabledIndex,
  ObjectCounts,
  ObjectsRequest,
  ObjectsResponse,
  SchemaCounts,
  SchemaGroup,
  SchemaObject,
  SchemaSummary,
  SchemaSummaryEntry,
  SyncRequest,
  SyncSummaryResponse,
} from '../shared/analyzer-schema';
import { messageOf, type Gateway } from '../gateway/index';
import type { SchemaFilters } from '../shared/schema-filters';
import { listDisabledIndexes } from './catalog/disabled-indexes.sql';
import { listExtensions } from './catalog/extensions.sql';
import { listObjectsPage } from './catalog/objects.sql';
import type { NamespaceRow } from './catalog/plan.sql';
import { listTablesWithoutSelect } from './catalog/visibility.sql';
import { planChunks, readChunk, readChunksInOrder, sampleBudget, samplingWarnings, sampleTables, type Chunk, type ChunkRead } from './chunks';
import { readQueries, type QueriesResult } from './queries';
import { buildMeta, connect, toResult, type SyncSettings } from './sync-common';

// ---------------------------------------------------------------- structure

const KINDS = ['tables', 'views', 'indexes', 'constraints', 'functions', 'types', 'triggers', 'sequences'] as const;
type Kind = (typeof KINDS)[number];
const emptyCounts = (): SchemaCounts => ({ tables: 0, views: 0, indexes: 0, constraints: 0, functions: 0, types: 0, triggers: 0, sequences: 0 });

// What is not structure: who owns an object, a sequence's position (statistics and sample rows are
// not read for a summary).
const NOT_STRUCTURE = ['owner', 'lastValue'];
const PLACEHOLDER = '\\u0000';

interface SchemaState {
  namespace: NamespaceRow;
  counts: SchemaCounts;
  hashes: Partial<Record<Kind, Hash>>;
  /** `"schema":"<name>"` as JSON prints it. */
  schemaField: string;
  /** The schema's own name as definitions print it, followed by a dot, where it starts a name (in JSON text). */
  qualifier: RegExp;
  needle: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Feeds each schema's objects, kind by kind and in the lists' order, into one hash per schema and
 * kind, with the schema's own name taken out: `schema` fields naming it, and the qualifier
 * (`t1.`, `"My schema".`) that PostgreSQL prints before names in definitions, defaults and types.
 * Chunks may cut a schema anywhere; per-kind hashes fed in list order do not depend on where.
 */
class StructureHasher {
  private readonly states = new Map<string, SchemaState>();

  constructor(namespaces: NamespaceRow[]) {
    for (const namespace of namespaces) {
      const needle = JSON.stringify(`${namespace.quoted}.`).slice(1, -1);
      this.states.set(namespace.name, {
        namespace,
        counts: emptyCounts(),
        hashes: {},
        schemaField: `"schema":${JSON.stringify(namespace.name)}`,
        needle,
        // not preceded by a character that would make it the end of another name
        qualifier: new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(needle)}`, 'gu'),
      });
    }
  }

  add(kind: Kind, schema: string, value: object): void {
    const state = this.states.get(schema);
    if (!state) return;
    state.counts[kind]++;
    const structure: Record<string, unknown> = { ...value };
    for (const key of NOT_STRUCTURE) delete structure[key];
    // The schema's name where a field names it (the object's own, a table's, a reference's), and
    // before the names in definitions: left out, so that the same objects elsewhere hash alike.
    let text = JSON.stringify(structure).replaceAll(state.schemaField, `"schema":"${PLACEHOLDER}"`);
    if (text.includes(state.needle)) text = text.replace(state.qualifier, `${PLACEHOLDER}.`);
    (state.hashes[kind] ??= createHash('sha256')).update(text).update('\n');
  }

  addChunk(read: ChunkRead): void {
    for (const { table } of read.tables) this.add('tables', table.schema, table);
    for (const view of read.views) this.add('views', view.schema, view);
    for (const index of read.indexes) this.add('indexes', index.schema, index);
    for (const constraint of read.constraints) this.add('constraints', constraint.schema, constraint);
    for (const fn of read.functions) this.add('functions', fn.schema, fn);
    for (const type of read.types.enums) this.add('types', type.schema, { enum: type });
    for (const type of read.types.domains) this.add('types', type.schema, { domain: type });
    for (const type of read.types.composites) this.add('types', type.schema, { composite: type });
    for (const trigger of read.triggers) this.add('triggers', trigger.schema, trigger);
    for (const sequence of read.sequences) this.add('sequences', sequence.schema, sequence);
  }

  summary(): Pick<SchemaSummary, 'schemas' | 'groups' | 'totals'> {
    const totals = emptyCounts();
    const entries: SchemaSummaryEntry[] = [];
    for (const state of this.states.values()) {
      const structure = createHash('sha256');
      for (const kind of KINDS) {
        totals[kind] += state.counts[kind];
        structure.update(`${kind}:${state.counts[kind]}:${state.hashes[kind]?.digest('hex') ?? ''}\n`);
      }
      const { name, owner, comment } = state.namespace;
      entries.push({ name, owner, comment, counts: state.counts, structure: structure.digest('hex').slice(0, 32), group: null });
    }
    const byStructure = new Map<string, SchemaSummaryEntry[]>();
    for (const entry of entries) {
      if (KINDS.every((kind) => entry.counts[kind] === 0)) continue; // empty schemas are alike, not "the same structure"
      byStructure.set(entry.structure, [...(byStructure.get(entry.structure) ?? []), entry]);
    }
    const groups: SchemaGroup[] = [];
    for (const [structure, members] of byStructure) {
      if (members.length < 2) continue;
      const id = structure.slice(0, 12);
      for (const member of members) member.group = id;
      groups.push({ id, schemas: members.map((m) => m.name), counts: members[0]!.counts });
    }
    return { schemas: entries, groups, totals };
  }
}

// ---------------------------------------------------------------- summary

async function readSummary(db: Gateway, settings: SyncSettings, filters: SchemaFilters): Promise<{ summary: SchemaSummary; disabledIndexes: DisabledIndex[] }> {
  const [plan, extensions] = await Promise.all([planChunks(db, settings.chunkWeight, filters), listExtensions(db)]);
  const hasher = new StructureHasher(plan.namespaces);
  const disabledIndexes: DisabledIndex[] = [];
  const warnings = new Set<string>();
  const options = { stats: false, health: false, sampleRows: 0, extensionRelations: plan.extensionRelations };
  for await (const read of readChunksInOrder(db, plan.chunks, options, settings.chunkConcurrency)) {
    hasher.addChunk(read);
    disabledIndexes.push(...read.disabledIndexes);
    for (const warning of read.warnings) warnings.add(warning);
  }
  return { summary: { ...hasher.summary(), extensions, warnings: [...warnings] }, disabledIndexes };
}

/**
 * The sync's parts with the schema summarized. Throws AnalyzerHttpError when it cannot connect at
 * all; once connected, every failure stays inside its part.
 */
export async function syncSummary(request: SyncRequest, settings: SyncSettings): Promise<SyncSummaryResponse> {
  const started = Date.now();
  const { db, server } = await connect(request.db, settings.limits, request);
  try {
    const [queries, withoutSelect, read] = await Promise.allSettled([
      readQueries(db, server.databaseOid, server.database, request.queryLimit, request),
      listTablesWithoutSelect(db, request),
      readSummary(db, settings, request),
    ]);
    const queriesResult = toResult<QueriesResult>(queries);
    let disabledIndexes: SyncSummaryResponse['disabledIndexes'];
    if (read.status === 'fulfilled') disabledIndexes = { type: 'ok', value: read.value.disabledIndexes };
    else disabledIndexes = toResult((await Promise.allSettled([listDisabledIndexes(db, request)]))[0]);
    return {
      meta: { type: 'ok', value: buildMeta(server, started, queriesResult, withoutSelect) },
      summary: read.status === 'fulfilled' ? { type: 'ok', value: read.value.summary } : { type: 'error', error: messageOf(read.reason) },
      queries: queriesResult.type === 'ok' ? { type: 'ok', value: queriesResult.value.queries } : queriesResult,
      disabledIndexes,
    };
  } finally {
    await db.close().catch(() => {});
  }
}

// ---------------------------------------------------------------- objects

const objectKey = (...parts: string[]) => parts.join('\u0000');

/** Takes the next item of `key` from a queue per key (overloaded functions share a schema and name). */
function queues<T>(items: T[], keyOf: (item: T) => string) {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  return (key: string) => byKey.get(key)?.shift();
}

/**
 * One page of objects. The page is chosen by one statement over the catalogs (names only), then read
 * with the sync's statements scoped to it, samples included. Throws AnalyzerHttpError when it cannot
 * connect at all.
 */
export async function listObjects(request: ObjectsRequest, settings: SyncSettings): Promise<ObjectsResponse> {
  const { db } = await connect(request.db, settings.limits, request);
  try {
    const schemas = request.schema !== undefined ? [request.schema].filter((s) => !request.schemas || request.schemas.includes(s)) : (request.schemas ?? null);
    const { counts, page } = await listObjectsPage(db, schemas, (request.q ?? '').toLowerCase(), request.offset, request.limit, request);
    const oidsOf = (...kinds: string[]) => page.filter(([kind]) => kinds.includes(kind)).map(([, oid]) => oid);
    const relations = oidsOf('table', 'view', 'sequence');
    const kinds = new Set<string>([
      ...(oidsOf('table').length ? ['r'] : []),
      ...(oidsOf('view').length ? ['v', 'm'] : []),
      ...(oidsOf('sequence').length ? ['S'] : []),
    ]);
    const chunk: Chunk = {
      index: 0,
      relations,
      kinds,
      functions: oidsOf('function'),
      types: oidsOf('enum', 'domain', 'composite'),
      domains: [],
      triggers: oidsOf('trigger'),
    };
    const read = await readChunk(db, chunk, { stats: true, health: false, sampleRows: request.sampleRows });
    const budget = sampleBudget(settings.maxSampledTables);
    const tables = await sampleTables(db, read, budget, request.sampleRows, settings.sampleConcurrency);

    const indexesOf = new Map<string, typeof read.indexes>();
    for (const index of read.indexes)
      indexesOf.set(objectKey(index.schema, index.table), [...(indexesOf.get(objectKey(index.schema, index.table)) ?? []), index]);
    const constraintsOf = new Map<string, typeof read.constraints>();
    for (const constraint of read.constraints) {
      if (!constraint.table) continue;
      const key = objectKey(constraint.table.schema, constraint.table.name);
      constraintsOf.set(key, [...(constraintsOf.get(key) ?? []), constraint]);
    }
    const triggersOf = new Map<string, typeof read.triggers>();
    for (const trigger of read.triggers)
      triggersOf.set(objectKey(trigger.schema, trigger.table), [...(triggersOf.get(objectKey(trigger.schema, trigger.table)) ?? []), trigger]);

    // Each object of the page, matched with its details by name (overloaded functions, which share
    // one, come back in the page's order).
    const next = {
      table: queues(tables, (t) => objectKey(t.schema, t.name)),
      view: queues(read.views, (v) => objectKey(v.schema, v.name)),
      sequence: queues(read.sequences, (s) => objectKey(s.schema, s.name)),
      function: queues(read.functions, (f) => objectKey(f.schema, f.name)),
      enum: queues(read.types.enums, (t) => objectKey(t.schema, t.name)),
      domain: queues(read.types.domains, (t) => objectKey(t.schema, t.name)),
      composite: queues(read.types.composites, (t) => objectKey(t.schema, t.name)),
      trigger: queues(read.triggerItems, (t) => objectKey(t.schema, t.table, t.name)),
    };
    const items: SchemaObject[] = [];
    for (const [kind, , schema, name, name2] of page) {
      // an object dropped since the page was chosen has no details: left out
      if (kind === 'table') {
        const table = next.table(objectKey(schema, name));
        const key = objectKey(schema, name);
        if (table)
          items.push({ kind, table, indexes: indexesOf.get(key) ?? [], constraints: constraintsOf.get(key) ?? [], triggers: triggersOf.get(key) ?? [] });
      } else if (kind === 'view') {
        const view = next.view(objectKey(schema, name));
        if (view) items.push({ kind, view });
      } else if (kind === 'sequence') {
        const sequence = next.sequence(objectKey(schema, name));
        if (sequence) items.push({ kind, sequence });
      } else if (kind === 'function') {
        const fn = next.function(objectKey(schema, name));
        if (fn) items.push({ kind, function: fn });
      } else if (kind === 'trigger') {
        const trigger = next.trigger(objectKey(schema, name, name2 ?? ''));
        if (trigger) items.push({ kind, trigger });
      } else if (kind === 'enum') {
        const type = next.enum(objectKey(schema, name));
        if (type) items.push({ kind, type });
      } else if (kind === 'domain') {
        const type = next.domain(objectKey(schema, name));
        if (type) items.push({ kind, type });
      } else {
        const type = next.composite(objectKey(schema, name));
        if (type) items.push({ kind, type });
      }
    }
    const full: ObjectCounts = { table: 0, view: 0, function: 0, type: 0, trigger: 0, sequence: 0, ...counts };
    return {
      total: Object.values(full).reduce((sum, n) => sum + n, 0),
      counts: full,
      offset: request.offset,
      items,
      warnings: [...new Set([...read.warnings, ...samplingWarnings(budget)])],
    };
  } finally {
    await db.close().catch(() => {});
  }
}
