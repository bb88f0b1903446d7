// The analysis cache's one bulk write (cache.ts reads it with the query builder).
import { sql, type SQL } from 'drizzle-orm';
import type { PlannedQuery } from '../../shared/analysis';

interface CacheKey {
  environmentId: string;
  snapshotId: string;
  digest: string;
}

/**
 * Caches the plans made against (snapshot, digest), all in one statement: the rows travel as one
 * JSON parameter (a VALUES list binds a parameter per field, and a catalog of thousands would pass
 * PostgreSQL's 65,535). Nothing is cached when the snapshot was pruned while they were planned, and
 * a plan another caller cached first is kept.
 */
export function insertPlans({ environmentId, snapshotId, digest }: CacheKey, planned: readonly PlannedQuery[], plannedAt: Date): SQL {
  const rows = planned.map((q) => ({
    hash: q.hash,
    cost: q.cost,
    plan_shape: q.planShape,
    plan: q.plan,
    plan_after: q.planAfter,
    indexes_used: q.indexesUsed ?? [],
    tables_used: q.tablesUsed ?? [],
    recommendations: q.recommendations,
    alternatives: q.alternatives ?? [],
    error: q.error,
  }));
  return sql`
    INSERT INTO query_plans (environment_id, snapshot_id, schema_digest, hash, cost, plan_shape, plan, plan_after,
                             indexes_used, tables_used, recommendations, alternatives, error, planned_at)
    SELECT ${environmentId}, ${snapshotId}, ${digest}, r.hash, r.cost, r.plan_shape, r.plan, r.plan_after,
           coalesce(r.indexes_used, '[]'::jsonb), coalesce(r.tables_used, '[]'::jsonb), coalesce(r.recommendations, '[]'::jsonb),
           coalesce(r.alternatives, '[]'::jsonb), r.error, ${plannedAt.toISOString()}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(hash text, cost float8, plan_shape text, plan jsonb, plan_after jsonb,
         indexes_used jsonb, tables_used jsonb, recommendations jsonb, alternatives jsonb, error text)
    WHERE EXISTS (SELECT 1 FROM production_snapshots WHERE id = ${snapshotId})
    ON CONFLICT (environment_id, snapshot_id, schema_digest, hash) DO NOTHING`;
}
