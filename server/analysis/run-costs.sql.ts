// CI runs keep each query's production cost and recommendation count as known when they were
// stored, so runs can be compared. They learn them from the environment's latest analysis: a new
// run at ingestion, the runs stored before an analysis when it finishes.
import { sql, type SQL } from 'drizzle-orm';

/** Which run queries learn their costs: one fresh run's, or every not-yet-costed one of an environment. */
type CostScope = { runId: string } | { environmentId: string };

/** Copies the costs in one UPDATE ... FROM, joining each run query to its environment's latest analysis. */
export function copyCostsToRuns(scope: CostScope): SQL {
  const which = 'runId' in scope ? sql`q.run_id = ${scope.runId}` : sql`r.environment_id = ${scope.environmentId} AND q.cost IS NULL`;
  return sql`
    UPDATE ci_run_queries q SET cost = a.cost, recommendation_count = a.recommendation_count
    FROM ci_runs r, query_analyses a
    WHERE ${which} AND r.id = q.run_id AND a.environment_id = r.environment_id AND a.hash = q.hash`;
}
