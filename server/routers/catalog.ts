// An environment's query catalog: reading it, and the two sources besides CI (server/catalog/).
import type { TRPCRouterRecord } from '@trpc/server';
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { addQueryInput, catalogEntryFigures, syncProductionOutput } from '../../shared/ci';
import { catalogEntry, catalogQuery, envIdInput, getQueryInput, listQueriesInput } from '../../shared/environments';
import { addManualQuery, syncProduction } from '../catalog/sources';
import { catalogQueries, queryAnalyses } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { publicProcedure } from '../trpc';
import { requireEnvironment } from './environments';

const TAG = ['Query catalog'];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

// Spec 2.4's fields first; the production figures are extra fields a client may ignore.
const listEntry = catalogEntry.extend(catalogEntryFigures).extend({
  cost: z.number().nullable().meta({ description: 'Estimated production cost from the latest analysis (null before one)' }),
  recommendationCount: z.number().int().nullable().meta({ description: 'Indexes the latest analysis recommends for this query' }),
});
const singleEntry = catalogQuery.extend(catalogEntryFigures);

const countInput = listQueriesInput.pick({ id: true, source: true, q: true });

function catalogFilters(input: z.infer<typeof countInput>): SQL {
  const filters: SQL[] = [eq(catalogQueries.environmentId, input.id)];
  if (input.source) filters.push(eq(catalogQueries.lastSeenSource, input.source));
  const q = input.q?.trim();
  if (q) {
    const pattern = `%${escapeLike(q)}%`;
    filters.push(or(ilike(catalogQueries.formattedQuery, pattern), ilike(catalogQueries.query, pattern), eq(catalogQueries.hash, q))!);
  }
  return and(...filters)!;
}

async function countQueries(db: Db, input: z.infer<typeof countInput>): Promise<number> {
  const [count] = await db.select({ total: sql<number>`count(*)::int` }).from(catalogQueries).where(catalogFilters(input));
  return count?.total ?? 0;
}

async function readQuery(db: Db, environmentId: string, hash: string): Promise<z.infer<typeof singleEntry>> {
  const [row] = await db
    .select()
    .from(catalogQueries)
    .where(and(eq(catalogQueries.environmentId, environmentId), eq(catalogQueries.hash, hash)));
  if (!row) {
    await requireEnvironment(db, environmentId);
    throw notFound(`Query ${hash}`);
  }
  return {
    id: row.id,
    hash: row.hash,
    query: row.query,
    formattedQuery: row.formattedQuery,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    lastSeenSource: row.lastSeenSource,
    ciRunCount: row.ciRunCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    productionCalls: row.productionCalls,
    productionMeanTimeMs: row.productionMeanTimeMs,
  };
}

export const catalogRouter = {
  list: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/queries',
        tags: TAG,
        summary: 'List catalog queries, most recently seen first',
        description: 'The total number of matching queries is in the X-Total-Count header.',
      },
    })
    .input(listQueriesInput)
    .output(z.array(listEntry))
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      await requireEnvironment(db, input.id);
      const [rows, total] = await Promise.all([
        db
          .select({
            id: catalogQueries.id,
            hash: catalogQueries.hash,
            formattedQuery: catalogQueries.formattedQuery,
            firstSeenAt: catalogQueries.firstSeenAt,
            lastSeenAt: catalogQueries.lastSeenAt,
            lastSeenSource: catalogQueries.lastSeenSource,
            ciRunCount: catalogQueries.ciRunCount,
            productionCalls: catalogQueries.productionCalls,
            productionMeanTimeMs: catalogQueries.productionMeanTimeMs,
            cost: queryAnalyses.cost,
            recommendationCount: queryAnalyses.recommendationCount,
          })
          .from(catalogQueries)
          .leftJoin(queryAnalyses, and(eq(queryAnalyses.environmentId, catalogQueries.environmentId), eq(queryAnalyses.hash, catalogQueries.hash)))
          .where(catalogFilters(input))
          .orderBy(desc(catalogQueries.lastSeenAt), desc(catalogQueries.id))
          .limit(input.limit)
          .offset(input.offset),
        countQueries(db, input),
      ]);
      ctx.response.headers['X-Total-Count'] = String(total);
      return rows.map((r) => ({ ...r, firstSeenAt: r.firstSeenAt.toISOString(), lastSeenAt: r.lastSeenAt.toISOString() }));
    }),

  /** tRPC only: the total the list's X-Total-Count header carries, for typed clients. */
  count: publicProcedure
    .input(countInput)
    .output(z.object({ total: z.number().int() }))
    .query(async ({ ctx, input }) => {
      await requireEnvironment(ctx.store.db, input.id);
      return { total: await countQueries(ctx.store.db, input) };
    }),

  get: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/queries/{hash}', tags: TAG, summary: 'Read one catalog query by its fingerprint hash' } })
    .input(getQueryInput)
    .output(singleEntry)
    .query(({ ctx, input }) => readQuery(ctx.store.db, input.id, input.hash)),

  add: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/queries',
        tags: TAG,
        summary: 'Add a query by hand, or refresh it (lastSeenSource manual)',
        description: 'Answers 201 when the query is new to the catalog, 200 when it was there and has been refreshed.',
      },
      successStatus: 201,
    })
    .input(addQueryInput)
    .output(singleEntry)
    .mutation(async ({ ctx, input }) => {
      const { hash, created } = await addManualQuery(ctx.store.db, input.id, input.query, input.hash);
      if (!created) ctx.response.status = 200;
      return readQuery(ctx.store.db, input.id, hash);
    }),

  syncProduction: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/queries/sync-production',
        tags: TAG,
        summary: "Add production's pg_stat_statements to the catalog",
        description:
          "Reads pg_stat_statements of the environment's production connections through read-only sessions and upserts each " +
          'statement with lastSeenSource production and its calls and mean time (ciRunCount unchanged). 409 without a ' +
          'production connection; 502 when none of them can be read. Each connection reports its own result.',
      },
    })
    .input(envIdInput)
    .output(syncProductionOutput)
    .mutation(({ ctx, input }) => syncProduction({ db: ctx.store.db, secrets: ctx.secrets }, input.id)),
} satisfies TRPCRouterRecord;
