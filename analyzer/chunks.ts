// The database read in chunks: consecutive runs of its relations (by schema, then name) of bounded
// weight, each read in one read-only transaction on one session with one statement per kind of
// object, scoped to the chunk by a bound array of oids. Every statement is set-based (its cost grows
// with the chunk, not with the database), the session's catalog caches warmed by one statement serve
// the next (printing an index and measuring it no longer happen in two cold sessions), a
// transaction holds at most a chunk's locks, and the analyzer holds at most a few chunks at once.
// Chunks follow the order of the sync's lists, so their rows, concatenated, are those lists.
import type { Column, Constraint, DbFunction, DisabledIndex, Index, Result, SampleRow, Sequence, Table, Trigger, Types, View } from '../shared/analyzer-schema';
import type { IndexHealthEntry } from '../shared/index-health';
import { groupBy, mapLimit } from '../shared/collections';
import type { SchemaFilters } from '../shared/schema-filters';
import { messageOf, type Gateway, type ReadOnlyTransaction } from '../gateway/index';
import { columnStatsOf, toColumnStats, type ColumnStatsRow } from './catalog/column-stats.sql';
import { columnsOf, type ColumnRow } from './catalog/columns.sql';
import { constraintsOf } from './catalog/constraints.sql';
import { functionsById } from './catalog/functions.sql';
import { indexDetailsOf, listOpclasses, type IndexDetailsRow } from './catalog/index-details.sql';
import type { IndexFactsRow } from './catalog/index-health.sql';
import { listExtensionRelations } from './catalog/extension-relations.sql';
import { listFunctionOids, listNamespaces, listRelations, listTypeOids, type NamespaceRow } from './catalog/plan.sql';
import { listSampleColumns, type SampleColumnRow } from './catalog/sample-columns.sql';
import { sampleTable } from './catalog/sample-rows.sql';
import { sequencesOf } from './catalog/sequences.sql';
import { tableStatsOf, toTableStats } from './catalog/table-stats.sql';
import { tablesOf } from './catalog/tables.sql';
import { triggersById, triggersOf } from './catalog/triggers.sql';
import { typesById } from './catalog/types.sql';
import { viewsOf } from './catalog/views.sql';
import { judgeIndexes } from './index-health';

/** A run of relations, with the functions, types and domain constraints of the schemas that go with it. */
export interface Chunk {
  index: number;
  /** Tables, views, materialized views, foreign tables and sequences (oids), in the lists' order. */
  relations: number[];
  /** Relation kinds present (relkind letters), so that statements with nothing to read are skipped. */
  kinds: Set<string>;
  /** Functions, and enums, domains and composite types (oids) to list. */
  functions: number[];
  types: number[];
  /** Domains (oids, those of extensions too) whose constraints to list. */
  domains: number[];
  /** Triggers (oids) to list on their own besides the relations' (a page of objects). */
  triggers?: number[];
}

export interface ChunkPlan {
  namespaces: NamespaceRow[];
  chunks: Chunk[];
  /** Relations an extension owns: their views are not listed, their indexes not judged. */
  extensionRelations: Set<number>;
}

/**
 * Cuts the database into chunks of about `weightLimit` (a relation weighs one plus its indexes). A
 * schema's functions, types and domain constraints go with the first chunk holding a relation of it
 * or of a schema after it (the last chunk when none does): every list stays in schema order.
 */
export async function planChunks(db: Gateway, weightLimit: number, filters?: SchemaFilters): Promise<ChunkPlan> {
  // The schema filters apply here, once: every later read is scoped to the oids planned.
  const [namespaces, relations, types, functions, extensionRelations] = await Promise.all([
    listNamespaces(db, filters),
    listRelations(db, filters),
    listTypeOids(db, filters),
    listFunctionOids(db, filters),
    listExtensionRelations(db, filters),
  ]);
  const rank = new Map(namespaces.map((n, i) => [n.oid, i]));
  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  let weight = 0;
  const lastRank: number[] = [];
  for (const [oid, namespace, kind, relationWeight] of relations) {
    if (!current || weight >= weightLimit) {
      current = { index: chunks.length, relations: [], kinds: new Set(), functions: [], types: [], domains: [] };
      chunks.push(current);
      weight = 0;
    }
    current.relations.push(oid);
    current.kinds.add(kind);
    weight += relationWeight;
    lastRank[current.index] = rank.get(namespace) ?? -1;
  }
  if (chunks.length === 0) chunks.push({ index: 0, relations: [], kinds: new Set(), functions: [], types: [], domains: [] });
  // Each schema's rank to the chunk that owns it.
  const owner: number[] = [];
  let chunkIndex = 0;
  namespaces.forEach((_, r) => {
    while (chunkIndex < chunks.length - 1 && (lastRank[chunkIndex] ?? -1) < r) chunkIndex++;
    owner[r] = chunkIndex;
  });
  const chunkOf = (namespace: number) => chunks[owner[rank.get(namespace) ?? -1] ?? chunks.length - 1]!;
  for (const [oid, namespace, kind, fromExtension] of types) {
    const chunk = chunkOf(namespace);
    if (!fromExtension) chunk.types.push(oid);
    if (kind === 'd') chunk.domains.push(oid);
  }
  for (const [oid, namespace] of functions) chunkOf(namespace).functions.push(oid);
  return { namespaces, chunks, extensionRelations: new Set(extensionRelations.map((row) => row.oid)) };
}

