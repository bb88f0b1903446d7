// The verdict job's one bulk write (jobs.ts reads and updates rows with the query builder).
import { sql, type SQL } from 'drizzle-orm';
import type { Recommendation } from '../../shared/analysis';
import type { PlanNode } from '../../shared/plan';

/** One query of a run as its verdict judges it, named as ci_run_query_plans' columns. */
export interface RunQueryPlanRow {
  hash: string;
  cost: number | null;
  in_baseline: boolean;
  baseline_cost: number | null;
  recommendations: Pick<Recommendation, 'createIndex' | 'costAfter' | 'savedPct'>[];
  indexes_used: string[];
  schema_notes: string[];
  error: string | null;
  plan: PlanNode | null;
  baseline_plan: PlanNode | null;
  paired_hash: string | null;
  pairing: string | null;
}

/**
 * Stores a run's per-query verdict rows, all in one statement: the rows travel as one JSON
 * parameter (a VALUES list binds thirteen parameters a row, and a run of thousands of queries would
 * pass PostgreSQL's 65,535). A JSON null plan is stored as SQL NULL.
 */
export function insertRunQueryPlans(runId: string, rows: readonly RunQueryPlanRow[]): SQL {
  return sql`
    INSERT INTO ci_run_query_plans (run_id, hash, cost, in_baseline, baseline_cost, recommendations, indexes_used, schema_notes, error,
                                    plan, baseline_plan, paired_hash, pairing)
    SELECT ${runId}, r.hash, r.cost, r.in_baseline, r.baseline_cost, coalesce(r.recommendations, '[]'::jsonb),
           coalesce(r.indexes_used, '[]'::jsonb), coalesce(r.schema_notes, '[]'::jsonb), r.error,
           nullif(r.plan, 'null'::jsonb), nullif(r.baseline_plan, 'null'::jsonb), r.paired_hash, r.pairing
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(hash text, cost float8, in_baseline boolean, baseline_cost float8,
         recommendations jsonb, indexes_used jsonb, schema_notes jsonb, error text, plan jsonb, baseline_plan jsonb,
         paired_hash text, pairing text)`;
}
