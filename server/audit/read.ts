// Reading the audit log, newest first: every entry for admins, an environment's for its owners.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AuditEntry } from '../../shared/auth';
import { auditLog } from '../db/schema';
import type { Db } from '../db/store';
import type { Page } from '../domain/paging';

/** `environments` null: every entry; otherwise only those of these environments (none: nothing). */
export async function readAudit(
  db: Db,
  filter: { environmentId?: string; environments: string[] | null; limit: number; offset: number },
): Promise<Page<AuditEntry>> {
  if (filter.environments && filter.environments.length === 0) return { rows: [], total: 0 };
  const where = and(
    filter.environmentId ? eq(auditLog.environmentId, filter.environmentId) : undefined,
    filter.environments ? inArray(auditLog.environmentId, filter.environments) : undefined,
  );
  const [rows, [count]] = await Promise.all([
    db.select().from(auditLog).where(where).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(filter.limit).offset(filter.offset),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(auditLog)
      .where(where),
  ]);
  return {
    rows: rows.map((r) => ({ ...r, at: r.at.toISOString(), before: r.before ?? null, after: r.after ?? null })),
    total: Number(count?.n ?? 0),
  };
}
