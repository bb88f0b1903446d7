// Query analysis with production statistics (issue 6): start an environment's analysis, follow it,
// and read what it found per query and per CI run.
import type { TRPCRouterRecord } from '@trpc/server';
import { and, desc, eq } from 'drizzle-orm';
import {
  analysisStatusSchema,
  ciRunAnalysisSchema,
  envAnalysisInput,
  queryAnalysisInput,
  queryAnalysisSchema,
  runAnalysisInput,
  type PlanNode,
  type Recommendation,
} from '../../shared/analysis';
import { analysisRuns, queryAnalyses } from '../db/schema';
import { notFound } from '../errors';
import { publicProcedure } from '../trpc';
import { requireEnvironment } from './environments';
import { startAnalysis, toStatus } from '../analysis/jobs';
import { compareRun } from '../analysis/run-diff';

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
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const [row] = await db
        .select()
        .from(analysisRuns)
        .where(eq(analysisRuns.environmentId, input.id))
        .orderBy(desc(analysisRuns.startedAt), desc(analysisRuns.id))
        .limit(1);
      if (!row) {
        await requireEnvironment(db, input.id);
        throw notFound('Analysis of this environment (none has run yet)');
      }
      return toStatus(row);
    }),

  query: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/queries/{hash}/analysis', tags: TAG, summary: "A query's production plan, cost and index recommendations" } })
    .input(queryAnalysisInput)
    .output(queryAnalysisSchema)
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const [row] = await db
        .select()
        .from(queryAnalyses)
        .where(and(eq(queryAnalyses.environmentId, input.id), eq(queryAnalyses.hash, input.hash)));
      if (!row) {
        await requireEnvironment(db, input.id);
        throw notFound(`Analysis of query ${input.hash}`);
      }
      return {
        hash: row.hash,
        analysisId: row.analysisId,
        cost: row.cost,
        planShape: row.planShape,
        plan: (row.plan as PlanNode | null) ?? null,
        planAfter: (row.planAfter as PlanNode | null) ?? null,
        recommendations: row.recommendations as Recommendation[],
        error: row.error,
        analyzedAt: row.analyzedAt.toISOString(),
      };
    }),

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
