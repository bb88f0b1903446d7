// CI runs: ingestion and the runs shown on the /ci page.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { ciRunDetail, ciRunSummary, getRunInput, ingestRunInput, ingestRunOutput, listRunsInput } from '../../shared/ci';
import { verdictInput, verdictSchema } from '../../shared/policy';
import { countRuns, listRuns, readRun, recordCiRun } from '../domain/ci-runs';
import { readVerdict } from '../verdict/read';
import { listOutput, procedure } from '../trpc';
import { rowsWithTotal } from './paging';

const TAG = ['CI runs'];

export const ciRouter = {
  ingest: procedure
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
      const { created, ...result } = await recordCiRun(ctx, input);
      if (!created) ctx.response.status = 200;
      return result;
    }),

  list: procedure
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
    .output(listOutput(ciRunSummary))
    .query(async ({ ctx, input }) => rowsWithTotal(ctx, await listRuns(ctx.store.db, { ...input, visible: ctx.visibleEnvironments() }))),

  /** tRPC only: the total the list's X-Total-Count header carries, for typed clients. */
  count: procedure
    .input(listRunsInput.pick({ environmentId: true, repo: true, pullRequest: true }))
    .output(z.object({ total: z.number().int() }))
    .query(async ({ ctx, input }) => ({ total: await countRuns(ctx.store.db, { ...input, visible: ctx.visibleEnvironments() }) })),

  get: procedure
    .meta({ openapi: { method: 'GET', path: '/ci/runs/{id}', tags: TAG, summary: 'Read one CI run with its queries' } })
    .input(getRunInput)
    .output(ciRunDetail)
    .query(({ ctx, input }) => readRun(ctx.store.db, input.id)),

  verdict: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/ci/runs/{id}/verdict',
        tags: TAG,
        summary: "Read a CI run's verdict",
        description:
          "pass, warn or fail by the environment's policy once the run is analyzed (computed from the current policy and " +
          'acknowledgements); pending until then; unavailable, with the reason, when no verdict can be given (never blocking).',
      },
    })
    .input(verdictInput)
    .output(verdictSchema)
    .query(({ ctx, input }) => readVerdict(ctx.store.db, input.id)),
} satisfies TRPCRouterRecord;