export interface ChunkOptions {
  /** Table statistics, sizes and pg_stats (optional: a failure is a warning). */
  stats: boolean;
  /** Index health facts (sizes and scans of every index). */
  health: boolean;
  /** Rows to sample per table; 0 reads no sample columns. */
  sampleRows: number;
  /** The indexes foreign keys reference (listReferencedIndexes), when `health`. */
  referencedIndexes?: Set<number>;
  /** Relations an extension owns (ChunkPlan.extensionRelations). */
  extensionRelations?: Set<number>;
}

/** A table before its sample rows, and how they are to be read. */
export interface TableRead {
  oid: number;
  table: Omit<Table, 'sampleRows'>;
  /** 'sample' when it holds rows and may be read; otherwise its sampleRows as they are. */
  sample: 'sample' | Result<SampleRow[]>;
}

export interface ChunkRead {
  chunk: Chunk;
  tables: TableRead[];
  indexes: Index[];
  disabledIndexes: DisabledIndex[];
  indexHealth: IndexHealthEntry[];
  constraints: Constraint[];
  functions: DbFunction[];
  views: View[];
  types: Types;
  /** The triggers of the chunk's relations. */
  triggers: Trigger[];
  /** The triggers of `chunk.triggers`. */
  triggerItems: Trigger[];
  sequences: Sequence[];
  /** How each column of the tables to sample may be read; an error when that could not be read. */
  sampleColumns: Map<number, SampleColumnRow[]> | { error: string };
  warnings: string[];
}

const EMPTY_TYPES: Types = { enums: [], domains: [], composites: [] };

/** The Index fields of a row, in the order indexes.sql.ts returns them, its key columns named. */
function toIndex(
  row: IndexDetailsRow,
  nameOf: (relation: number, attnum: number) => string | null,
  opclasses: Map<number, { name: string; isDefault: boolean }>,
): Index {
  const keyColumns = row.keys.slice(0, row.keyCount).map((attnum, k) => {
    const opclass = opclasses.get(row.opclasses[k] ?? 0);
    const option = row.options[k] ?? 0;
    return {
      column: attnum === 0 ? null : nameOf(row.relationOid, attnum),
      expression: attnum === 0 ? (row.expressions?.[k] ?? null) : null,
      descending: (option & 1) !== 0,
      nullsFirst: (option & 2) !== 0,
      opclass: opclass?.name ?? null,
      opclassIsDefault: opclass?.isDefault ?? null,
    };
  });
  return {
    schema: row.schema,
    table: row.table,
    name: row.name,
    method: row.method,
    unique: row.unique,
    primary: row.primary,
    exclusion: row.exclusion,
    partitioned: row.partitioned,
    valid: row.valid,
    ready: row.ready,
    keyColumns,
    includeColumns: row.keys.slice(row.keyCount).map((attnum) => nameOf(row.relationOid, attnum)) as string[],
    predicate: row.predicate,
    constraint: row.constraint,
    definition: row.definition,
  };
}

/** What the planner skips, and why (the words of disabled-indexes.sql.ts). */
function toDisabledIndex(row: IndexDetailsRow): DisabledIndex {
  const message = !row.ready
    ? 'Not ready: its build (CREATE INDEX CONCURRENTLY) did not finish, so it is neither maintained nor used. Drop it and create it again.'
    : row.partitioned
      ? 'Invalid: an index on a partitioned table that is missing on some partition; the planner will not use it until ALTER INDEX ... ATTACH PARTITION covers every partition.'
      : 'Invalid: its build failed or is still running (CREATE INDEX CONCURRENTLY); it is maintained on writes but the planner will not use it. Drop it or REINDEX it.';
  return { schema: row.schema, table: row.table, name: row.name, reason: row.ready ? 'invalid' : 'notReady', message, definition: row.definition };
}

