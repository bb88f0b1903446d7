// An environment's query catalog: reading it, and the two sources besides CI (server/catalog/).
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { addQueryInput, syncProductionOutput } from '../../shared/ci';
import { catalogDetail as singleEntry, catalogListEntry as listEntry } from '../../shared/catalog';
import { envIdInput, getQueryInput, listQueriesInput } from '../../shared/environments';
import { addManualQuery } from '../catalog/manual';
import { syncProduction } from '../catalog/production-sync';
import { countQueries, listQueries, readQuery } from '../catalog/read';
import { listOutput, procedure } from '../trpc';
import { rowsWithTotal } from './paging';

const TAG = ['Query catalog'];

export const catalogRouter = {
  list: procedure
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
    .output(listOutput(listEntry))
    .query(async ({ ctx, input }) => rowsWithTotal(ctx, await listQueries(ctx.store, input))),

  /** tRPC only: the total the list's X-Total-Count header carries, for typed clients. */
  count: procedure
    .input(listQueriesInput.pick({ id: true, source: true, q: true }))
    .output(z.object({ total: z.number().int() }))
    .query(async ({ ctx, input }) => ({ total: await countQueries(ctx.store.db, input) })),

  get: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/queries/{hash}', tags: TAG, summary: 'Read one catalog query by its fingerprint hash' } })
    .input(getQueryInput)
    .output(singleEntry)
    .query(({ ctx, input }) => readQuery(ctx.store.db, input.id, input.hash)),

  add: procedure
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

  syncProduction: procedure
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
    .mutation(({ ctx, input }) => syncProduction(ctx.store.db, ctx.secrets, input.id)),
} satisfies TRPCRouterRecord;
