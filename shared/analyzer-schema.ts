// The analyzer's wire contract: its request body and the RemoteSyncResponse it returns.
// The analyzer builds its response as these types and the SPA parses it with these schemas, so the
// two cannot drift apart. Every value is JSON-native: PostgreSQL int8 values that may exceed 2^53
// (sequence bounds, queryids) travel as strings, timestamps as ISO 8601 strings. Its errors are
// querytrail's one error body (errorBodySchema, shared/errors.ts).
import { z } from 'zod';
import { connectionStringSchema } from './validation';
import { indexHealthSchema } from './index-health';
import { excludeSchemasSchema, includeSchemasSchema } from './schema-filters';

export const SAMPLE_ROWS_DEFAULT = 5;
export const SAMPLE_ROWS_MAX = 100;
// Entries are pretty-printed, which costs about 1 ms each for long DDL: the default keeps a first
// sync of a busy server quick; callers may ask for more.
export const QUERY_LIMIT_DEFAULT = 500;
export const QUERY_LIMIT_MAX = 10_000;

export const syncRequestSchema = z.object({
  db: connectionStringSchema,
  sampleRows: z.number().int().min(0).max(SAMPLE_ROWS_MAX).default(SAMPLE_ROWS_DEFAULT),
  queryLimit: z.number().int().min(1).max(QUERY_LIMIT_MAX).default(QUERY_LIMIT_DEFAULT),
  // Optional, so a bare `{ db }` (what clients sent before filters existed) is still a whole request: which schemas to read (shared/schema-filters.ts).
  includeSchemas: includeSchemasSchema.optional(),
  excludeSchemas: excludeSchemasSchema.optional(),
});
export type SyncRequest = z.infer<typeof syncRequestSchema>;
/** What a caller sends: sampleRows and queryLimit may be left out. */
export type SyncRequestInput = z.input<typeof syncRequestSchema>;

/** One part of a sync: it either carries its value or says why it failed, never both. */
export function resultSchema<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('type', [z.object({ type: z.literal('ok'), value }), z.object({ type: z.literal('error'), error: z.string() })]);
}
export type Result<T> = { type: 'ok'; value: T } | { type: 'error'; error: string };

export const healthSchema = z.object({ status: z.literal('ok') });

const qualifiedName = z.object({ schema: z.string(), name: z.string() });
export type QualifiedName = z.infer<typeof qualifiedName>;

// ---------------------------------------------------------------- meta

export const visibilitySchema = z.object({
  superuser: z.boolean(),
  /** Member of pg_read_all_stats (directly or through pg_monitor): sees every role's statements. */
  pgReadAllStats: z.boolean(),
  /** pg_stat_statements rows shown as <insufficient privilege>; null when the extension could not be read. */
  insufficientPrivilegeStatements: z.number().int().nullable(),
  /** Tables, partitions and materialized views the role may not SELECT: no sample rows, and pg_stats hides their columns. */
  tablesWithoutSelect: z.array(qualifiedName),
  /** Plain-language summary of the above, for display. */
  notes: z.array(z.string()),
});
export type Visibility = z.infer<typeof visibilitySchema>;

export const metaSchema = z.object({
  /** The analyzer's own version (package.json). */
  version: z.string(),
  serverVersion: z.string(),
  serverVersionNum: z.number().int(),
  database: z.string(),
  user: z.string(),
  syncedAt: z.string(),
  durationMs: z.number(),
  /** Estimated rows in all tables: the figure inferredStatsStrategy is decided on. */
  totalRows: z.number(),
  /** fromSource: the database holds enough rows (5,000+) for its own planner statistics to be representative. */
  inferredStatsStrategy: z.enum(['fromSource', 'default']),
  visibility: visibilitySchema,
});
export type Meta = z.infer<typeof metaSchema>;
export const STATS_FROM_SOURCE_MIN_ROWS = 5000;

// ---------------------------------------------------------------- schema

