// An Analyze's one bulk write (jobs.ts runs it, beside row updates through the query builder).
import { sql, type SQL } from 'drizzle-orm';
import type { Recommendation } from '../../shared/analysis';
import type { PlanNode } from '../../shared/plan';

/** One query's latest analysis, named as query_analyses' columns. */
export interface QueryAnalysisRow {
  hash: string;
  cost: number | null;
  plan_shape: string | null;
  plan: PlanNode | null | undefined;
  plan_after: PlanNode | null | undefined;
  recommendations: Recommendation[];
  recommendation_count: number;
  total_saved: number | null;
  error: string | null | undefined;
  warnings: string[];
}

/** One row per hash, the first: an upsert may not touch the same row twice in one statement. */
function firstOfEachHash<T extends { hash: string }>(rows: readonly T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.hash) && seen.add(r.hash));
}

/**
 * Every query's latest analysis in one set-based upsert (the first result of a hash counts): the
 * rows travel as one JSON parameter, whatever their number. Rows are replaced in place, not deleted
 * and inserted again, so the catalog's copy of each cost (triggers, migration 0009) changes only
 * where the cost did.
 */
export function upsertQueryAnalyses(environmentId: string, analysisId: string, analyzedAt: string, rows: readonly QueryAnalysisRow[]): SQL {
  return sql`
    INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, plan, plan_after,
                                recommendations, recommendation_count, total_saved, error, warnings, analyzed_at)
    SELECT ${environmentId}, r.hash, ${analysisId}, r.cost, r.plan_shape, r.plan, r.plan_after,
           coalesce(r.recommendations, '[]'::jsonb), r.recommendation_count, r.total_saved, r.error,
           coalesce(r.warnings, '[]'::jsonb), ${analyzedAt}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(firstOfEachHash(rows))}::jsonb) AS r(hash text, cost float8, plan_shape text, plan jsonb, plan_after jsonb,
         recommendations jsonb, recommendation_count int, total_saved float8, error text, warnings jsonb)
    ON CONFLICT (environment_id, hash) DO UPDATE SET
      analysis_id = excluded.analysis_id, cost = excluded.cost, plan_shape = excluded.plan_shape, plan = excluded.plan,
      plan_after = excluded.plan_after, recommendations = excluded.recommendations,
      recommendation_count = excluded.recommendation_count, total_saved = excluded.total_saved, error = excluded.error,
      warnings = excluded.warnings, analyzed_at = excluded.analyzed_at`;
}
