// Production history: a query's work over time, the heaviest queries of a window, regressions.
import type { TRPCRouterRecord } from '@trpc/server';
import { envIdInput } from '../../shared/environments';
import { historyPoint, historyReadingOutput, queryHistoryInput, regressedQuery, regressedQueriesInput, topQueriesInput, topQuery } from '../../shared/history';
import { conflict, notFound } from '../errors';
import { takeHistoryReading } from '../history/reading';
import { queryHistory, regressedQueries, topQueries, windowOf } from '../history/read';
import { listOutput, procedure } from '../trpc';

const TAG = ['Production history'];
const WINDOW = '`from` and `to` are ISO 8601 (default: the last 24 hours); 400 when `from` is not before `to` or the window is longer than 400 days.';

export const historyRouter = {
  query: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/queries/{hash}/history',
        tags: TAG,
        summary: "One query's production work over time: a point per reading (per hour past full-resolution retention)",
        description: WINDOW,
      },
    })
    .input(queryHistoryInput)
    .output(listOutput(historyPoint))
    .query(({ ctx, input }) => queryHistory(ctx.store, input.id, input.hash, windowOf(input))),

  top: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/history/top',
        tags: TAG,
        summary: "The environment's heaviest production queries in a window, by total time, calls or mean time",
        description: WINDOW,
      },
    })
    .input(topQueriesInput)
    .output(listOutput(topQuery))
    .query(({ ctx, input }) => topQueries(ctx.store.db, input.id, windowOf(input), input.by, input.limit)),

  regressed: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/history/regressed',
        tags: TAG,
        summary: 'Queries whose mean time in the window rose by more than `threshold` percent against the previous window of the same length',
        description: WINDOW,
      },
    })
    .input(regressedQueriesInput)
    .output(listOutput(regressedQuery))
    .query(({ ctx, input }) => regressedQueries(ctx.store.db, input.id, windowOf(input), input.threshold, input.limit)),

  // takes a reading; the procedure and its path keep the name clients already call
  snapshot: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/history/snapshot',
        tags: TAG,
        summary: "Read production's pg_stat_statements now, besides the schedule",
        description:
          "A connection's first reading stores no work (its result is `baseline`); each later one stores the work done since the previous reading. " +
          '409 without a production connection. Each connection reports its own result.',
      },
    })
    .input(envIdInput)
    .output(historyReadingOutput)
    .mutation(async ({ ctx, input }) => {
      const outcome = await takeHistoryReading(ctx, input.id);
      if (!outcome) throw notFound(`Environment ${input.id}`);
      if (outcome.connections.length === 0) throw conflict('The environment has no connection with role production; add one to record its history');
      return { ...outcome, at: outcome.at.toISOString() };
    }),
} satisfies TRPCRouterRecord;
