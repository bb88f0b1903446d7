// Wire shapes of production history: each query's work over time as pg_stat_statements counted it
// between readings, the heaviest queries of a window and the ones whose mean time rose.
import { z } from 'zod';
import { isoDate } from './dates';
import { timestampSchema } from './ci';
import { hashSchema, pathParam } from './environments';
export { MIN_READING_INTERVAL_SECONDS, readingIntervalSchema } from './environments';
import { idSchema } from './validation';

/** Longest window one request may read (the hourly retention's default plus slack). */
export const MAX_HISTORY_WINDOW_DAYS = 400;

/** The ranges the SPA offers, in milliseconds. */
export const HISTORY_RANGES = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '90d': 90 * 86_400_000 } as const;
export type HistoryRange = keyof typeof HISTORY_RANGES;

const windowFields = {
  from: timestampSchema.optional().meta({ description: 'Start of the window (ISO 8601); default 24 hours before `to`' }),
  to: timestampSchema.optional().meta({ description: 'End of the window (ISO 8601); default now' }),
};

/** A window with `from` before `to` and at most MAX_HISTORY_WINDOW_DAYS long; absent ends take their defaults. */
function checkWindow(value: { from?: string; to?: string }, ctx: z.RefinementCtx) {
  const to = value.to ? Date.parse(value.to) : Date.now();
  const from = value.from ? Date.parse(value.from) : to - HISTORY_RANGES['24h'];
  if (!(from < to)) ctx.addIssue({ code: 'custom', path: ['from'], message: '`from` must be before `to`' });
  else if (to - from > MAX_HISTORY_WINDOW_DAYS * 86_400_000) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: `The window must be at most ${MAX_HISTORY_WINDOW_DAYS} days long` });
  }
}

export const queryHistoryInput = z.object({ id: pathParam(idSchema), hash: pathParam(hashSchema), ...windowFields }).superRefine(checkWindow);

/** A query's work over an interval, as pg_stat_statements counts it. */
const workFields = {
  calls: z.number(),
  totalTimeMs: z.number(),
  meanTimeMs: z.number(),
  rows: z.number(),
  sharedBlksHit: z.number(),
  sharedBlksRead: z.number(),
};

/** The query a list of a window names: its fingerprint and the catalog's text of it. */
const listedQueryFields = {
  hash: z.string(),
  /** The catalog's text of the query; null when the catalog no longer holds it. */
  formattedQuery: z.string().nullable(),
};

/** How many queries a list of a window holds at most. */
const listLimit = z.coerce.number().int().min(1).max(500).default(20);

export const historyPoint = z.object({
  at: isoDate.meta({ description: 'The reading that closed the interval (or the start of the hour, past full-resolution retention)' }),
  ...workFields,
});
export type HistoryPoint = z.infer<typeof historyPoint>;

export const TOP_ORDERS = ['totalTime', 'calls', 'meanTime'] as const;

export const topQueriesInput = z
  .object({
    id: pathParam(idSchema),
    ...windowFields,
    by: z.enum(TOP_ORDERS).default('totalTime'),
    limit: listLimit,
  })
  .superRefine(checkWindow);

export const topQuery = z.object({ ...listedQueryFields, ...workFields });
export type TopQuery = z.infer<typeof topQuery>;

export const regressedQueriesInput = z
  .object({
    id: pathParam(idSchema),
    ...windowFields,
    threshold: z.coerce
      .number()
      .min(1)
      .max(100_000)
      .default(50)
      .meta({ description: 'Percent the mean time must have risen by against the previous window of the same length' }),
    limit: listLimit,
  })
  .superRefine(checkWindow);

export const historyCauseSchema = z
  .object({
    kind: z.literal('data_growth'),
    detail: z.string().meta({ description: 'The evidence, in words' }),
    table: z.string().meta({ description: 'The table that grew (schema.name)' }),
    factor: z.number().meta({ description: "Its rows at the end of this window over the previous window's (its size when it had no rows)" }),
  })
  .meta({ id: 'HistoryCause' });
export type HistoryCause = z.infer<typeof historyCauseSchema>;

export const regressedQuery = z.object({
  ...listedQueryFields,
  calls: z.number(),
  meanTimeMs: z.number(),
  previousCalls: z.number(),
  previousMeanTimeMs: z.number(),
  /** How much the mean time rose, in percent of the previous window's. */
  changePercent: z.number(),
  causes: z
    .array(historyCauseSchema)
    .meta({ description: 'The tables the query reads that grew between the two windows, and by what factor (empty when none did or no sizes were kept)' }),
});
export type RegressedQuery = z.infer<typeof regressedQuery>;

export const PRODUCTION_EVENTS = ['production.query.new', 'production.query.regressed'] as const;
export type ProductionEvent = (typeof PRODUCTION_EVENTS)[number];

export const historyReadingOutput = z.object({
  at: isoDate,
  /** Queries with a point at `at`. */
  points: z.number().int(),
  connections: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      result: z.enum(['baseline', 'points', 'stale', 'error']).meta({
        description: 'baseline: the first reading (no points yet); points: compared with the previous reading; error: see `error`',
      }),
      error: z.string().optional(),
    }),
  ),
});
