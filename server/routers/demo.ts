// The demo: a local PostgreSQL 18 with Pagila, its workload, and an environment that shows every
// part of querytrail on it (server/demo/).
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { remoteSyncResponseSchema } from '../../shared/analyzer-schema';
import { demoStatus, removeDemo, startDemo, syncDemo } from '../demo/demo';
import { demoStatusSchema } from '../demo/status';
import { procedure } from '../trpc';

const TAG = ['Demo'];
const noInput = z.object({}).optional();

export const demoRouter = {
  start: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/demo',
        tags: TAG,
        summary: 'Start the demo: a local PostgreSQL with Pagila, its workload, and the environment "Pagila demo" (runs in the background)',
        description: 'Answers 202 with the progress; poll GET /demo. When the demo exists already, nothing is made again (its database is started if stopped).',
      },
      successStatus: 202,
    })
    .input(noInput)
    .output(demoStatusSchema)
    .mutation(({ ctx }) => startDemo(ctx)),

  status: procedure
    .meta({ openapi: { method: 'GET', path: '/demo', tags: TAG, summary: "The demo's progress, step by step, and what it made" } })
    .input(noInput)
    .output(demoStatusSchema)
    .query(({ ctx }) => demoStatus(ctx)),

  remove: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/demo', tags: TAG, summary: 'Remove the demo: its environment, CI runs, PostgreSQL server and data folder' },
      successStatus: 204,
    })
    .input(noInput)
    .output(z.void())
    .mutation(({ ctx }) => removeDemo(ctx)),

  sync: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/demo/sync',
        tags: TAG,
        summary: "Read the demo database's schema and pg_stat_statements, as the analyzer's POST /postgres does",
        description: '409 before the demo is ready.',
      },
    })
    .input(noInput)
    .output(remoteSyncResponseSchema)
    .mutation(({ ctx }) => syncDemo(ctx)),
} satisfies TRPCRouterRecord;
