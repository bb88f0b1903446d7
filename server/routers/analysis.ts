// Query analysis with production statistics: start an environment's analysis, follow it, and read
// what it found per query and per CI run.
import type { TRPCRouterRecord } from '@trpc/server';
import {
  analysisStatusSchema,
  ciRunAnalysisSchema,
  envAnalysisInput,
  queryAnalysisInput,
  queryAnalysisSchema,
  runAnalysisInput,
} from '../../shared/analysis';
import { startAnalysis } from '../analysis/jobs';
import { latestAnalysis, readQueryAnalysis } from '../analysis/results';
import { compareRun } from '../analysis/run-diff';
import { publicProcedure } from '../trpc';

const TAG = ['Query analysis'];

export const analysisRouter = {
  start: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/analyze',
        tags: TAG,
        summary: "Analyze every catalog query with the production connection's statistics (runs in the background)",
        description: 'Answers 202 with the job; a second call while one runs returns the running one. Poll GET /env/{id}/analyze.',
      },
      successStatus: 202,
    })
    .input(envAnalysisInput)
    .output(analysisStatusSchema)
    .mutation(async ({ ctx, input }) => (await startAnalysis(ctx, input.id)).status),

  latest: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/analyze', tags: TAG, summary: 'The latest analysis: progress, or its ranked index recommendations' } })
    .input(envAnalysisInput)
    .output(analysisStatusSchema)
    .query(({ ctx, input }) => latestAnalysis(ctx.store.db, input.id)),

  query: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/queries/{hash}/analysis', tags: TAG, summary: "A query's production plan, cost and index recommendations" } })
    .input(queryAnalysisInput)
    .output(queryAnalysisSchema)
    .query(({ ctx, input }) => readQueryAnalysis(ctx.store.db, input.id, input.hash)),

  ciRun: publicProcedure
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
