// CI repositories linked to an environment.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { idOutput, linkRepoInput, unlinkRepoInput } from '../../shared/environments';
import { linkRepo, unlinkRepo } from '../domain/repos';
import { procedure } from '../trpc';

const TAG = ['Repos'];

export const reposRouter = {
  link: procedure
    .meta({ openapi: { method: 'POST', path: '/env/{id}/repos', tags: TAG, summary: 'Link a CI repository' }, successStatus: 201 })
    .input(linkRepoInput)
    .output(idOutput)
    .mutation(({ ctx, input }) => linkRepo(ctx.store.db, input.id, input.repo)),

  unlink: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/repos/{repo}', tags: TAG, summary: 'Unlink a CI repository (repo is org%2Frepo)' },
      successStatus: 204,
    })
    .input(unlinkRepoInput)
    .output(z.void())
    .mutation(({ ctx, input }) => unlinkRepo(ctx.store.db, input.id, input.repo)),
} satisfies TRPCRouterRecord;
