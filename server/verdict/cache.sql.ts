// The analysis cache's one bulk write (cache.ts reads it with the query builder).
import { sql, type SQL } from 'drizzle-orm';
import type { PlannedQuery } from '../../shared/analysis';

interface CacheKey {
  environmentId: string;
  snapshotId: string;
  digest: string;
}

/**
 * Caches the plans made against (snapshot, digest), all in one statement: the queries travel as one
 * JSON parameter as planned, their fields read by name (a VALUES list binds a parameter per field,
 * and a catalog of thousands would pass PostgreSQL's 65,535). Nothing is cached when the snapshot
 * was pruned while they were planned, and a plan another caller cached first is kept.
 */
export function insertPlans({ environmentId, snapshotId, digest }: CacheKey, planned: readonly PlannedQuery[], plannedAt: Date): SQL {
  return sql`
    INSERT INTO query_plans (environment_id, snapshot_id, schema_digest, hash, cost, plan_shape, plan, plan_after,
                             indexes_used, tables_used, recommendations, alternatives, error, planned_at)
    SELECT ${environmentId}, ${snapshotId}, ${digest}, q.hash, q.cost, q."planShape", q.plan, q."planAfter",
           coalesce(q."indexesUsed", '[]'::jsonb), coalesce(q."tablesUsed", '[]'::jsonb), coalesce(q.recommendations, '[]'::jsonb),
           coalesce(q.alternatives, '[]'::jsonb), q.error, ${plannedAt.toISOString()}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(planned)}::jsonb) AS q(hash text, cost float8, "planShape" text, plan jsonb, "planAfter" jsonb,
         "indexesUsed" jsonb, "tablesUsed" jsonb, recommendations jsonb, alternatives jsonb, error text)
    WHERE EXISTS (SELECT 1 FROM production_snapshots WHERE id = ${snapshotId})
    ON CONFLICT (environment_id, snapshot_id, schema_digest, hash) DO NOTHING`;
}
