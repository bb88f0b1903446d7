// What changed in a CI run against its baseline: the previous run of the same repository and
// branch, else the latest earlier run of the default branch (main or master).
import { eq } from 'drizzle-orm';
import type { CiRunAnalysis } from '../../shared/analysis';
import { toIsoDate } from '../../shared/dates';
import { ciRuns } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { rowsOf } from '../catalog/sql';
import { classifyChange } from './run-change';
import { baselineRun, queriesBesideBaseline } from './run-diff.sql';

interface BaselineRow extends Record<string, unknown> {
  id: string;
  run_id: string;
  branch: string | null;
  created_at: string | Date;
}

/** The run's queries, most costly first, each with its baseline figures and what changed; 404 for an unknown run. */
export async function compareRun(db: Db, id: string): Promise<CiRunAnalysis> {
  const [run] = await db.select({ id: ciRuns.id, repo: ciRuns.repo, branch: ciRuns.branch, createdAt: ciRuns.createdAt }).from(ciRuns).where(eq(ciRuns.id, id));
  if (!run) throw notFound(`CI run ${id}`);
  // the run by its key through the builder; choosing its baseline and pairing the two runs' queries are run-diff.sql.ts
  const [baseline] = await rowsOf<BaselineRow>(db, baselineRun(run));
  const queries = await rowsOf<{
    hash: string;
    formatted_query: string;
    cost: number | null;
    recommendation_count: number | null;
    previous_cost: number | null;
    previous_recommendation_count: number | null;
    in_baseline: boolean;
  }>(db, queriesBesideBaseline(run.id, baseline?.id ?? null));
  return {
    runId: run.id,
    baseline: baseline ? { id: baseline.id, runId: baseline.run_id, branch: baseline.branch, createdAt: toIsoDate(baseline.created_at) } : null,
    queries: queries.map((q) => ({
      hash: q.hash,
      formattedQuery: q.formatted_query,
      cost: q.cost,
      previousCost: q.previous_cost,
      recommendationCount: q.recommendation_count,
      previousRecommendationCount: q.previous_recommendation_count,
      change: classifyChange({
        hasBaseline: baseline !== undefined,
        inBaseline: q.in_baseline,
        cost: q.cost,
        previousCost: q.previous_cost,
        recommendationCount: q.recommendation_count,
        previousRecommendationCount: q.previous_recommendation_count,
      }),
    })),
  };
}
