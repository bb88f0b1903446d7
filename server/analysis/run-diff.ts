// What changed in a CI run against its baseline: the previous run of the same repository and
// branch, else the latest earlier run of the default branch (main or master).
import { sql } from 'drizzle-orm';
import type { CiRunAnalysis } from '../../shared/analysis';
import { toIsoDate } from '../../shared/dates';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { rowsOf } from '../catalog/sql';
import { classifyChange } from './run-change';

interface RunRow extends Record<string, unknown> {
  id: string;
  run_id: string;
  repo: string;
  branch: string | null;
  created_at: string | Date;
}

/** The run's queries, most costly first, each with its baseline figures and what changed; 404 for an unknown run. */
export async function compareRun(db: Db, id: string): Promise<CiRunAnalysis> {
  const [run] = await rowsOf<RunRow>(db, sql`SELECT id, run_id, repo, branch, created_at FROM ci_runs WHERE id = ${id}`);
  if (!run) throw notFound(`CI run ${id}`);
  const [baseline] = await rowsOf<RunRow>(
    db,
    sql`SELECT id, run_id, repo, branch, created_at FROM ci_runs
        WHERE lower(repo) = lower(${run.repo}) AND id <> ${run.id}
          AND (created_at, id) < (${toIsoDate(run.created_at)}::timestamptz, ${run.id})
          AND (branch = ${run.branch} OR branch IN ('main', 'master'))
        ORDER BY (branch IS NOT DISTINCT FROM ${run.branch}) DESC, created_at DESC, id DESC
        LIMIT 1`,
  );
  const queries = await rowsOf<{
    hash: string;
    formatted_query: string;
    cost: number | null;
    recommendation_count: number | null;
    previous_cost: number | null;
    previous_recommendation_count: number | null;
    in_baseline: boolean;
  }>(
    db,
    sql`SELECT q.hash, q.formatted_query, q.cost, q.recommendation_count,
               b.cost AS previous_cost, b.recommendation_count AS previous_recommendation_count,
               (b.hash IS NOT NULL) AS in_baseline
        FROM ci_run_queries q
        LEFT JOIN ci_run_queries b ON b.run_id = ${baseline?.id ?? null} AND b.hash = q.hash
        WHERE q.run_id = ${run.id}
        ORDER BY q.cost DESC NULLS LAST, q.hash`,
  );
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