export const columnStatsSchema = z.object({
  /** Statistics over the table and its inheritance children (partitioned tables), not the table alone. */
  inherited: z.boolean(),
  nullFraction: z.number(),
  averageWidth: z.number(),
  /** Positive: distinct values; negative: minus the fraction of rows that are distinct. */
  nDistinct: z.number(),
  /** Values in PostgreSQL's text form, as pg_stats shows them. */
  mostCommonValues: z.array(z.string().nullable()).nullable(),
  mostCommonFrequencies: z.array(z.number()).nullable(),
  histogramBounds: z.array(z.string().nullable()).nullable(),
  correlation: z.number().nullable(),
});
export type ColumnStats = z.infer<typeof columnStatsSchema>;

export const columnSchema = z.object({
  name: z.string(),
  position: z.number().int(),
  type: z.string(),
  nullable: z.boolean(),
  default: z.string().nullable(),
  identity: z.enum(['always', 'byDefault']).nullable(),
  generated: z.enum(['stored', 'virtual']).nullable(),
  generationExpression: z.string().nullable(),
  /** Only when it differs from the type's default collation. */
  collation: z.string().nullable(),
  comment: z.string().nullable(),
  stats: columnStatsSchema.nullable(),
});
export type Column = z.infer<typeof columnSchema>;

export const tableStatsSchema = z.object({
  /** pg_class.reltuples; null when the table was never vacuumed or analyzed. */
  rowEstimate: z.number().nullable(),
  pages: z.number(),
  tableBytes: z.number(),
  indexesBytes: z.number(),
  totalBytes: z.number(),
  liveTuples: z.number().nullable(),
  deadTuples: z.number().nullable(),
  seqScans: z.number().nullable(),
  indexScans: z.number().nullable(),
  lastVacuum: z.string().nullable(),
  lastAutovacuum: z.string().nullable(),
  lastAnalyze: z.string().nullable(),
  lastAutoanalyze: z.string().nullable(),
});
export type TableStats = z.infer<typeof tableStatsSchema>;

export const sampleRowSchema = z.record(z.string(), z.unknown());
export type SampleRow = z.infer<typeof sampleRowSchema>;

export const tableSchema = z.object({
  schema: z.string(),
  name: z.string(),
  kind: z.enum(['table', 'partitioned', 'foreign']),
  owner: z.string(),
  comment: z.string().nullable(),
  rowSecurity: z.boolean(),
  partitionOf: qualifiedName.nullable(),
  partitionBound: z.string().nullable(),
  partitionKey: z.string().nullable(),
  columns: z.array(columnSchema),
  stats: tableStatsSchema.nullable(),
  /** Real rows (JSON as PostgreSQL's to_json writes them); ok [] when the table is empty or sampling is off. */
  sampleRows: resultSchema(z.array(sampleRowSchema)),
});
export type Table = z.infer<typeof tableSchema>;

export const indexColumnSchema = z.object({
  /** The column name, or null for an expression. */
  column: z.string().nullable(),
  expression: z.string().nullable(),
  descending: z.boolean(),
  nullsFirst: z.boolean(),
  opclass: z.string().nullable(),
  opclassIsDefault: z.boolean().nullable(),
});
export type IndexColumn = z.infer<typeof indexColumnSchema>;

export const indexSchema = z.object({
  schema: z.string(),
  table: z.string(),
  name: z.string(),
  method: z.string(),
  unique: z.boolean(),
  primary: z.boolean(),
  exclusion: z.boolean(),
  /** An index on a partitioned table (relkind I); the partitions hold the data. */
  partitioned: z.boolean(),
  valid: z.boolean(),
  ready: z.boolean(),
  keyColumns: z.array(indexColumnSchema),
  includeColumns: z.array(z.string()),
  predicate: z.string().nullable(),
  /** The constraint that owns this index (primary key, unique, exclusion). */
  constraint: z.string().nullable(),
  definition: z.string(),
});
export type Index = z.infer<typeof indexSchema>;

