// What a CI run did to one query against its baseline run, as the /ci page flags it. Pure: no database.
import type { CiRunAnalysis } from '../../shared/analysis';

type RunChange = CiRunAnalysis['queries'][number]['change'];

/** A cost counts as risen when it is this much above the baseline's (planner noise stays quiet). */
export const COST_RISE_RATIO = 1.1;

/** One query of a run beside the same query (same hash) in the baseline run, if there is one. */
export interface QueryAgainstBaseline {
  /** Whether the run has a baseline at all (an earlier run of its branch or of main/master). */
  hasBaseline: boolean;
  /** Whether the baseline run has this query (never without a baseline). */
  inBaseline: boolean;
  cost: number | null;
  previousCost: number | null;
  recommendationCount: number | null;
  previousRecommendationCount: number | null;
}

/**
 * The one change shown for a query, the first that holds:
 * - cost_rose: the baseline had it and its cost is now more than COST_RISE_RATIO times the old one;
 * - gained_recommendation: an index is recommended for it now, and was not in the baseline (no
 *   baseline, the query not in it, or no recommendation there);
 * - new_query: the baseline does not have it;
 * - null: nothing to flag (both costs are needed to say a cost rose).
 */
export function classifyChange(q: QueryAgainstBaseline): RunChange {
  const compared = q.hasBaseline && q.inBaseline;
  if (compared && q.cost !== null && q.previousCost !== null && q.cost > q.previousCost * COST_RISE_RATIO) return 'cost_rose';
  const recommendations = q.recommendationCount ?? 0;
  const previousRecommendations = q.previousRecommendationCount ?? 0;
  if (recommendations > 0 && (!compared || previousRecommendations === 0)) return 'gained_recommendation';
  if (q.hasBaseline && !q.inBaseline) return 'new_query';
  return null;
}