/** The facts index health judges, as index-health.sql.ts reads them. */
function toFacts(row: IndexDetailsRow, referenced: Set<number>, foreignKeys: { name: string; columns: number[] }[]): IndexFactsRow {
  const prefix = row.unique ? 'CREATE UNIQUE INDEX ' : 'CREATE INDEX ';
  return {
    oid: row.oid,
    schema: row.schema,
    table: row.table,
    name: row.name,
    method: row.method,
    partitioned: row.partitioned,
    unique: row.unique,
    valid: row.valid && row.ready,
    ready: row.ready,
    backsConstraint: row.constraint !== null || referenced.has(row.oid),
    replicaIdentity: row.replicaIdentity,
    keys: row.keys.slice(0, row.keyCount).map((attnum, k) => ({
      attnum,
      opclass: row.opclasses[k] ?? 0,
      option: row.options[k] ?? 0,
      collation: row.collations[k] ?? 0,
    })),
    include: row.keys.slice(row.keyCount),
    predicate: row.predicate,
    body: row.definition.slice(prefix.length + (row.quotedName ?? row.name).length),
    foreignKeys,
    scans: row.scans,
    bytes: row.bytes ?? 0,
    definition: row.definition,
    dropStatement: row.dropStatement ?? '',
  };
}

/** Statistics and samples are extras: when one cannot be read, the rest still comes back, with a warning. */
async function optional<T>(tx: ReadOnlyTransaction, work: () => Promise<T>, what: string, warnings: string[]): Promise<T | undefined> {
  const attempt = await tx.attempt(work);
  if (attempt.ok) return attempt.value;
  warnings.push(`${what} could not be read: ${messageOf(attempt.error)}`);
  return undefined;
}

/**
 * Reads one chunk in one read-only transaction. A catalog statement that fails fails the chunk;
 * statistics and sample columns are read under a savepoint, so their failure is a warning.
 */
export function readChunk(db: Gateway, chunk: Chunk, options: ChunkOptions): Promise<ChunkRead> {
  return db.transaction(read(chunk, options), { settings: CHUNK_SETTINGS });
}

/**
 * The chunks' reads in order, each started while at most `ahead` are in flight, so the catalog
 * reads of several sessions overlap while the caller handles one chunk at a time (and holds only
 * those in flight). `beforeEach` runs before waiting on each, e.g. to stop a cancelled sync.
 */
export async function* readChunksInOrder(
  db: Gateway,
  chunks: readonly Chunk[],
  options: ChunkOptions,
  ahead: number,
  beforeEach?: () => void,
): AsyncGenerator<ChunkRead> {
  const reads: (Promise<ChunkRead> | undefined)[] = [];
  for (let i = 0; i < chunks.length; i++) {
    for (let j = i; j < Math.min(chunks.length, i + ahead); j++) {
      if (!reads[j]) {
        const reading = readChunk(db, chunks[j]!, options);
        reading.catch(() => undefined); // awaited in its turn; a failure before then is not unhandled
        reads[j] = reading;
      }
    }
    beforeEach?.();
    const read = await reads[i]!;
    reads[i] = undefined;
    yield read;
  }
}

/**
 * How a chunk's statements are planned. Each is scoped by an array of oids that every catalog it
 * reads has an index on; a sequential scan (or a hash built from one) reads the whole catalog, once
 * per chunk: quadratic in the database. Parallel workers and JIT cost more than they save on
 * statements this size, and the sessions already run side by side.
 */
const CHUNK_SETTINGS = { enable_seqscan: 'off', enable_hashjoin: 'off', enable_mergejoin: 'off', max_parallel_workers_per_gather: '0', jit: 'off' };