export const CONSTRAINT_TYPES = ['check', 'foreignKey', 'notNull', 'primaryKey', 'unique', 'exclusion', 'trigger'] as const;
export const constraintSchema = z.object({
  schema: z.string(),
  name: z.string(),
  type: z.enum(CONSTRAINT_TYPES),
  /** The table it constrains; null for a domain constraint. */
  table: qualifiedName.nullable(),
  domain: qualifiedName.nullable(),
  columns: z.array(z.string()),
  definition: z.string(),
  validated: z.boolean(),
  deferrable: z.boolean(),
  deferred: z.boolean(),
  /** A copy made on a partition from the partitioned table's constraint. */
  inherited: z.boolean(),
  references: z.object({ schema: z.string(), table: z.string(), columns: z.array(z.string()) }).nullable(),
});
export type Constraint = z.infer<typeof constraintSchema>;

export const functionSchema = z.object({
  schema: z.string(),
  name: z.string(),
  kind: z.enum(['function', 'procedure', 'aggregate', 'window']),
  arguments: z.string(),
  result: z.string().nullable(),
  language: z.string(),
  volatility: z.enum(['immutable', 'stable', 'volatile']),
  securityDefiner: z.boolean(),
  owner: z.string(),
  comment: z.string().nullable(),
  /** CREATE statement; null for aggregates, which PostgreSQL cannot print as one. */
  definition: z.string().nullable(),
});
export type DbFunction = z.infer<typeof functionSchema>;

export const viewSchema = z.object({
  schema: z.string(),
  name: z.string(),
  materialized: z.boolean(),
  /** False for a materialized view created WITH NO DATA and never refreshed. */
  populated: z.boolean(),
  owner: z.string(),
  comment: z.string().nullable(),
  definition: z.string(),
  columns: z.array(columnSchema),
});
export type View = z.infer<typeof viewSchema>;

export const enumTypeSchema = z.object({ schema: z.string(), name: z.string(), labels: z.array(z.string()) });
export const domainTypeSchema = z.object({
  schema: z.string(),
  name: z.string(),
  baseType: z.string(),
  notNull: z.boolean(),
  default: z.string().nullable(),
  constraints: z.array(z.object({ name: z.string(), definition: z.string() })),
});
export const compositeTypeSchema = z.object({
  schema: z.string(),
  name: z.string(),
  attributes: z.array(z.object({ name: z.string(), type: z.string() })),
});
export const typesSchema = z.object({
  enums: z.array(enumTypeSchema),
  domains: z.array(domainTypeSchema),
  composites: z.array(compositeTypeSchema),
});
export type Types = z.infer<typeof typesSchema>;

export const triggerSchema = z.object({
  schema: z.string(),
  table: z.string(),
  name: z.string(),
  enabled: z.enum(['origin', 'disabled', 'replica', 'always']),
  function: qualifiedName,
  /** A copy made on a partition from the partitioned table's trigger. */
  inherited: z.boolean(),
  definition: z.string(),
});
export type Trigger = z.infer<typeof triggerSchema>;

export const extensionSchema = z.object({ name: z.string(), version: z.string(), schema: z.string() });
export type Extension = z.infer<typeof extensionSchema>;

export const sequenceSchema = z.object({
  schema: z.string(),
  name: z.string(),
  dataType: z.string(),
  start: z.string(),
  increment: z.string(),
  min: z.string(),
  max: z.string(),
  cache: z.string(),
  cycle: z.boolean(),
  /** null when never used, or when the role lacks USAGE/SELECT on the sequence. */
  lastValue: z.string().nullable(),
  ownedBy: z.object({ schema: z.string(), table: z.string(), column: z.string() }).nullable(),
});
export type Sequence = z.infer<typeof sequenceSchema>;

export const schemaInfoSchema = z.object({ name: z.string(), owner: z.string(), comment: z.string().nullable() });

export const databaseSchemaSchema = z.object({
  schemas: z.array(schemaInfoSchema),
  tables: z.array(tableSchema),
  indexes: z.array(indexSchema),
  constraints: z.array(constraintSchema),
  functions: z.array(functionSchema),
  views: z.array(viewSchema),
  types: typesSchema,
  triggers: z.array(triggerSchema),
  extensions: z.array(extensionSchema),
  sequences: z.array(sequenceSchema),
  /** Statistics or samples that could not be read (the catalog itself was): shown, not fatal. */
  warnings: z.array(z.string()),
});
export type DatabaseSchema = z.infer<typeof databaseSchemaSchema>;

