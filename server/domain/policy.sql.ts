// The statement behind an acknowledgement's cost (policy.ts), which reads two sources in order.
import { sql, type SQL } from 'drizzle-orm';

/**
 * One row, `cost`: the query's cost in the environment's latest run with a finished verdict
 * analysis that planned it, else its cost in the latest Analyze, else null. Runs are latest by
 * (created_at, id), as everywhere runs are ordered.
 */
export function currentCostStatement(environmentId: string, hash: string): SQL {
  return sql`
    SELECT coalesce(
      (SELECT p.cost
         FROM ci_run_query_plans p
         JOIN ci_run_analyses a ON a.run_id = p.run_id AND a.status = 'done'
         JOIN ci_runs r ON r.id = p.run_id
        WHERE r.environment_id = ${environmentId} AND p.hash = ${hash} AND p.cost IS NOT NULL
        ORDER BY r.created_at DESC, r.id DESC
        LIMIT 1),
      (SELECT cost FROM query_analyses WHERE environment_id = ${environmentId} AND hash = ${hash})
    ) AS cost`;
}
