// Wire shapes of CI run ingestion and the CI runs pages, shared by the tRPC router, the REST
// adapter (via the OpenAPI document), the SPA and the ci-report command.
import { z } from 'zod';
import { isoDate } from './dates';
import { environmentSummary, hashSchema, pathParam } from './environments';
import { VERDICT_STATUSES } from './policy';
import { runSchemaSchema } from './run-schema';
import { idSchema, INT32_MAX, isPlainLine, jsonNumber, lineText, REPO_MAX_LENGTH, repoSchema, sqlText } from './validation';

/**
 * Per-run limits. The request body is capped separately (MAX_BODY_BYTES, 413); these keep one run
 * to a size that fits one transaction comfortably. pg_stat_statements keeps 5,000 statements by
 * default, so a whole CI database fits twice over.
 */
export const CI_LIMITS = {
  maxQueriesPerRun: 10_000,
  maxQueryLength: 100_000,
  /**
   * Calls are stored as bigint; sums of repeats and of replicas are held at this bound (the largest
   * integer JavaScript counts exactly) so they can neither overflow the column nor drift.
   */
  maxCalls: Number.MAX_SAFE_INTEGER,
} as const;

/**
 * An ISO 8601 timestamp with Z or an offset, stored as UTC. PostgreSQL refuses offsets beyond
 * +-15:59 that ISO 8601 allows, and years outside 1..9999 have no ISO form: converting here means
 * every value accepted is one the database stores.
 */
export const timestampSchema = z.iso
  .datetime({ offset: true, message: 'Must be an ISO 8601 timestamp with Z or an offset, e.g. 2026-11-22T10:00:00Z' })
  .refine((value) => {
    const year = new Date(value).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }, 'Must be a date between the years 1 and 9999 (in UTC)')
  // checks do not stop at the first failure: an invalid value reaches this line and stays as it is
  .overwrite((value) => {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : date.toISOString();
  });

const querySchema = sqlText('Query', CI_LIMITS.maxQueryLength).min(1, 'Query must not be empty').meta({ description: 'Raw SQL (literals or $n placeholders)' });

export const ciQueryInput = z.object({
  query: querySchema,
  hash: hashSchema.optional().meta({ description: 'libpg_query fingerprint; computed by the server when absent' }),
  formattedQuery: sqlText('Formatted query', CI_LIMITS.maxQueryLength * 2)
    .optional()
    .meta({ description: 'Normalized, pretty-printed SQL; computed by the server when absent' }),
  calls: z.number().int().min(0).max(CI_LIMITS.maxCalls).optional().meta({ description: 'Times the statement ran during the CI run' }),
  meanTimeMs: z
    .number()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER, 'Mean time is out of range')
    .optional()
    .meta({ description: 'Mean execution time in milliseconds' }),
});
export type CiQueryInput = z.infer<typeof ciQueryInput>;

export const ingestRunInput = z.object({
  repo: repoSchema,
  runId: lineText('Run id', 200).meta({ description: "The CI provider's run id", example: '9876543210-1' }),
  branch: lineText('Branch', 255).optional(),
  commitSha: z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{4,64}$/, 'Commit SHA must be 4 to 64 hexadecimal characters')
    .optional(),
  pullRequest: jsonNumber(z.number().int().positive().max(INT32_MAX, 'Pull request number is out of range')).optional(),
  startedAt: timestampSchema.optional(),
  queries: z.array(ciQueryInput).max(CI_LIMITS.maxQueriesPerRun, `A run may carry at most ${CI_LIMITS.maxQueriesPerRun} queries`),
  schema: runSchemaSchema.optional().meta({
    description:
      "The CI database's tables, columns and indexes (ci-report --db sends them): the verdict plans the run's queries with its differences from production applied",
  }),
});
export type IngestRunInput = z.infer<typeof ingestRunInput>;

