// Wire shapes of query analysis: plans and costs from production statistics, and the indexes that
// would lower them. The advisor produces them, the server stores and serves them, the analyzer
// answers with them and the SPA reads them.
import { z } from 'zod';
import { isoDate } from './dates';
import { hashSchema, pathParam } from './environments';
import { planNodeSchema } from './plan';
import { connectionStringSchema, idSchema, sqlText } from './validation';
import { dropEffectSchema, hiddenIndexesSchema } from './index-health';

/** Production's write rates on a table (pg_stat_user_tables since its statistics were reset). */
export const tableWritesSchema = z.object({
  insertsPerSec: z.number(),
  updatesPerSec: z.number(),
  deletesPerSec: z.number(),
  indexWritesPerSec: z.number().meta({
    description:
      'Entries a new index on the table would take per second: one per insert and per update (a HOT update writes none unless the index covers a column it changes)',
  }),
  since: isoDate.meta({ description: 'Start of the period the rates cover' }),
});
export type TableWrites = z.infer<typeof tableWritesSchema>;

/** An optional budget for the indexes recommended for the whole workload. */
export const workloadBudgetSchema = z.object({
  maxIndexes: z.number().int().min(1).max(1000).optional().meta({ description: 'Recommend at most this many indexes for the workload' }),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .meta({ description: 'Recommend indexes whose estimated sizes add up to at most this many bytes' }),
});
export type WorkloadBudget = z.infer<typeof workloadBudgetSchema>;

export const recommendationSchema = z.object({
  createIndex: z.string().meta({ description: 'The CREATE INDEX statement to run' }),
  table: z.string().meta({ description: 'schema.table' }),
  method: z.enum(['btree', 'gin']),
  columns: z.array(z.string()),
  include: z.array(z.string()),
  predicate: z.string().nullable(),
  costBefore: z.number().meta({ description: "The query's cost before this index (with the query's earlier recommendations in place)" }),
  costAfter: z.number(),
  savedPct: z.number(),
  totalSaved: z.number().meta({ description: 'Cost saved x production calls (calls taken as 1 when unknown)' }),
  estimatedPages: z.number().meta({ description: 'Size the shadow planner assumed for the index, in pages' }),
  estimatedBytes: z.number().optional().meta({ description: 'The same size in bytes (pages x the block size)' }),
  sizeUncertain: z.string().optional().meta({
    description:
      "Present when production's statistics cannot pin the size down (GIN, an expression key, compressible wide values): why. The size is then an upper bound; absent, it is an estimate measured within 5% of the built index",
  }),
  writes: tableWritesSchema
    .nullable()
    .optional()
    .meta({ description: "Production's writes to the table, which the index would have to follow; null when production keeps no counts for it" }),
});
export type Recommendation = z.infer<typeof recommendationSchema>;

export const indexRecommendationSchema = recommendationSchema
  .omit({ costBefore: true, costAfter: true, savedPct: true })
  .extend({
    queries: z.array(z.string()).meta({ description: 'Hashes of the catalog queries it helps' }),
  })
  .meta({ description: 'An index chosen for the whole workload; totalSaved is what it saves all the queries it serves together' });
export type IndexRecommendation = z.infer<typeof indexRecommendationSchema>;

/** One step of the workload's choice: the indexes chosen so far, their storage and what the workload costs with them. */
export const savingPointSchema = z.object({
  indexes: z.number().int().meta({ description: 'Indexes chosen so far (0: the workload as it is)' }),
  bytes: z.number().meta({ description: 'Their estimated storage, in bytes, added up' }),
  cost: z.number().meta({ description: "The workload's cost (Σ cost x calls) with them" }),
  createIndex: z.string().nullable().meta({ description: 'The index this step added; null at the first point' }),
});
export type SavingPoint = z.infer<typeof savingPointSchema>;

export const CHOICE_STOPS = ['knee', 'maxIndexes', 'maxBytes', 'noFurtherSaving'] as const;

/** Where the workload's choice stopped on its saving curve, and why. */
export const choiceStopSchema = z.object({
  code: z.enum(CHOICE_STOPS).meta({
    description:
      "knee: the next step and the rest of the curve each save per byte under a quarter of the whole curve's average; maxIndexes, maxBytes: the budget; noFurtherSaving: no other candidate lowers the workload's cost enough",
  }),
  indexes: z.number().int().meta({ description: "The chosen point: how many of the curve's indexes were kept" }),
  message: z.string(),
});
export type ChoiceStop = z.infer<typeof choiceStopSchema>;

/** The saving curve and where the choice stopped on it, as the analyses answer them. */
export const savingCurveFields = {
  savingCurve: z.array(savingPointSchema).optional().meta({
    description: "The workload's cost against the indexes' storage, one point per step of the choice, from no index on; it may go on past the chosen point",
  }),
  stopReason: choiceStopSchema.nullable().optional(),
};

/** One query planned with production statistics: what the advisor finds for it. */
export const plannedQuerySchema = z.object({
  hash: z.string(),
  cost: z.number().nullable(),
  planShape: z.string().nullable(),
  plan: planNodeSchema.nullable().meta({ description: 'The plan production would choose now' }),
  planAfter: planNodeSchema.nullable().meta({ description: 'The plan with every recommendation in place' }),
  recommendations: z.array(recommendationSchema),
  alternatives: z.array(recommendationSchema).optional().meta({
    description:
      "Every index that alone would lower the query's cost, each against the plan as it is: what the workload's choice picks among (those saving less than the smallest share that counts only to fill the room of a byte budget)",
  }),
  error: z.string().nullable(),
  indexesUsed: z.array(z.string()).default([]).meta({ description: 'Indexes the plan reads (schema.name), recommendations not applied' }),
  tablesUsed: z.array(z.string()).default([]).meta({ description: 'Tables the plan reads (schema.name)' }),
  warnings: z
    .array(z.string())
    .optional()
    .meta({ description: 'What the plan could not take from production, e.g. the column statistics of a table the role may not read' }),
});
export type PlannedQuery = z.infer<typeof plannedQuerySchema>;

