// Environments, and the lookup every other area makes of one: a request about a thing inside an
// environment answers 404 for the environment when that is what is missing.
import { asc, desc, eq, inArray } from 'drizzle-orm';
import type { EnvironmentDetail, EnvironmentSummary } from '../../shared/environments';
import { connections, environments, memberships, repoLinks } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, isUniqueViolation, notFound } from '../errors';
import { newId } from '../ids';

/** What the API shows of a connection: never its connection string, only the masked form. */
export const connectionSummaryColumns = {
  id: connections.id,
  label: connections.label,
  role: connections.role,
  createdAt: connections.createdAt,
  maskedConnectionString: connections.maskedConnectionString,
  includeSchemas: connections.includeSchemas,
  excludeSchemas: connections.excludeSchemas,
};

const summaryColumns = { id: environments.id, name: environments.name, slug: environments.slug, createdAt: environments.createdAt };
type SummaryRow = { id: string; name: string; slug: string; createdAt: Date };

const toSummary = (row: SummaryRow): EnvironmentSummary => ({ id: row.id, name: row.name, slug: row.slug, createdAt: row.createdAt.toISOString() });
const slugTaken = (slug: string) => conflict(`An environment with slug "${slug}" already exists`);

/** Reads one environment or throws 404; usable inside a transaction. */
export async function requireEnvironment(db: Db, id: string): Promise<SummaryRow> {
  const [row] = await db.select(summaryColumns).from(environments).where(eq(environments.id, id));
  if (!row) throw notFound(`Environment ${id}`);
  return row;
}

/**
 * For a lookup inside an environment that found nothing: throws 404 for the environment when it
 * does not exist, else `missing` (the thing that was asked for).
 */
export async function notFoundInEnvironment(db: Db, environmentId: string, missing: Error): Promise<never> {
  await requireEnvironment(db, environmentId);
  throw missing;
}

/** `owner`: the person who creates it becomes its owner (none for the local user and the API_TOKEN, who are admins). */
export async function createEnvironment(db: Db, input: { name: string; slug: string }, owner?: string): Promise<{ id: string }> {
  const id = newId('env');
  try {
    await db.transaction(async (tx) => {
      await tx.insert(environments).values({ id, name: input.name, slug: input.slug });
      if (owner) await tx.insert(memberships).values({ environmentId: id, email: owner, role: 'owner' });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug);
    throw error;
  }
  return { id };
}

/** Newest first; `visible` null for every one, else only these. */
export async function listEnvironments(db: Db, visible: string[] | null = null): Promise<EnvironmentSummary[]> {
  if (visible && visible.length === 0) return [];
  const rows = await db
    .select(summaryColumns)
    .from(environments)
    .where(visible ? inArray(environments.id, visible) : undefined)
    .orderBy(desc(environments.createdAt), asc(environments.id));
  return rows.map(toSummary);
}

/** One environment with its connections (masked, never the secret) and linked repositories, oldest first. */
/** The environment with its connections and repos; `defaultIntervalSeconds` is the server's snapshot interval. */
export async function readEnvironment(db: Db, id: string, defaultIntervalSeconds: number): Promise<EnvironmentDetail> {
  const env = await requireEnvironment(db, id);
  const [conns, repos] = await Promise.all([
    db.select(connectionSummaryColumns).from(connections).where(eq(connections.environmentId, env.id)).orderBy(asc(connections.createdAt), asc(connections.id)),
    db
      .select({ id: repoLinks.id, repo: repoLinks.repo, createdAt: repoLinks.createdAt })
      .from(repoLinks)
      .where(eq(repoLinks.environmentId, env.id))
      .orderBy(asc(repoLinks.createdAt), asc(repoLinks.id)),
  ]);
  const [settings] = await db.select({ snapshotIntervalSeconds: environments.snapshotIntervalSeconds }).from(environments).where(eq(environments.id, env.id));
  return {
    ...toSummary(env),
    snapshotIntervalSeconds: settings?.snapshotIntervalSeconds ?? null,
    effectiveSnapshotIntervalSeconds: settings?.snapshotIntervalSeconds ?? defaultIntervalSeconds,
    connections: conns.map((c) => ({ ...c, createdAt: c.createdAt.toISOString() })),
    repos: repos.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
  };
}

export async function updateEnvironment(
  db: Db,
  input: { id: string; name?: string; slug?: string; snapshotIntervalSeconds?: number | null },
): Promise<EnvironmentSummary & { snapshotIntervalSeconds: number | null }> {
  const changes: { name?: string; slug?: string; snapshotIntervalSeconds?: number | null; updatedAt: Date } = { updatedAt: new Date() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.snapshotIntervalSeconds !== undefined) changes.snapshotIntervalSeconds = input.snapshotIntervalSeconds;
  try {
    const [row] = await db
      .update(environments)
      .set(changes)
      .where(eq(environments.id, input.id))
      .returning({ ...summaryColumns, snapshotIntervalSeconds: environments.snapshotIntervalSeconds });
    if (!row) throw notFound(`Environment ${input.id}`);
    return { ...toSummary(row), snapshotIntervalSeconds: row.snapshotIntervalSeconds };
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug ?? '');
    throw error;
  }
}

/** Its connections, repo links and catalog go with it (ON DELETE CASCADE, one statement); CI runs stay, untagged. */
export async function deleteEnvironment(db: Db, id: string): Promise<void> {
  const deleted = await db.delete(environments).where(eq(environments.id, id)).returning({ id: environments.id });
  if (deleted.length === 0) throw notFound(`Environment ${id}`);
}