// ---------------------------------------------------------------- queries

export const queryStatsSchema = z.object({
  /** libpg_query fingerprint: the same statement with other literals, IN-list lengths or comments shares it. */
  hash: z.string(),
  /** The pg_stat_statements queryids merged into this entry (one per role, top-level flag, ...). */
  queryids: z.array(z.string()),
  query: z.string(),
  formattedQuery: z.string(),
  calls: z.number(),
  rows: z.number(),
  totalTimeMs: z.number(),
  meanTimeMs: z.number(),
  minTimeMs: z.number(),
  maxTimeMs: z.number(),
  stddevTimeMs: z.number(),
  sharedBlksHit: z.number(),
  sharedBlksRead: z.number(),
});
export type QueryStats = z.infer<typeof queryStatsSchema>;

// ---------------------------------------------------------------- disabled indexes

export const disabledIndexSchema = z.object({
  schema: z.string(),
  table: z.string(),
  name: z.string(),
  reason: z.enum(['invalid', 'notReady']),
  /** Why the planner skips it, in words. */
  message: z.string(),
  definition: z.string(),
});
export type DisabledIndex = z.infer<typeof disabledIndexSchema>;

// ---------------------------------------------------------------- the response

export const remoteSyncResponseSchema = z.object({
  meta: resultSchema(metaSchema),
  schema: resultSchema(databaseSchemaSchema),
  queries: resultSchema(z.array(queryStatsSchema)),
  disabledIndexes: resultSchema(z.array(disabledIndexSchema)),
  /** Indexes never scanned, duplicated, redundant or invalid (shared/index-health.ts); absent from an analyzer older than this field. */
  indexHealth: resultSchema(indexHealthSchema).optional(),
});
export type RemoteSyncResponse = z.infer<typeof remoteSyncResponseSchema>;

// ---------------------------------------------------------------- browsing a sync (the SPA)
// POST /postgres answers the whole RemoteSyncResponse, which on a database of thousands of tables is
// tens of megabytes. The SPA shows a summary first (POST /postgres/summary: the schemas with their
// counts, schemas of the same structure grouped) and then fetches the objects it shows, a page at a
// time, by schema or by search (POST /postgres/objects).

export const schemaCountsSchema = z.object({
  tables: z.number().int(),
  views: z.number().int(),
  indexes: z.number().int(),
  constraints: z.number().int(),
  functions: z.number().int(),
  types: z.number().int(),
  triggers: z.number().int(),
  sequences: z.number().int(),
});
export type SchemaCounts = z.infer<typeof schemaCountsSchema>;

export const schemaSummaryEntrySchema = z.object({
  name: z.string(),
  owner: z.string(),
  comment: z.string().nullable(),
  counts: schemaCountsSchema,
  /**
   * Fingerprint of the schema's objects and their definitions, its own name (and owners,
   * statistics, sample rows) left out: two schemas with the same one hold the same structure.
   */
  structure: z.string(),
  /** The id of the group of schemas with the same structure it belongs to; null when no other schema has it. */
  group: z.string().nullable(),
});
export type SchemaSummaryEntry = z.infer<typeof schemaSummaryEntrySchema>;

/** Schemas (two or more, not empty) with the same structure: shown once. */
export const schemaGroupSchema = z.object({
  id: z.string(),
  /** In the order of `schemas`; the first stands for the group. */
  schemas: z.array(z.string()).min(2),
  /** Of one schema of the group. */
  counts: schemaCountsSchema,
});
export type SchemaGroup = z.infer<typeof schemaGroupSchema>;

