// Everything the shadow planner needs from the production database, read-only: the schema as DDL
// (source-schema.ts), sizes, column statistics, planner settings and the actual extremes of indexed
// columns (source-stats.ts). Every statement runs through the gateway, in one REPEATABLE READ, READ
// ONLY transaction with a timeout, and only PostgreSQL's own objects are named unqualified.
import { openGateway, type ReadOnlyTransaction } from '../gateway/index.js';
import { readSchemaDdl, type CatalogQuery, type Row } from './schema.js';
import { scopedObjects, wholeGraph, type ScopeRequest } from './scope.js';
import { readColumns, readEndpoints, readHiddenStatistics, readRelations, readServerFacts, readSettings, readStats } from './stats.js';
import { readTableWrites, type SourceTableWrites } from './writes.js';
import { allowedObjects, intersect, withoutExcluded } from './filters.js';
import { hasSchemaFilters, type SchemaFilters } from '../shared/schema-filters.js';

export interface SourceRelation {
  schema: string;
  name: string;
  /** r table, p partitioned table, m materialized view, f foreign table, i index, I partitioned index */
  kind: string;
  relpages: number;
  reltuples: number;
  relallvisible: number;
  /** Physical size in blocks now: the planner scales pg_class's density by this, not by relpages. */
  blocks: number;
}

export interface SourceIndex {
  schema: string;
  table: string;
  name: string;
  am: string;
  /** Key columns by name; null for an expression. */
  keys: (string | null)[];
  include: string[];
  predicate: string | null;
  unique: boolean;
  /** The index's parent when it is a partition's part of a partitioned index. */
  parent: string | null;
  definition: string;
}

export interface SourceColumn {
  schema: string;
  table: string;
  name: string;
  type: string;
  /** pg_type.typcategory of the column's type ('A' array, 'U' user-defined such as jsonb, ...): GIN candidates need it. */
  category: string;
  notNull: boolean;
}

export interface SourceColumnStats {
  schema: string;
  table: string;
  column: string;
  inherited: boolean;
  /** pg_stats fields by name, arrays already in their text form. */
  values: Record<string, string | number | null>;
}

/** A table whose column statistics pg_stats hides from the source's role (source-stats.ts readHiddenStatistics). */
export interface SourceHiddenStatistics {
  schema: string;
  table: string;
  /** The columns without statistics in the snapshot. */
  columns: string[];
  /** hidden: production plans with statistics the snapshot lacks; never_analyzed: production has none either. */
  statistics: 'hidden' | 'never_analyzed';
}

export interface SourceSnapshot {
  serverVersionNum: number;
  searchPath: string;
  blockSize: number;
  /** The database's collation, so the shadow can sort and compare text alike where the OS has it. */
  locale: { collate: string; ctype: string };
  /** Planner settings to replay in the shadow session. */
  settings: Record<string, string>;
  /**
   * DDL in a workable order; shadow.ts still retries failures until no progress is made. `of` is
   * the relation (its DDL name) a constraint, foreign key, index or attachment belongs to;
   * `references` the table a foreign key references: what a shadow of part of the schema
   * (scope.ts) keeps of them.
   */
  ddl: SourceDdl[];
  /** Tables, partitioned tables, materialized views, foreign tables and indexes, with their sizes. */
  relations: SourceRelation[];
  /** Valid indexes; the shadow gives the parts of its partitioned indexes these parts' names. */
  indexes: SourceIndex[];
  columns: SourceColumn[];
  stats: SourceColumnStats[];
  /**
   * Actual smallest and largest values of columns that lead a plain B-tree index, read through
   * that index. The planner reads them itself (get_actual_variable_range) when a constant falls
   * beyond the histogram; the shadow stores them as two rows so its planner finds them too.
   */
  endpoints?: SourceEndpoint[];
  /**
   * Indexes only a CI run's schema has (run-schema.ts), on production's tables. Built with the rest
   * of the schema on the empty tables, then sized as candidates are (live-candidates.ts): an index
   * left at the one page its build wrote would look free to the planner.
   */
  runIndexes?: { schema: string; name: string }[];
  /** Insert, update and delete counts per table (source-writes.ts): what a new index would cost; absent in older snapshots. */
  writes?: SourceTableWrites[];
  /**
   * What each relation, type and function needs (source-scope.ts): what lets a shadow carry only
   * the relations its queries touch (scope.ts). Absent in snapshots read before it existed, which
   * are always rebuilt whole.
   */
  graph?: SnapshotGraph;
  /**
   * Absent: the snapshot holds every relation production has. Present: it holds only what some
   * queries need, and says how their names resolved in production (a read scoped to queries, or
   * a part of a snapshot, scope.ts).
   */
  scope?: SnapshotScope;
  /**
   * Tables whose column statistics the role could not read, neither in pg_stats nor through the
   * administrator's helper: the shadow plans them with the planner's defaults. Absent in snapshots
   * read before it existed.
   */
  hiddenStatistics?: SourceHiddenStatistics[];
  /** The connection's schema filters it was read with; absent: every schema. */
  schemaFilters?: SchemaFilters;
}

export interface SourceDdl {
  kind: string;
  name: string;
  sql: string;
  of?: string;
  references?: string;
}

