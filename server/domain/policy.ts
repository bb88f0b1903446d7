// An environment's CI verdict policy and its acknowledged queries. Both are read at verdict time
// (server/verdict/read.ts), so a change here takes effect on the next GET of any run's verdict.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { mergePolicy, policySchema, type Acknowledgement, type Policy, type PolicyPatch } from '../../shared/policy';
import { rowsOf } from '../catalog/sql';
import { catalogQueries, environments, queryAcknowledgements } from '../db/schema';
import type { Db } from '../db/store';
import { isForeignKeyViolation, notFound } from '../errors';
import { notFoundInEnvironment, requireEnvironment } from './environments';
import { currentCostStatement } from './policy.sql';

/**
 * A stored policy read whole: missing fields (none stored yet, or added since) take their defaults,
 * and so does a field a later, stricter rule refuses, rather than every read failing.
 */
export function readStoredPolicy(stored: unknown): Policy {
  const value = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  const parsed = policySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const refused = new Set(parsed.error.issues.map((issue) => issue.path[0]));
  return policySchema.parse(Object.fromEntries(Object.entries(value).filter(([key]) => !refused.has(key))));
}

export async function getPolicy(db: Db, environmentId: string): Promise<Policy> {
  const [row] = await db.select({ policy: environments.policy }).from(environments).where(eq(environments.id, environmentId));
  if (!row) throw notFound(`Environment ${environmentId}`);
  return readStoredPolicy(row.policy);
}

/**
 * Applies a partial update. The row is locked while the update is merged, so two updates of
 * different fields at once both land.
 */
export async function updatePolicy(db: Db, environmentId: string, patch: PolicyPatch): Promise<Policy> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ policy: environments.policy }).from(environments).where(eq(environments.id, environmentId)).for('update');
    if (!row) throw notFound(`Environment ${environmentId}`);
    const policy = mergePolicy(readStoredPolicy(row.policy), patch);
    await tx.update(environments).set({ policy, updatedAt: new Date() }).where(eq(environments.id, environmentId));
    return policy;
  });
}

const ackColumns = {
  hash: queryAcknowledgements.hash,
  note: queryAcknowledgements.note,
  cost: queryAcknowledgements.cost,
  acknowledgedAt: queryAcknowledgements.acknowledgedAt,
  acknowledgedBy: queryAcknowledgements.acknowledgedBy,
};
const toAcknowledgement = (row: {
  hash: string;
  note: string | null;
  cost: number | null;
  acknowledgedAt: Date;
  acknowledgedBy: string | null;
}): Acknowledgement => ({
  ...row,
  acknowledgedAt: row.acknowledgedAt.toISOString(),
});

/**
 * The cost an acknowledgement is measured from: the query's cost in the environment's latest run
 * with a finished verdict analysis that planned it, else its cost in the latest Analyze, else
 * unknown (an acknowledgement at an unknown cost holds whatever the cost does).
 */
async function currentCost(db: Pick<Db, 'execute'>, environmentId: string, hash: string): Promise<number | null> {
  const [row] = await rowsOf<{ cost: number | null }>(db, currentCostStatement(environmentId, hash));
  return row?.cost ?? null;
}

/**
 * Acknowledges a catalogued query of the environment at its current cost, or replaces an earlier
 * acknowledgement (new note, new cost). `created` is false when one was replaced.
 */
export async function acknowledgeQuery(
  db: Db,
  input: { id: string; hash: string; note?: string | null },
  actor: string,
): Promise<{ acknowledgement: Acknowledgement; created: boolean }> {
  const [known] = await db
    .select({ hash: catalogQueries.hash })
    .from(catalogQueries)
    .where(and(eq(catalogQueries.environmentId, input.id), eq(catalogQueries.hash, input.hash)));
  if (!known) await notFoundInEnvironment(db, input.id, notFound(`Query ${input.hash} in environment ${input.id}`));

  const cost = await currentCost(db, input.id, input.hash);
  try {
    const [row] = await db
      .insert(queryAcknowledgements)
      .values({ environmentId: input.id, hash: input.hash, note: input.note ?? null, cost, acknowledgedAt: sql`now()`, acknowledgedBy: actor })
      .onConflictDoUpdate({
        target: [queryAcknowledgements.environmentId, queryAcknowledgements.hash],
        set: {
          note: sql`excluded.note`,
          cost: sql`excluded.cost`,
          acknowledgedAt: sql`excluded.acknowledged_at`,
          acknowledgedBy: sql`excluded.acknowledged_by`,
        },
      })
      // xmax = 0 only on a row this statement inserted
      .returning({ ...ackColumns, created: sql<boolean>`(xmax = 0)` });
    if (!row) throw new Error('INSERT ... RETURNING gave no row');
    const { created, ...acknowledgement } = row;
    return { acknowledgement: toAcknowledgement(acknowledgement), created };
  } catch (error) {
    // the environment was deleted between the lookup and the insert
    if (isForeignKeyViolation(error)) throw notFound(`Environment ${input.id}`);
    throw error;
  }
}

export async function unacknowledgeQuery(db: Db, input: { id: string; hash: string }): Promise<void> {
  const deleted = await db
    .delete(queryAcknowledgements)
    .where(and(eq(queryAcknowledgements.environmentId, input.id), eq(queryAcknowledgements.hash, input.hash)))
    .returning({ hash: queryAcknowledgements.hash });
  if (deleted.length === 0) await notFoundInEnvironment(db, input.id, notFound(`Acknowledgement of query ${input.hash}`));
}

/** The environment's acknowledged queries, the latest first. */
export async function listAcknowledgements(db: Db, environmentId: string): Promise<Acknowledgement[]> {
  await requireEnvironment(db, environmentId);
  const rows = await db
    .select(ackColumns)
    .from(queryAcknowledgements)
    .where(eq(queryAcknowledgements.environmentId, environmentId))
    .orderBy(desc(queryAcknowledgements.acknowledgedAt), asc(queryAcknowledgements.hash));
  return rows.map(toAcknowledgement);
}