export const schemaSummarySchema = z.object({
  schemas: z.array(schemaSummaryEntrySchema),
  groups: z.array(schemaGroupSchema),
  totals: schemaCountsSchema,
  extensions: z.array(extensionSchema),
  /** What could not be read (the structure still was). */
  warnings: z.array(z.string()),
});
export type SchemaSummary = z.infer<typeof schemaSummarySchema>;

/** POST /postgres/summary: the sync's parts, with the schema as a summary (request: syncRequestSchema). */
export const syncSummaryResponseSchema = z.object({
  meta: resultSchema(metaSchema),
  summary: resultSchema(schemaSummarySchema),
  queries: resultSchema(z.array(queryStatsSchema)),
  disabledIndexes: resultSchema(z.array(disabledIndexSchema)),
});
export type SyncSummaryResponse = z.infer<typeof syncSummaryResponseSchema>;

export const OBJECT_KINDS = ['table', 'view', 'function', 'type', 'trigger', 'sequence'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];
export const OBJECTS_LIMIT_DEFAULT = 100;
export const OBJECTS_LIMIT_MAX = 500;
export const OBJECTS_SCHEMAS_MAX = 1000;

const schemaNameSchema = z.string().min(1).max(256);

/** POST /postgres/objects: one page of a schema's (or schemas', or the whole database's) objects, optionally searched. */
export const objectsRequestSchema = z.object({
  db: connectionStringSchema,
  /** Only this schema's objects. */
  schema: schemaNameSchema.optional(),
  /** Only these schemas' objects (with `schema`: both). */
  schemas: z.array(schemaNameSchema).max(OBJECTS_SCHEMAS_MAX).optional(),
  /**
   * Objects whose name (schema-qualified, without "public.") contains it, case-insensitively; tables
   * also by a column's name, enums by a label, triggers by their table's name.
   */
  q: z.string().trim().max(200).optional(),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(OBJECTS_LIMIT_MAX).default(OBJECTS_LIMIT_DEFAULT),
  sampleRows: z.number().int().min(0).max(SAMPLE_ROWS_MAX).default(SAMPLE_ROWS_DEFAULT),
  includeSchemas: includeSchemasSchema.optional(),
  excludeSchemas: excludeSchemasSchema.optional(),
});
export type ObjectsRequest = z.infer<typeof objectsRequestSchema>;
export type ObjectsRequestInput = z.input<typeof objectsRequestSchema>;

/** One object of the schema browser: a table comes with its indexes, constraints and triggers. */
export const schemaObjectSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('table'),
    table: tableSchema,
    indexes: z.array(indexSchema),
    constraints: z.array(constraintSchema),
    triggers: z.array(triggerSchema),
  }),
  z.object({ kind: z.literal('view'), view: viewSchema }),
  z.object({ kind: z.literal('function'), function: functionSchema }),
  z.object({ kind: z.literal('enum'), type: enumTypeSchema }),
  z.object({ kind: z.literal('domain'), type: domainTypeSchema }),
  z.object({ kind: z.literal('composite'), type: compositeTypeSchema }),
  z.object({ kind: z.literal('trigger'), trigger: triggerSchema }),
  z.object({ kind: z.literal('sequence'), sequence: sequenceSchema }),
]);
export type SchemaObject = z.infer<typeof schemaObjectSchema>;

export const objectCountsSchema = z.object({
  table: z.number().int(),
  view: z.number().int(),
  function: z.number().int(),
  type: z.number().int(),
  trigger: z.number().int(),
  sequence: z.number().int(),
});
export type ObjectCounts = z.infer<typeof objectCountsSchema>;

/**
 * The objects in the order the browser lists them: tables, views, functions, types (enums, domains,
 * composites), triggers, sequences; each kind by schema and name.
 */
export const objectsResponseSchema = z.object({
  /** Objects matching, of every kind. */
  total: z.number().int(),
  /** Objects matching, per kind: where each kind starts in the list. */
  counts: objectCountsSchema,
  offset: z.number().int(),
  items: z.array(schemaObjectSchema),
  /** Statistics or samples of these objects that could not be read. */
  warnings: z.array(z.string()),
});
export type ObjectsResponse = z.infer<typeof objectsResponseSchema>;