/** Keys are the DDL's names: `schema.name` as quote_ident prints both parts; functions as regprocedure prints them. */
export interface SnapshotGraph {
  relations: Record<string, GraphRelation>;
  types: Record<string, GraphObject>;
  functions: Record<string, GraphObject>;
}

export interface GraphObject {
  schema: string;
  name: string;
  /** Types (enums, domains, composites) it is declared with. */
  types?: string[];
  /** Functions it calls (index expressions, generated columns, a view's query, an aggregate's parts). */
  functions?: string[];
  /** Relations it needs to exist: a partition's parent, a view's tables when the view is only needed, a row type's table. */
  needs?: string[];
}

export interface GraphRelation extends GraphObject {
  /** pg_class.relkind: r, p, m, f or v. */
  kind: string;
  /** Partitions and inheritance children: planned with it whenever a query reads it. */
  children?: string[];
  /** A view's relations: read by every query that reads the view. */
  reads?: string[];
}

export interface SnapshotScope {
  /** Relation names the queries use (scope.ts nameKey): the relation production resolved each to, or null when it has none. */
  relations: Record<string, string | null>;
  /** Function and type names the queries use: every object of that name their resolution may pick. */
  functions: Record<string, string[]>;
  types: Record<string, string[]>;
}

export interface SourceEndpoint {
  schema: string;
  table: string;
  column: string;
  /** Text forms (DateStyle ISO), null when the column holds no value. */
  min: string | null;
  max: string | null;
}

export interface ReadSourceOptions {
  /** Cap on each statement of the snapshot. Default 60 s. */
  statementTimeoutMs?: number;
  /**
   * Read only what these names and objects need (source-scope.ts): the snapshot then says so
   * (`scope`). Default: everything.
   */
  scope?: ScopeRequest;
  /** Only the schemas these allow are read (source-filters.ts); the snapshot records them. */
  schemaFilters?: SchemaFilters;
}

/** Opens the source through the gateway, reads one snapshot and closes it; nothing is written. */
export async function readSourceSnapshot(connectionString: string, options: ReadSourceOptions = {}): Promise<SourceSnapshot> {
  const gateway = openGateway(connectionString, {
    applicationName: 'querytrail-advisor',
    // pg_relation_size takes AccessShareLock: give up rather than queue behind a migration's ACCESS EXCLUSIVE
    limits: { statementTimeoutMs: Math.max(1, Math.round(options.statementTimeoutMs ?? 60_000)), lockTimeoutMs: 2_000, poolSize: 1 },
  });
  try {
    return await gateway.transaction((tx) => readSource(tx, options), {
      consistentSnapshot: true,
      // Values read as text (statistics, extremes) must parse the same way in the shadow.
      settings: { DateStyle: 'ISO, YMD', IntervalStyle: 'postgres', extra_float_digits: '3' },
    });
  } finally {
    await gateway.close();
  }
}

/** Reads a snapshot of schema, sizes and statistics inside one read-only transaction. */
async function readSource(tx: ReadOnlyTransaction, options: ReadSourceOptions): Promise<SourceSnapshot> {
  const q: CatalogQuery = (sql, params) => tx.rows<Row>(sql, params ?? []);
  const server = await readServerFacts(q);
  const filters = hasSchemaFilters(options.schemaFilters) ? options.schemaFilters : undefined;
  // With schema filters every reader is scoped to the allowed schemas' objects, by oid.
  const allowed = filters ? await allowedObjects(q, filters) : undefined;
  if (options.scope) {
    // Only what the queries need: their relations and what those need, nothing else locked or read.
    const scoped = await scopedObjects(q, options.scope, server.searchPath);
    const filter = allowed ? intersect(scoped.filter, allowed) : scoped.filter;
    const { graph, scope } = filters ? withoutExcluded(scoped.graph, scoped.scope, filters) : scoped;
    const { ddl, indexes } = await readSchemaDdl(q, filter, filters);
    const relations = await readRelations(q, filter);
    const stats = await readStats(tx, relations, relations, options.statementTimeoutMs);
    return {
      ...server,
      settings: await readSettings(q),
      ddl,
      relations,
      indexes,
      columns: await readColumns(q, filter),
      stats,
      hiddenStatistics: await readHiddenStatistics(q, stats, filter),
      endpoints: await readEndpoints(tx, options.statementTimeoutMs, filter),
      writes: await readTableWrites(q, filter),
      graph,
      scope,
      ...(filters && { schemaFilters: filters }),
    };
  }
  const { ddl, indexes } = await readSchemaDdl(q, allowed, filters);
  const relations = await readRelations(q, allowed);
  const stats = await readStats(tx, relations, allowed ? relations : undefined, options.statementTimeoutMs);
  return {
    ...server,
    settings: await readSettings(q),
    ddl,
    relations,
    indexes,
    columns: await readColumns(q, allowed),
    stats,
    hiddenStatistics: await readHiddenStatistics(q, stats, allowed),
    endpoints: await readEndpoints(tx, options.statementTimeoutMs, allowed),
    writes: await readTableWrites(q, allowed),
    graph: await wholeGraph(q, allowed),
    ...(filters && { schemaFilters: filters }),
  };
}
