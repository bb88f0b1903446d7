// What a snapshot of production holds: its schema as DDL, sizes, column statistics, write rates,
// settings and the dependency graph of its objects, as read.ts assembles them from the readers
// beside it. The types live here, apart from the readers, so that every reader and every user of
// a snapshot (shadow/, advisor/) depends on them without depending on one another.
import type { SchemaFilters } from '../shared/schema-filters.js';

export interface SnapshotRelation {
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

export interface SnapshotIndex {
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

export interface SnapshotColumn {
  schema: string;
  table: string;
  name: string;
  type: string;
  /** pg_type.typcategory of the column's type ('A' array, 'U' user-defined such as jsonb, ...): GIN candidates need it. */
  category: string;
  notNull: boolean;
}

export interface SnapshotColumnStats {
  schema: string;
  table: string;
  column: string;
  inherited: boolean;
  /** pg_stats fields by name, arrays already in their text form. */
  values: Record<string, string | number | null>;
}

/** A table whose column statistics pg_stats hides from the reading role (stats.ts readHiddenStatistics). */
export interface SnapshotHiddenStatistics {
  schema: string;
  table: string;
  /** The columns without statistics in the snapshot. */
  columns: string[];
  /** hidden: production plans with statistics the snapshot lacks; never_analyzed: production has none either. */
  statistics: 'hidden' | 'never_analyzed';
}

export interface Snapshot {
  serverVersionNum: number;
  searchPath: string;
  blockSize: number;
  /** The database's collation, so the shadow can sort and compare text alike where the OS has it. */
  locale: { collate: string; ctype: string };
  /** Planner settings to replay in the shadow session. */
  settings: Record<string, string>;
  /**
   * DDL in a workable order; shadow/database.ts still retries failures until no progress is made. `of` is
   * the relation (its DDL name) a constraint, foreign key, index or attachment belongs to;
   * `references` the table a foreign key references: what a shadow of part of the schema
   * (scope.ts) keeps of them.
   */
  ddl: SnapshotDdl[];
  /** Tables, partitioned tables, materialized views, foreign tables and indexes, with their sizes. */
  relations: SnapshotRelation[];
  /** Valid indexes; the shadow gives the parts of its partitioned indexes these parts' names. */
  indexes: SnapshotIndex[];
  columns: SnapshotColumn[];
  stats: SnapshotColumnStats[];
  /**
   * Actual smallest and largest values of columns that lead a plain B-tree index, read through
   * that index. The planner reads them itself (get_actual_variable_range) when a constant falls
   * beyond the histogram; the shadow stores them as two rows so its planner finds them too.
   */
  endpoints?: SnapshotEndpoint[];
  /**
   * Indexes only a CI run's schema has (run-schema.ts), on production's tables. Built with the rest
   * of the schema on the empty tables, then sized as candidates are (live-candidates.ts): an index
   * left at the one page its build wrote would look free to the planner.
   */
  runIndexes?: { schema: string; name: string }[];
  /** Insert, update and delete counts per table (writes.ts): what a new index would cost; absent in older snapshots. */
  writes?: SnapshotTableWrites[];
  /**
   * What each relation, type and function needs (scope.ts): what lets a shadow carry only
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
  hiddenStatistics?: SnapshotHiddenStatistics[];
  /** The connection's schema filters it was read with; absent: every schema. */
  schemaFilters?: SchemaFilters;
}

export interface SnapshotDdl {
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

export interface SnapshotEndpoint {
  schema: string;
  table: string;
  column: string;
  /** Text forms (DateStyle ISO), null when the column holds no value. */
  min: string | null;
  max: string | null;
}

export interface ReadSnapshotOptions {
  /** Cap on each statement of the snapshot. Default 60 s. */
  statementTimeoutMs?: number;
  /**
   * Read only what these names and objects need (scope.ts): the snapshot then says so
   * (`scope`). Default: everything.
   */
  scope?: ScopeRequest;
  /** Only the schemas these allow are read (filters.ts); the snapshot records them. */
  schemaFilters?: SchemaFilters;
}

export type Row = Record<string, unknown>;

/** Runs one query on PostgreSQL's system catalogs in the snapshot's read-only transaction. */
export type SystemCatalogQuery = (sql: string, params?: unknown[]) => Promise<Row[]>;

/**
 * The objects a read scoped to some queries is limited to, by oid (scope.ts); a reader
 * given none reads every object of its kind.
 */
export interface ReadFilter {
  /** Tables of every kind and views. */
  relations: number[];
  types: number[];
  functions: number[];
}

export interface SnapshotTableWrites {
  schema: string;
  table: string;
  inserted: number;
  updated: number;
  /** Updates that wrote no index entry (HOT): an index on a column they change would end that. */
  hotUpdated: number;
  deleted: number;
  /** Seconds the counters cover, and since when (ISO). */
  seconds: number;
  since: string;
}

/** What a scoped read starts from. */
export interface ScopeRequest {
  /** Names the queries use; relations are resolved as the application's search_path resolves them. */
  names?: QueryRefs;
  /** Relations (DDL names) to read as a query reads them, with their partitions and children. */
  used?: string[];
  /** Indexes (schema and name) whose tables are read as a query reads them: indexes to try dropping. */
  indexes?: { schema: string; name: string }[];
  /** Relations, types and functions (DDL names) to read because something needs them. */
  needed?: string[];
  types?: string[];
  functions?: string[];
  /** What the snapshot being extended already holds: neither read again nor followed. */
  known?: { relations: string[]; types: string[]; functions: string[] };
}

export interface ObjectName {
  schema?: string;
  name: string;
}

/** Names a set of queries uses. */
export interface QueryRefs {
  relations: ObjectName[];
  functions: ObjectName[];
  types: ObjectName[];
}
