// The statements of a run's comparison with its baseline (run-diff.ts).
import { sql, type SQL } from 'drizzle-orm';

interface RunKey {
  id: string;
  repo: string;
  branch: string | null;
  createdAt: Date;
}

/**
 * The run's baseline, at most one row (id, run_id, branch, created_at): an earlier run of the same
 * repository, on the run's own branch if there is one, else on the default branch (main or master),
 * the latest first. Earlier is by (created_at, id), as runs are ordered everywhere.
 */
export function baselineRun(run: RunKey): SQL {
  return sql`
    SELECT id, run_id, branch, created_at FROM ci_runs
    WHERE lower(repo) = lower(${run.repo}) AND id <> ${run.id}
      AND (created_at, id) < (${run.createdAt.toISOString()}::timestamptz, ${run.id})
      AND (branch = ${run.branch} OR branch IN ('main', 'master'))
    ORDER BY (branch IS NOT DISTINCT FROM ${run.branch}) DESC, created_at DESC, id DESC
    LIMIT 1`;
}

/** The run's queries, most costly first, each beside the same query in the baseline (if any). */
export function queriesBesideBaseline(runId: string, baselineId: string | null): SQL {
  return sql`
    SELECT q.hash, q.formatted_query, q.cost, q.recommendation_count,
           b.cost AS previous_cost, b.recommendation_count AS previous_recommendation_count,
           (b.hash IS NOT NULL) AS in_baseline
    FROM ci_run_queries q
    LEFT JOIN ci_run_queries b ON b.run_id = ${baselineId} AND b.hash = q.hash
    WHERE q.run_id = ${runId}
    ORDER BY q.cost DESC NULLS LAST, q.hash`;
}