export const ANALYSIS_STATUSES = ['running', 'done', 'failed'] as const;

export const analysisStatusSchema = z.object({
  id: z.string(),
  environmentId: z.string(),
  status: z.enum(ANALYSIS_STATUSES),
  phase: z.string().meta({ description: 'queued, snapshot, shadow, candidates, queries, saving, done' }),
  done: z.number().int(),
  total: z.number().int(),
  queryCount: z.number().int(),
  connectionLabel: z.string().meta({ description: 'The production connection whose statistics were used' }),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
  indexes: z.array(indexRecommendationSchema),
  ...savingCurveFields,
  hiddenIndexes: z.array(z.string()).optional().meta({ description: 'A what-if analysis: the indexes (schema.name) planned as if dropped' }),
  hiddenEffect: dropEffectSchema.nullable().optional().meta({ description: 'A what-if analysis: the catalog queries that plan dearer without those indexes' }),
  startedAt: isoDate,
  finishedAt: isoDate.nullable(),
});
export type AnalysisStatus = z.infer<typeof analysisStatusSchema>;

// Stored per Analyze without the plan's objects (query_analyses has no columns for them).
export const queryAnalysisSchema = plannedQuerySchema.omit({ indexesUsed: true, tablesUsed: true }).extend({ analysisId: z.string(), analyzedAt: isoDate });
export type QueryAnalysis = z.infer<typeof queryAnalysisSchema>;

export const RUN_CHANGES = ['cost_rose', 'gained_recommendation', 'new_query'] as const;

export const ciRunAnalysisSchema = z.object({
  runId: z.string(),
  baseline: z
    .object({ id: z.string(), runId: z.string(), branch: z.string().nullable(), createdAt: isoDate })
    .nullable()
    .meta({ description: 'The previous run of the same branch, else of the default branch (main or master)' }),
  queries: z.array(
    z.object({
      hash: z.string(),
      formattedQuery: z.string(),
      cost: z.number().nullable(),
      previousCost: z.number().nullable(),
      recommendationCount: z.number().int().nullable(),
      previousRecommendationCount: z.number().int().nullable(),
      change: z.enum(RUN_CHANGES).nullable().meta({
        description: 'cost_rose: over 10% above the baseline; gained_recommendation: an index would now help; new_query: not in the baseline',
      }),
    }),
  ),
});
export type CiRunAnalysis = z.infer<typeof ciRunAnalysisSchema>;

export const envAnalysisInput = z.object({ id: pathParam(idSchema) });
/** Starting an environment's analysis: optionally with a budget for the workload's indexes, or as a what-if without some indexes. */
export const envAnalysisStartInput = envAnalysisInput.extend(workloadBudgetSchema.shape).extend({ hiddenIndexes: hiddenIndexesSchema.optional() });
export const queryAnalysisInput = z.object({ id: pathParam(idSchema), hash: pathParam(hashSchema) });
export const runAnalysisInput = z.object({ id: pathParam(idSchema) });

/** POST /postgres/analyze on the analyzer: the same analysis for one database, its own statistics. */
export const analyzeRequestSchema = z.object({
  db: connectionStringSchema,
  queries: z
    .array(
      z.object({
        query: sqlText('Query', 100_000).min(1, 'Query must not be empty'),
        calls: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      }),
    )
    .max(500)
    .optional()
    .meta({ description: "Queries to analyze; by default the database's own pg_stat_statements, most total time first" }),
  queryLimit: z.number().int().min(1).max(500).default(50),
  ...workloadBudgetSchema.shape,
  hiddenIndexes: hiddenIndexesSchema.optional(),
});
export type AnalyzeRequest = z.infer<typeof analyzeRequestSchema>;

export const analyzeResponseSchema = z.object({
  database: z.string(),
  durationMs: z.number(),
  source: z.enum(['request', 'pg_stat_statements']),
  queries: z.array(
    plannedQuerySchema.extend({
      query: z.string(),
      calls: z.number().nullable(),
    }),
  ),
  indexes: z.array(indexRecommendationSchema),
  ...savingCurveFields,
  warnings: z.array(z.string()),
  hiddenIndexes: z.array(z.string()).default([]).meta({ description: 'The indexes planned as if dropped (schema.name)' }),
});
export type AnalyzeResponse = z.infer<typeof analyzeResponseSchema>;

/** One statement planned on request against production's statistics in the shadow planner (never run anywhere). */
export const explainQueryInput = z.object({
  id: pathParam(idSchema),
  sql: sqlText('Query', 100_000).min(1, 'Query must not be empty').meta({
    description: 'One SELECT, INSERT, UPDATE, DELETE or MERGE statement (WITH allowed); anything else, or more than one statement, is refused',
  }),
});

export const explainedQuerySchema = plannedQuerySchema.omit({ alternatives: true }).extend({
  formattedQuery: z.string(),
  snapshotAt: isoDate.meta({ description: 'When the production snapshot (schema and statistics) planned against was read' }),
  warnings: z.array(z.string()).meta({ description: 'Schema objects the shadow could not rebuild, statistics it could not restore' }),
});
export type ExplainedQuery = z.infer<typeof explainedQuerySchema>;
