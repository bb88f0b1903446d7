// CI repositories linked to an environment. A repository has at most one environment, so every
// CI run it sends has exactly one home.
import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { idOutput, linkRepoInput, unlinkRepoInput } from '../../shared/environments';
import { environments, repoLinks } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, isUniqueViolation } from '../errors';
import { newId } from '../ids';
import { publicProcedure } from '../trpc';
import { requireEnvironment } from './environments';

const TAG = ['Repos'];

async function alreadyLinked(db: Db, repo: string) {
  const [owner] = await db
    .select({ id: environments.id, name: environments.name, slug: environments.slug, repo: repoLinks.repo })
    .from(repoLinks)
    .innerJoin(environments, eq(environments.id, repoLinks.environmentId))
    .where(eq(sql`lower(${repoLinks.repo})`, repo.toLowerCase()));
  return owner ? conflict(`Repository ${owner.repo} is already linked to environment "${owner.name}" (${owner.slug}, id ${owner.id})`) : undefined;
}

export const reposRouter = {
  link: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/env/{id}/repos', tags: TAG, summary: 'Link a CI repository' }, successStatus: 201 })
    .input(linkRepoInput)
    .output(idOutput)
    .mutation(async ({ ctx, input }) => {
      const id = newId('repo');
      try {
        await ctx.store.db.transaction(async (tx) => {
          await requireEnvironment(tx, input.id);
          const existing = await alreadyLinked(tx, input.repo);
          if (existing) throw existing;
          await tx.insert(repoLinks).values({ id, environmentId: input.id, repo: input.repo });
        });
      } catch (error) {
        // two links of the same repo at once: the unique index decides, report the winner
        if (isUniqueViolation(error)) throw (await alreadyLinked(ctx.store.db, input.repo)) ?? error;
        throw error;
      }
      return { id };
    }),

  unlink: publicProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/repos/{repo}', tags: TAG, summary: 'Unlink a CI repository (repo is org%2Frepo)' },
      successStatus: 204,
    })
    .input(unlinkRepoInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const deleted = await ctx.store.db
        .delete(repoLinks)
        .where(and(eq(repoLinks.environmentId, input.id), eq(sql`lower(${repoLinks.repo})`, input.repo.toLowerCase())))
        .returning({ id: repoLinks.id });
      if (deleted.length === 0) {
        await requireEnvironment(ctx.store.db, input.id);
        throw new TRPCError({ code: 'NOT_FOUND', message: `Repository ${input.repo} is not linked to this environment` });
      }
    }),
} satisfies TRPCRouterRecord;
