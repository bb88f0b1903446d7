// Wire shapes of index health: the existing indexes of a database that cost writes and space
// without serving reads (never scanned, duplicated, a prefix of another, invalid), and what the
// catalog's queries would lose if one were dropped. The analyzer's sync carries the first part,
// an environment's analysis adds the second; the SPA reads both.
import { z } from 'zod';
import { isoDate } from './dates';
import { lineText } from './validation';

export const INDEX_HEALTH_KINDS = ['unused', 'duplicate', 'redundant', 'invalid'] as const;
export type IndexHealthKind = (typeof INDEX_HEALTH_KINDS)[number];

/** One catalog query a drop would slow down: its cost with the index and without it. */
export const dropEffectQuerySchema = z.object({
  hash: z.string(),
  costBefore: z.number(),
  costAfter: z.number(),
});
export type DropEffectQuery = z.infer<typeof dropEffectQuerySchema>;

/** What dropping one index would do to the catalog's plans, tried in the shadow planner. */
export const dropEffectSchema = z.object({
  /** Catalog queries whose production plan reads the index (the only ones a drop can change). */
  queriesUsing: z.number().int(),
  /** Those that plan more than 1% dearer without it, most slowed first. */
  slower: z.array(dropEffectQuerySchema),
  /** No catalog query would get slower. */
  safeToDrop: z.boolean(),
  /** Why it could not be tried (not in the production snapshot the analysis planned on, ...). */
  error: z.string().nullable(),
});
export type DropEffect = z.infer<typeof dropEffectSchema>;

export const indexHealthEntrySchema = z.object({
  schema: z.string(),
  table: z.string(),
  name: z.string(),
  /** Every finding about it; at least one. */
  kinds: z.array(z.enum(INDEX_HEALTH_KINDS)).min(1),
  /** For duplicate and redundant: the index (schema.name) that serves its reads instead. */
  coveredBy: z.string().nullable(),
  /** The findings in words. */
  reason: z.string(),
  /** On disk (pg_relation_size; a partitioned index: its partitions' parts added up). */
  bytes: z.number(),
  /** pg_stat_all_indexes.idx_scan since the statistics were reset; null when not known. */
  scans: z.number().nullable(),
  definition: z.string(),
  /** DROP INDEX CONCURRENTLY schema.name; (without CONCURRENTLY for a partitioned index, which cannot be dropped concurrently). */
  dropStatement: z.string(),
  /** Filled in by an environment's analysis for unused, duplicate and redundant indexes. */
  dropEffect: dropEffectSchema.nullable().optional(),
});
export type IndexHealthEntry = z.infer<typeof indexHealthEntrySchema>;

export const indexHealthSchema = z.object({
  /** When the database's statistics were last reset (pg_stat_database.stats_reset); null: never since it was created. */
  statsReset: isoDate.nullable(),
  /** When these facts were read. */
  readAt: isoDate,
  indexes: z.array(indexHealthEntrySchema),
});
export type IndexHealth = z.infer<typeof indexHealthSchema>;

/** Index names as a caller writes them: `name` or `schema.name`. */
export const hiddenIndexesSchema = z
  .array(lineText('Index name', 200))
  .max(100)
  .meta({ description: 'Indexes (name or schema.name) to plan without, as if dropped; only the shadow planner is changed' });

/** GET /env/{id}/index-health: production's index health as the latest analysis that read it found it. */
export const environmentIndexHealthSchema = z.object({
  analysisId: z.string(),
  /** When that analysis finished: drop effects are its plans'. */
  analyzedAt: isoDate,
  health: indexHealthSchema,
});
export type EnvironmentIndexHealth = z.infer<typeof environmentIndexHealthSchema>;
