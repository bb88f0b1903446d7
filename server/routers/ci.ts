// CI runs: ingestion (spec section 6) and the runs shown on the /ci page.
import type { TRPCRouterRecord } from '@trpc/server';
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ciRunDetail, ciRunSummary, getRunInput, ingestRunInput, ingestRunOutput, listRunsInput } from '../../shared/ci';
import { ingestRun } from '../catalog/ingest';
import { fillRunCosts } from '../analysis/jobs';
import { ciRunQueries, ciRuns, environments } from '../db/schema';
import { notFound } from '../errors';
import { publicProcedure } from '../trpc';

const TAG = ['CI runs'];

const summaryColumns = {
  id: ciRuns.id,
  repo: ciRuns.repo,
  runId: ciRuns.runId,
  branch: ciRuns.branch,
  commitSha: ciRuns.commitSha,
  pullRequest: ciRuns.pullRequest,
  startedAt: ciRuns.startedAt,
  createdAt: ciRuns.createdAt,
  queryCount: ciRuns.queryCount,
  newQueryCount: ciRuns.newQueryCount,
  rejected: ciRuns.rejected,
  environmentId: environments.id,
  environmentName: environments.name,
  environmentSlug: environments.slug,
};

interface SummaryRow {
  id: string;
  repo: string;
  runId: string;
  branch: string | null;
  commitSha: string | null;
  pullRequest: number | null;
  startedAt: Date | null;
  createdAt: Date;
  queryCount: number;
  newQueryCount: number;
  rejected: unknown;
  environmentId: string | null;
  environmentName: string | null;
  environmentSlug: string | null;
}

function toSummary({ environmentId, environmentName, environmentSlug, startedAt, createdAt, rejected: _rejected, ...run }: SummaryRow) {
  return {
    ...run,
    startedAt: startedAt?.toISOString() ?? null,
    createdAt: createdAt.toISOString(),
    environment: environmentId ? { id: environmentId, name: environmentName!, slug: environmentSlug! } : null,
  };
}

const runFilters = (input: { environmentId?: string; repo?: string }): SQL | undefined => {
  const filters: SQL[] = [];
  if (input.environmentId) filters.push(eq(ciRuns.environmentId, input.environmentId));
  if (input.repo?.trim()) filters.push(eq(sql`lower(${ciRuns.repo})`, input.repo.trim().toLowerCase()));
  return filters.length ? and(...filters) : undefined;
};

export const ciRouter = {
  ingest: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/ci/runs',
        tags: TAG,
        summary: 'Ingest a CI run and its queries',
        description:
          'Idempotent on (repo, runId): posting a stored run again answers 200 with the same id and changes nothing. ' +
          'A run of a repository linked to an environment adds its queries to that catalog. Content-Encoding: gzip is accepted.',
      },
      successStatus: 201,
    })
    .input(ingestRunInput)
    .output(ingestRunOutput)
    .mutation(async ({ ctx, input }) => {
      const { created, ...result } = await ingestRun(ctx.store.db, input);
      if (!created) ctx.response.status = 200;
      else if (result.environmentId) await fillRunCosts(ctx.store.db, result.id);
      return result;
    }),

  list: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/ci/runs',
        tags: TAG,
        summary: 'List CI runs, newest first',
        description: 'The total number of matching runs is in the X-Total-Count header.',
      },
    })
    .input(listRunsInput)
    .output(z.array(ciRunSummary))
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const where = runFilters(input);
      const [rows, [count]] = await Promise.all([
        db
          .select(summaryColumns)
          .from(ciRuns)
          .leftJoin(environments, eq(environments.id, ciRuns.environmentId))
          .where(where)
          .orderBy(desc(ciRuns.createdAt), desc(ciRuns.id))
          .limit(input.limit)
          .offset(input.offset),
        db.select({ total: sql<number>`count(*)::int` }).from(ciRuns).where(where),
      ]);
      ctx.response.headers['X-Total-Count'] = String(count?.total ?? 0);
      return rows.map(toSummary);
    }),

  /** tRPC only: the total the list's X-Total-Count header carries, for typed clients. */
  count: publicProcedure
    .input(listRunsInput.pick({ environmentId: true, repo: true }))
    .output(z.object({ total: z.number().int() }))
    .query(async ({ ctx, input }) => {
      const [count] = await ctx.store.db.select({ total: sql<number>`count(*)::int` }).from(ciRuns).where(runFilters(input));
      return { total: count?.total ?? 0 };
    }),

  get: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/ci/runs/{id}', tags: TAG, summary: 'Read one CI run with its queries' } })
    .input(getRunInput)
    .output(ciRunDetail)
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const [run] = await db
        .select(summaryColumns)
        .from(ciRuns)
        .leftJoin(environments, eq(environments.id, ciRuns.environmentId))
        .where(eq(ciRuns.id, input.id));
      if (!run) throw notFound(`CI run ${input.id}`);
      const queries = await db
        .select({
          hash: ciRunQueries.hash,
          query: ciRunQueries.query,
          formattedQuery: ciRunQueries.formattedQuery,
          calls: ciRunQueries.calls,
          meanTimeMs: ciRunQueries.meanTimeMs,
        })
        .from(ciRunQueries)
        .where(eq(ciRunQueries.runId, run.id))
        .orderBy(sql`${ciRunQueries.calls} DESC NULLS LAST`, asc(ciRunQueries.hash));
      return { ...toSummary(run), rejected: run.rejected, queries };
    }),
} satisfies TRPCRouterRecord;
