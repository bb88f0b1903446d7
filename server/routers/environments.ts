// Environments: create, list, read (with connections and repos), rename, delete.
import type { TRPCRouterRecord } from '@trpc/server';
import { asc, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import {
  createEnvironmentInput,
  envIdInput,
  environmentDetail,
  environmentSummary,
  idOutput,
  updateEnvironmentInput,
  type EnvironmentSummary,
} from '../../shared/environments';
import { connections, environments, repoLinks } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, isUniqueViolation, notFound } from '../errors';
import { newId } from '../ids';
import { publicProcedure } from '../trpc';

const TAG = ['Environments'];
const summaryColumns = { id: environments.id, name: environments.name, slug: environments.slug, createdAt: environments.createdAt };
const toSummary = (row: { id: string; name: string; slug: string; createdAt: Date }): EnvironmentSummary => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
});
const slugTaken = (slug: string) => conflict(`An environment with slug "${slug}" already exists`);

/** Reads one environment or throws 404; usable inside a transaction. */
export async function requireEnvironment(db: Db, id: string) {
  const [row] = await db.select(summaryColumns).from(environments).where(eq(environments.id, id));
  if (!row) throw notFound(`Environment ${id}`);
  return row;
}

export const environmentsRouter = {
  create: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/env', tags: TAG, summary: 'Create an environment' }, successStatus: 201 })
    .input(createEnvironmentInput)
    .output(idOutput)
    .mutation(async ({ ctx, input }) => {
      const id = newId('env');
      try {
        await ctx.store.db.insert(environments).values({ id, name: input.name, slug: input.slug });
      } catch (error) {
        if (isUniqueViolation(error)) throw slugTaken(input.slug);
        throw error;
      }
      return { id };
    }),

  list: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env', tags: TAG, summary: 'List environments' } })
    .input(z.object({}).optional())
    .output(z.array(environmentSummary))
    .query(async ({ ctx }) => {
      const rows = await ctx.store.db.select(summaryColumns).from(environments).orderBy(desc(environments.createdAt), asc(environments.id));
      return rows.map(toSummary);
    }),

  get: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}', tags: TAG, summary: 'Read an environment with its connections and repos' } })
    .input(envIdInput)
    .output(environmentDetail)
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const env = await requireEnvironment(db, input.id);
      const [conns, repos] = await Promise.all([
        db
          .select({
            id: connections.id,
            label: connections.label,
            role: connections.role,
            createdAt: connections.createdAt,
            maskedConnectionString: connections.maskedConnectionString,
          })
          .from(connections)
          .where(eq(connections.environmentId, env.id))
          .orderBy(asc(connections.createdAt), asc(connections.id)),
        db
          .select({ id: repoLinks.id, repo: repoLinks.repo, createdAt: repoLinks.createdAt })
          .from(repoLinks)
          .where(eq(repoLinks.environmentId, env.id))
          .orderBy(asc(repoLinks.createdAt), asc(repoLinks.id)),
      ]);
      return {
        ...toSummary(env),
        connections: conns.map((c) => ({ ...c, createdAt: c.createdAt.toISOString() })),
        repos: repos.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
      };
    }),

  update: publicProcedure
    .meta({ openapi: { method: 'PATCH', path: '/env/{id}', tags: TAG, summary: 'Rename an environment or change its slug' } })
    .input(updateEnvironmentInput)
    .output(environmentSummary)
    .mutation(async ({ ctx, input }) => {
      const changes: { name?: string; slug?: string; updatedAt: Date } = { updatedAt: new Date() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.slug !== undefined) changes.slug = input.slug;
      try {
        const [row] = await ctx.store.db.update(environments).set(changes).where(eq(environments.id, input.id)).returning(summaryColumns);
        if (!row) throw notFound(`Environment ${input.id}`);
        return toSummary(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw slugTaken(input.slug ?? '');
        throw error;
      }
    }),

  delete: publicProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}', tags: TAG, summary: 'Delete an environment, its connections, repo links and catalog' },
      successStatus: 204,
    })
    .input(envIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      // Connections, repo links and catalog rows go with it (ON DELETE CASCADE, one statement).
      const deleted = await ctx.store.db.delete(environments).where(eq(environments.id, input.id)).returning({ id: environments.id });
      if (deleted.length === 0) throw notFound(`Environment ${input.id}`);
    }),
} satisfies TRPCRouterRecord;