function read(chunk: Chunk, options: ChunkOptions) {
  return async (tx: ReadOnlyTransaction): Promise<ChunkRead> => {
    const warnings: string[] = [];
    const { relations, kinds } = chunk;
    const has = (...wanted: string[]) => wanted.some((kind) => kinds.has(kind));
    const hasTables = has('r', 'p', 'f');

    // Sizes and definitions first: they open each relation and index, and warm the session's caches
    // for the statements after them.
    const tableStats = hasTables && options.stats ? await optional(tx, () => tableStatsOf(tx, relations), 'Table statistics', warnings) : undefined;
    const indexRows = has('r', 'p', 'm') ? await indexDetailsOf(tx, relations, options.health) : [];
    const opclasses = indexRows.length ? await listOpclasses(tx) : new Map<number, { name: string; isDefault: boolean }>();
    const tableRows = hasTables ? await tablesOf(tx, relations) : [];
    const columnRows = has('r', 'p', 'f', 'v', 'm') ? await columnsOf(tx, relations) : [];
    const columnStats =
      has('r', 'p', 'f', 'v', 'm') && options.stats
        ? await optional(tx, () => columnStatsOf(tx, relations), 'Column statistics (pg_stats)', warnings)
        : undefined;
    const constraintRows = hasTables || chunk.domains.length ? await constraintsOf(tx, hasTables ? relations : [], chunk.domains) : [];
    const triggers = has('r', 'p', 'f', 'v') ? await triggersOf(tx, relations) : [];
    const triggerItems = chunk.triggers?.length ? await triggersById(tx, chunk.triggers) : [];
    const extensionRelations = options.extensionRelations ?? new Set<number>();
    const viewRows = has('v', 'm') ? (await viewsOf(tx, relations)).filter((view) => !extensionRelations.has(view.oid)) : [];
    const sequences = has('S') ? await sequencesOf(tx, relations) : [];
    const functions = chunk.functions.length ? await functionsById(tx, chunk.functions) : [];
    const types = chunk.types.length ? await typesById(tx, chunk.types) : EMPTY_TYPES;

    // Names of the columns by relation and attnum, for index and constraint keys.
    const attributeNames = new Map<number, Map<number, string>>();
    for (const column of columnRows) {
      let names = attributeNames.get(column.relationOid);
      if (!names) attributeNames.set(column.relationOid, (names = new Map()));
      names.set(column.position, column.name);
    }
    const nameOf = (relation: number, attnum: number) => attributeNames.get(relation)?.get(attnum) ?? null;
    const constraints: Constraint[] = constraintRows.map(({ relationOid, keys, ...row }) => ({
      schema: row.schema,
      name: row.name,
      type: row.type,
      table: row.table,
      domain: row.domain,
      columns: (keys ?? []).map((attnum) => nameOf(relationOid, attnum)).filter((name): name is string => name !== null),
      definition: row.definition,
      validated: row.validated,
      deferrable: row.deferrable,
      deferred: row.deferred,
      inherited: row.inherited,
      references: row.references,
    }));
    const foreignKeys = new Map<number, { name: string; columns: number[] }[]>();
    for (const row of constraintRows) {
      if (row.type !== 'foreignKey') continue;
      foreignKeys.set(row.relationOid, [...(foreignKeys.get(row.relationOid) ?? []), { name: row.name, columns: row.keys ?? [] }]);
    }

    // Columns and their pg_stats rows, joined as database-schema.ts joins them.
    const statsKey = (schema: string, table: string, column: string, inherited: boolean) => `${schema}\u0000${table}\u0000${column}\u0000${inherited}`;
    const columnStatsByKey = new Map<string, ColumnStatsRow>();
    for (const row of columnStats ?? []) columnStatsByKey.set(statsKey(row.schema, row.table, row.column, row.inherited), row);
    const columnsByRelation = groupBy(columnRows, (c) => c.relationOid);
    const columnsFor = (oid: number, schema: string, table: string, inherited: boolean): Column[] =>
      (columnsByRelation.get(oid) ?? []).map((row: ColumnRow): Column => {
        const stats = columnStatsByKey.size ? columnStatsByKey.get(statsKey(schema, table, row.name, inherited)) : undefined;
        return {
          name: row.name,
          position: row.position,
          type: row.type,
          nullable: row.nullable,
          default: row.default,
          identity: row.identity,
          generated: row.generated,
          generationExpression: row.generationExpression,
          collation: row.collation,
          comment: row.comment,
          stats: stats ? toColumnStats(stats) : null,
        };
      });

    // Which tables are sampled, as database-schema.ts decides it (the budget is the caller's).
    const haveStats = tableStats !== undefined;
    const statsByOid = new Map((tableStats ?? []).map((row) => [row.oid, row]));
    const empty: Result<SampleRow[]> = { type: 'ok', value: [] };
    const tables: TableRead[] = tableRows.map((row) => {
      const { oid, ...table } = row;
      const stats = statsByOid.get(oid);
      let sample: TableRead['sample'] = 'sample';
      if (options.sampleRows === 0) sample = empty;
      else if (table.kind === 'foreign') sample = { type: 'error', error: 'Foreign tables are not sampled: reading one would query the remote server.' };
      // Without the sizes we cannot tell empty tables apart, so every table is tried.
      else if (haveStats && stats && !stats.hasStorage) sample = empty;
      else if (haveStats && stats && !stats.canSelect)
        sample = { type: 'error', error: 'Not sampled: the role lacks SELECT on this table (or USAGE on its schema).' };
      return {
        oid,
        table: { ...table, columns: columnsFor(oid, row.schema, row.name, row.kind === 'partitioned'), stats: stats ? toTableStats(stats) : null },
        sample,
      };
    });
    const toSample = tables.filter((t) => t.sample === 'sample').map((t) => t.oid);
    let sampleColumns: ChunkRead['sampleColumns'] = new Map();
    if (toSample.length) {
      const attempt = await tx.attempt(() => listSampleColumns(tx, toSample));
      sampleColumns = attempt.ok ? groupBy(attempt.value, (c) => c.relationOid) : { error: messageOf(attempt.error) };
    }

    const referenced = options.referencedIndexes ?? new Set<number>();
    return {
      chunk,
      tables,
      indexes: indexRows.map((row) => toIndex(row, nameOf, opclasses)),
      disabledIndexes: indexRows.filter((row) => !row.valid || !row.ready).map(toDisabledIndex),
      indexHealth: options.health
        ? judgeIndexes(
            indexRows
              .filter((row) => row.checked && !extensionRelations.has(row.relationOid))
              .map((row) => toFacts(row, referenced, foreignKeys.get(row.relationOid) ?? [])),
          )
        : [],
      constraints,
      functions,
      views: viewRows.map(({ oid, ...view }) => ({ ...view, columns: columnsFor(oid, view.schema, view.name, false) })),
      types,
      triggers,
      triggerItems,
      sequences,
      sampleColumns,
      warnings,
    };
  };
}

