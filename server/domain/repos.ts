// CI repositories linked to an environment. A repository has at most one environment (compared
// case-insensitively, as GitHub compares names), so every CI run it sends has exactly one home.
import { TRPCError } from '@trpc/server';
import { and, eq, sql } from 'drizzle-orm';
import { environments, repoLinks } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, isUniqueViolation } from '../errors';
import { newId } from '../ids';
import { notFoundInEnvironment, requireEnvironment } from './environments';

/** The 409 naming the environment the repository is linked to, or undefined when it is free. */
async function alreadyLinked(db: Db, repo: string) {
  const [owner] = await db
    .select({ id: environments.id, name: environments.name, slug: environments.slug, repo: repoLinks.repo })
    .from(repoLinks)
    .innerJoin(environments, eq(environments.id, repoLinks.environmentId))
    .where(eq(sql`lower(${repoLinks.repo})`, repo.toLowerCase()));
  return owner ? conflict(`Repository ${owner.repo} is already linked to environment "${owner.name}" (${owner.slug}, id ${owner.id})`) : undefined;
}

export async function linkRepo(db: Db, environmentId: string, repo: string): Promise<{ id: string }> {
  const id = newId('repo');
  try {
    await db.transaction(async (tx) => {
      await requireEnvironment(tx, environmentId);
      const existing = await alreadyLinked(tx, repo);
      if (existing) throw existing;
      await tx.insert(repoLinks).values({ id, environmentId, repo });
    });
  } catch (error) {
    // two links of the same repo at once: the unique index decides, report the winner
    if (isUniqueViolation(error)) throw (await alreadyLinked(db, repo)) ?? error;
    throw error;
  }
  return { id };
}

export async function unlinkRepo(db: Db, environmentId: string, repo: string): Promise<void> {
  const deleted = await db
    .delete(repoLinks)
    .where(and(eq(repoLinks.environmentId, environmentId), eq(sql`lower(${repoLinks.repo})`, repo.toLowerCase())))
    .returning({ id: repoLinks.id });
  if (deleted.length === 0) {
    const missing = new TRPCError({ code: 'NOT_FOUND', message: `Repository ${repo} is not linked to this environment` });
    await notFoundInEnvironment(db, environmentId, missing);
  }
}
