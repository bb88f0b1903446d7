// Query analysis with production statistics: start an environment's analysis, follow it, and read
// what it found per query and per CI run.
import type { TRPCRouterRecord } from '@trpc/server';
import {
  analysisStatusSchema,
  ciRunAnalysisSchema,
  envAnalysisInput,
  envAnalysisStartInput,
  explainedQuerySchema,
  explainQueryInput,
  queryAnalysisInput,
  queryAnalysisSchema,
  runAnalysisInput,
} from '../../shared/analysis';
import { environmentIndexHealthSchema } from '../../shared/index-health';
import { explainQuery } from '../analysis/explain';
import { latestIndexHealth } from '../analysis/index-health';
import { startAnalysis } from '../analysis/jobs';
import { latestAnalysis, readQueryAnalysis } from '../analysis/results';
import { compareRun } from '../analysis/run-diff';
import { procedure } from '../trpc';

const TAG = ['Query analysis'];

export const analysisRouter = {
  start: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/analyze',
        tags: TAG,
        summary: "Analyze every catalog query with the production connection's statistics (runs in the background)",
        description:
          'Answers 202 with the job; a second call while one runs returns the running one. Poll GET /env/{id}/analyze. ' +
          'With hiddenIndexes, a what-if analysis: every query planned as if those indexes were dropped (in the shadow planner only), ' +
          "kept on the analysis without changing the catalog's costs; an unknown index answers 400 naming it.",
      },
      successStatus: 202,
    })
    .input(envAnalysisStartInput)
    .output(analysisStatusSchema)
    .mutation(
      async ({ ctx, input }) =>
        (await startAnalysis(ctx, input.id, { budget: { maxIndexes: input.maxIndexes, maxBytes: input.maxBytes }, hiddenIndexes: input.hiddenIndexes })).status,
    ),

  latest: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/analyze', tags: TAG, summary: 'The latest analysis: progress, or its ranked index recommendations' } })
    .input(envAnalysisInput)
    .output(analysisStatusSchema)
    .query(({ ctx, input }) => latestAnalysis(ctx.store.db, input.id)),

  indexHealth: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/index-health',
        tags: TAG,
        summary: "Production's unused, duplicate, redundant and invalid indexes, with what dropping each would cost the catalog",
      },
    })
    .input(envAnalysisInput)
    .output(environmentIndexHealthSchema)
    .query(({ ctx, input }) => latestIndexHealth(ctx.store.db, input.id)),

  query: procedure
    .meta({
      openapi: { method: 'GET', path: '/env/{id}/queries/{hash}/analysis', tags: TAG, summary: "A query's production plan, cost and index recommendations" },
    })
    .input(queryAnalysisInput)
    .output(queryAnalysisSchema)
    .query(({ ctx, input }) => readQueryAnalysis(ctx.store.db, input.id, input.hash)),

  /** tRPC only (the MCP server's explain_query): one statement planned in the shadow against production's statistics. */
  explain: procedure
    .input(explainQueryInput)
    .output(explainedQuerySchema)
    .query(({ ctx, input }) => explainQuery(ctx, input.id, input.sql)),

  ciRun: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/ci/runs/{id}/analysis',
        tags: TAG,
        summary: 'Queries of a CI run whose cost rose or that gained a recommendation since the previous run',
      },
    })
    .input(runAnalysisInput)
    .output(ciRunAnalysisSchema)
    .query(({ ctx, input }) => compareRun(ctx.store.db, input.id)),
} satisfies TRPCRouterRecord;