/** How many more tables may be sampled, and what was left out; shared by the chunks of one sync, in order. */
export interface SampleBudget {
  limit: number;
  left: number;
  overBudget: number;
  unreadableColumns: number;
}

export function sampleBudget(limit: number): SampleBudget {
  return { limit, left: limit, overBudget: 0, unreadableColumns: 0 };
}

/** The warnings a sync's sampling leaves, as database-schema.ts words them. */
export function samplingWarnings(budget: SampleBudget): string[] {
  const warnings: string[] = [];
  if (budget.overBudget > 0) warnings.push(`${budget.overBudget} tables holding rows were not sampled (limit ${budget.limit}).`);
  if (budget.unreadableColumns > 0) {
    warnings.push(`${budget.unreadableColumns} columns are left out of sample rows: their type prints through a function that is not C or internal code.`);
  }
  return warnings;
}

/**
 * The chunk's tables with their sample rows: one statement per table that holds rows (`concurrency`
 * at a time, each in its own read-only transaction), as long as `budget` lasts. Chunks must be
 * sampled in their order for the budget to go to the database's first tables, as before.
 */
export async function sampleTables(db: Gateway, read: ChunkRead, budget: SampleBudget, sampleRowCount: number, concurrency: number): Promise<Table[]> {
  const plans = read.tables.map(({ sample }): TableRead['sample'] => {
    if (sample !== 'sample') return sample;
    if (budget.left <= 0) {
      budget.overBudget++;
      return { type: 'error', error: `Not sampled: only the first ${budget.limit} tables holding rows are sampled.` };
    }
    budget.left--;
    return 'sample';
  });
  const columnsByTable = read.sampleColumns;
  const failed: Result<SampleRow[]> | undefined =
    columnsByTable instanceof Map ? undefined : { type: 'error', error: `Not sampled: the column types could not be read (${columnsByTable.error})` };
  if (columnsByTable instanceof Map) {
    read.tables.forEach((t, i) => {
      if (plans[i] === 'sample') budget.unreadableColumns += (columnsByTable.get(t.oid) ?? []).filter((c) => c.read === null).length;
    });
  }
  const samples = await mapLimit(
    read.tables.map((t, i) => ({ t, plan: plans[i]! })),
    concurrency,
    async ({ t, plan }): Promise<Result<SampleRow[]>> => {
      if (plan !== 'sample') return plan;
      if (failed || !(columnsByTable instanceof Map)) return failed!;
      return sampleTable(db, t.table, columnsByTable.get(t.oid) ?? [], sampleRowCount);
    },
  );
  return read.tables.map((t, i) => ({ ...t.table, sampleRows: samples[i]! }));
}