export const rejectedQuery = z.object({
  index: z.number().int().meta({ description: 'Position of the query in the request' }),
  reason: z.string(),
});
export type RejectedQuery = z.infer<typeof rejectedQuery>;

export const ingestRunOutput = z.object({
  id: z.string(),
  environmentId: z.string().nullable().meta({ description: 'null when the repository is not linked to an environment' }),
  queryCount: z.number().int().meta({ description: 'Distinct queries stored with the run' }),
  newQueryCount: z.number().int().meta({ description: "Queries new to the environment's catalog" }),
  rejected: z.array(rejectedQuery),
});
export type IngestRunOutput = z.infer<typeof ingestRunOutput>;

export const runEnvironment = environmentSummary.pick({ id: true, name: true, slug: true });

export const ciRunSummary = z.object({
  id: z.string(),
  repo: z.string(),
  runId: z.string(),
  branch: z.string().nullable(),
  commitSha: z.string().nullable(),
  pullRequest: z.number().int().nullable(),
  startedAt: isoDate.nullable(),
  createdAt: isoDate,
  queryCount: z.number().int(),
  newQueryCount: z.number().int(),
  environment: runEnvironment.nullable().meta({ description: 'The environment the run was tagged with; null when untagged' }),
  verdictStatus: z.enum(VERDICT_STATUSES).meta({ description: "The status of the run's verdict (GET /ci/runs/{id}/verdict has the rest)" }),
});
export type CiRunSummary = z.infer<typeof ciRunSummary>;

export const ciRunQuery = z.object({
  hash: z.string(),
  query: z.string(),
  formattedQuery: z.string(),
  calls: z.number().nullable(),
  meanTimeMs: z.number().nullable(),
});

export const ciRunDetail = ciRunSummary.extend({ rejected: z.array(rejectedQuery), queries: z.array(ciRunQuery) });
export type CiRunDetail = z.infer<typeof ciRunDetail>;

export const listRunsInput = z.object({
  environmentId: idSchema.optional().meta({ description: 'Only runs tagged with this environment' }),
  repo: z
    .string()
    .trim()
    .max(REPO_MAX_LENGTH)
    .refine(isPlainLine, 'Repository must not contain control characters')
    .optional()
    .meta({ description: 'Only runs of this repository (case-insensitive)' }),
  pullRequest: z.coerce.number().int().positive().max(INT32_MAX).optional().meta({ description: 'Only runs of this pull request number' }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).max(INT32_MAX).default(0),
});
export const getRunInput = z.object({ id: pathParam(idSchema) });

// ---------------------------------------------------------------- the catalog's other sources

export const addQueryInput = z.object({
  id: pathParam(idSchema),
  query: querySchema,
  hash: hashSchema.optional().meta({ description: 'libpg_query fingerprint; computed by the server when absent' }),
});

/** Spec 2.4's list form plus what production sync records, so the UI can show hot queries CI never runs. */
export const catalogEntryFigures = {
  productionCalls: z.number().nullable().meta({ description: 'pg_stat_statements calls at the last production sync' }),
  productionMeanTimeMs: z.number().nullable().meta({ description: 'pg_stat_statements mean execution time at the last production sync' }),
};

const syncConnectionResult = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ok'),
    value: z.object({
      statements: z.number().int().meta({ description: 'Distinct statements read from this connection' }),
      insufficientPrivilege: z.number().int().meta({ description: "Other roles' statements hidden without pg_read_all_stats" }),
      skipped: z.number().int().meta({ description: 'Statements PostgreSQL 18 grammar cannot parse, so they have no fingerprint' }),
    }),
  }),
  z.object({ type: z.literal('error'), error: z.string() }),
]);

export const syncProductionOutput = z.object({
  queryCount: z.number().int().meta({ description: 'Distinct queries read from production and stored' }),
  newQueryCount: z.number().int(),
  connections: z.array(z.object({ id: z.string(), label: z.string(), result: syncConnectionResult })),
});
export type SyncProductionOutput = z.infer<typeof syncProductionOutput>;
