// Environments: create, list, read (with connections and repos), rename, delete.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import {
  createEnvironmentInput,
  envIdInput,
  environmentDetail,
  environmentSummary,
  idOutput,
  updatedEnvironment,
  updateEnvironmentInput,
} from '../../shared/environments';
import { createEnvironment, deleteEnvironment, listEnvironments, readEnvironment, updateEnvironment } from '../domain/environments';
import { snapshotRefreshSchema } from '../../shared/snapshot';
import { refreshSnapshot } from '../verdict/snapshots';
import { listOutput, procedure } from '../trpc';

const TAG = ['Environments'];

export const environmentsRouter = {
  create: procedure
    .meta({ openapi: { method: 'POST', path: '/env', tags: TAG, summary: 'Create an environment' }, successStatus: 201 })
    .input(createEnvironmentInput)
    .output(idOutput)
    .mutation(({ ctx, input }) => createEnvironment(ctx.store.db, input, ctx.principal?.kind === 'person' ? ctx.principal.email : undefined)),

  list: procedure
    .meta({ openapi: { method: 'GET', path: '/env', tags: TAG, summary: 'List environments' } })
    .input(z.object({}).optional())
    .output(listOutput(environmentSummary))
    .query(({ ctx }) => listEnvironments(ctx.store.db, ctx.visibleEnvironments())),

  get: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}', tags: TAG, summary: 'Read an environment with its connections and repos' } })
    .input(envIdInput)
    .output(environmentDetail)
    .query(({ ctx, input }) => readEnvironment(ctx.store.db, input.id, ctx.config.snapshotIntervalSeconds)),

  update: procedure
    .meta({ openapi: { method: 'PATCH', path: '/env/{id}', tags: TAG, summary: 'Rename an environment, change its slug or its production history interval' } })
    .input(updateEnvironmentInput)
    .output(updatedEnvironment)
    .mutation(({ ctx, input }) => updateEnvironment(ctx.store.db, input)),

  delete: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}', tags: TAG, summary: 'Delete an environment, its connections, repo links and catalog' },
      successStatus: 204,
    })
    .input(envIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteEnvironment(ctx.store.db, input.id)),

  refreshSnapshot: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/snapshot',
        tags: TAG,
        summary: "Read production's schema and statistics again now, for the CI runs' verdicts (runs in the background)",
        description: 'Otherwise they are read again when older than SNAPSHOT_MAX_AGE_SECONDS. 409 when the environment has no production connection.',
      },
      successStatus: 202,
    })
    .input(envIdInput)
    .output(snapshotRefreshSchema)
    .mutation(({ ctx, input }) => refreshSnapshot(ctx, input.id)),
} satisfies TRPCRouterRecord;
