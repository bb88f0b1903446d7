// What an audited change touches, read before and after it: the settings a person set, never a
// secret (connection strings and webhook URLs are not settings of this kind and are never read here).
import { and, eq } from 'drizzle-orm';
import { connections, environments, memberships, users } from '../db/schema';
import type { Db } from '../db/store';
import { readStoredPolicy } from '../domain/policy';

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const decoded = (value: unknown) => {
  const s = str(value);
  if (s === undefined || !s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export const auditSettings = {
  async environment(db: Db, input: Record<string, unknown>) {
    const id = decoded(input.id);
    if (!id) return null;
    const [row] = await db
      .select({ name: environments.name, slug: environments.slug, snapshotIntervalSeconds: environments.snapshotIntervalSeconds })
      .from(environments)
      .where(eq(environments.id, id));
    return row ?? null;
  },
  async policy(db: Db, input: Record<string, unknown>) {
    const id = decoded(input.id);
    if (!id) return null;
    const [row] = await db.select({ policy: environments.policy }).from(environments).where(eq(environments.id, id));
    return row ? readStoredPolicy(row.policy) : null;
  },
  /** A connection's schema filters (its string is a secret and never read here). */
  async connectionFilters(db: Db, input: Record<string, unknown>) {
    const id = decoded(input.id);
    const connectionId = decoded(input.connectionId);
    if (!id || !connectionId) return null;
    const [row] = await db
      .select({ includeSchemas: connections.includeSchemas, excludeSchemas: connections.excludeSchemas })
      .from(connections)
      .where(and(eq(connections.environmentId, id), eq(connections.id, connectionId)));
    return row ?? null;
  },
  async member(db: Db, input: Record<string, unknown>) {
    const id = decoded(input.id);
    const email = decoded(input.email)?.trim().toLowerCase();
    if (!id || !email) return null;
    const [row] = await db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.environmentId, id), eq(memberships.email, email)));
    return row ?? null;
  },
  async userRole(db: Db, input: Record<string, unknown>) {
    const email = decoded(input.email)?.trim().toLowerCase();
    if (!email) return null;
    const [row] = await db.select({ role: users.role }).from(users).where(eq(users.email, email));
    return row ?? null;
  },
};
