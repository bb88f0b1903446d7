// Reading CI verdicts. A verdict is computed on read from what the background analysis stored
// (ci_run_analyses, ci_run_query_plans) and the environment's CURRENT policy and acknowledgements,
// so acknowledging a query or changing the policy shows on the next read without re-planning.
// Several runs are read with a fixed number of queries (the /ci list shows a page of them).
import { and, eq, inArray } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Recommendation } from '../../shared/analysis';
import type { PlanNode } from '../../shared/plan';
import type { CallSite } from '../../shared/call-sites';
import type { Verdict, VerdictBaseline, VerdictStatus } from '../../shared/policy';
import { ciRunAnalyses, ciRunQueries, ciRunQueryPlans, ciRuns, environments, productionSnapshots, queryAcknowledgements } from '../db/schema';
import type { Db } from '../db/store';
import { readStoredPolicy } from '../domain/policy';
import { notFound } from '../errors';
import { evaluateVerdict, pendingVerdict, unavailableVerdict, type VerdictQuery } from './evaluate';
import { withStatisticsWarnings } from './statistics-warnings';

const baselineRuns = alias(ciRuns, 'baseline_runs');
const pairedQueries = alias(ciRunQueries, 'paired_queries');

interface RunRow {
  id: string;
  repo: string;
  queryCount: number;
  environmentId: string | null;
  policy: unknown;
  status: 'pending' | 'done' | 'failed' | 'unavailable' | null;
  reason: string | null;
  droppedIndexes: string[] | null;
  runNotes: string[] | null;
  done: number | null;
  total: number | null;
  analyzedAt: Date | null;
  snapshotAt: Date | null;
  baselineId: string | null;
  baselineRunId: string | null;
  baselineBranch: string | null;
  baselineCreatedAt: Date | null;
}

interface PlanRow {
  runId: string;
  hash: string;
  cost: number | null;
  inBaseline: boolean;
  baselineCost: number | null;
  recommendations: Recommendation[];
  indexesUsed: string[];
  schemaNotes: string[];
  formattedQuery: string | null;
  plan: PlanNode | null;
  baselinePlan: PlanNode | null;
  /** The baseline query this one edits (pairing.ts), why, and its text when a whole verdict is shown. */
  pairedHash: string | null;
  pairing: string | null;
  pairedFormattedQuery: string | null;
}

async function readRunRows(db: Db, runIds: readonly string[]): Promise<RunRow[]> {
  return db
    .select({
      id: ciRuns.id,
      repo: ciRuns.repo,
      queryCount: ciRuns.queryCount,
      environmentId: environments.id,
      policy: environments.policy,
      status: ciRunAnalyses.status,
      reason: ciRunAnalyses.reason,
      droppedIndexes: ciRunAnalyses.droppedIndexes,
      runNotes: ciRunAnalyses.runNotes,
      done: ciRunAnalyses.done,
      total: ciRunAnalyses.total,
      analyzedAt: ciRunAnalyses.analyzedAt,
      snapshotAt: productionSnapshots.readAt,
      baselineId: baselineRuns.id,
      baselineRunId: baselineRuns.runId,
      baselineBranch: baselineRuns.branch,
      baselineCreatedAt: baselineRuns.createdAt,
    })
    .from(ciRuns)
    .leftJoin(environments, eq(environments.id, ciRuns.environmentId))
    .leftJoin(ciRunAnalyses, eq(ciRunAnalyses.runId, ciRuns.id))
    .leftJoin(productionSnapshots, eq(productionSnapshots.id, ciRunAnalyses.snapshotId))
    .leftJoin(baselineRuns, eq(baselineRuns.id, ciRunAnalyses.baselineRunId))
    .where(inArray(ciRuns.id, [...runIds]));
}

/** The analyzed queries of done runs; their text and plans only when a whole verdict is shown. */
async function readPlanRows(db: Db, runIds: readonly string[], withText: boolean): Promise<PlanRow[]> {
  if (runIds.length === 0) return [];
  const columns = {
    runId: ciRunQueryPlans.runId,
    hash: ciRunQueryPlans.hash,
    cost: ciRunQueryPlans.cost,
    inBaseline: ciRunQueryPlans.inBaseline,
    baselineCost: ciRunQueryPlans.baselineCost,
    recommendations: ciRunQueryPlans.recommendations,
    indexesUsed: ciRunQueryPlans.indexesUsed,
    schemaNotes: ciRunQueryPlans.schemaNotes,
    pairedHash: ciRunQueryPlans.pairedHash,
    pairing: ciRunQueryPlans.pairing,
  };
  const where = inArray(ciRunQueryPlans.runId, [...runIds]);
  if (!withText) {
    const rows = await db.select(columns).from(ciRunQueryPlans).where(where);
    return rows.map((row) => ({ ...row, formattedQuery: null, plan: null, baselinePlan: null, pairedFormattedQuery: null }));
  }
  return (
    db
      .select({
        ...columns,
        formattedQuery: ciRunQueries.formattedQuery,
        plan: ciRunQueryPlans.plan,
        baselinePlan: ciRunQueryPlans.baselinePlan,
        pairedFormattedQuery: pairedQueries.formattedQuery,
      })
      .from(ciRunQueryPlans)
      .leftJoin(ciRunQueries, and(eq(ciRunQueries.runId, ciRunQueryPlans.runId), eq(ciRunQueries.hash, ciRunQueryPlans.hash)))
      // the paired query's text is the baseline run's
      .leftJoin(ciRunAnalyses, eq(ciRunAnalyses.runId, ciRunQueryPlans.runId))
      .leftJoin(pairedQueries, and(eq(pairedQueries.runId, ciRunAnalyses.baselineRunId), eq(pairedQueries.hash, ciRunQueryPlans.pairedHash)))
      .where(where)
  );
}

interface RunQueryFigures {
  calls: number | null;
  callSites: CallSite[];
}

/** Calls and call sites per query of these runs (the analyzed runs and their baselines), by run. */
async function readRunQueryFigures(db: Db, runIds: readonly string[]): Promise<Map<string, Map<string, RunQueryFigures>>> {
  const byRun = new Map<string, Map<string, RunQueryFigures>>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .select({ runId: ciRunQueries.runId, hash: ciRunQueries.hash, calls: ciRunQueries.calls, callSites: ciRunQueries.callSites })
    .from(ciRunQueries)
    .where(inArray(ciRunQueries.runId, [...new Set(runIds)]));
  for (const row of rows) {
    let figures = byRun.get(row.runId);
    if (!figures) byRun.set(row.runId, (figures = new Map()));
    figures.set(row.hash, { calls: row.calls, callSites: row.callSites });
  }
  return byRun;
}

async function readAcknowledgements(db: Db, environmentIds: readonly string[]) {
  if (environmentIds.length === 0) return new Map<string, { hash: string; cost: number | null }[]>();
  const rows = await db
    .select({ environmentId: queryAcknowledgements.environmentId, hash: queryAcknowledgements.hash, cost: queryAcknowledgements.cost })
    .from(queryAcknowledgements)
    .where(inArray(queryAcknowledgements.environmentId, [...environmentIds]));
  return groupBy(rows, (row) => row.environmentId);
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

function baselineOf(run: RunRow): VerdictBaseline | null {
  if (!run.baselineId || !run.baselineRunId || !run.baselineCreatedAt) return null;
  return { id: run.baselineId, runId: run.baselineRunId, branch: run.baselineBranch, createdAt: run.baselineCreatedAt.toISOString() };
}

type FiguresByRun = ReadonlyMap<string, ReadonlyMap<string, RunQueryFigures>>;

function verdictOf(run: RunRow, plans: readonly PlanRow[], acknowledgements: readonly { hash: string; cost: number | null }[], figures: FiguresByRun): Verdict {
  const policy = readStoredPolicy(run.policy);
  if (!run.environmentId) {
    return unavailableVerdict(`Repository ${run.repo} was not linked to an environment when this run was posted`, policy);
  }
  switch (run.status) {
    case null:
      return unavailableVerdict('No verdict analysis was recorded for this run', policy);
    case 'pending':
      return pendingVerdict({
        policy,
        queries: run.queryCount,
        baseline: baselineOf(run),
        snapshotAt: iso(run.snapshotAt),
        progress: { done: run.done ?? 0, total: run.total ?? 0 },
      });
    case 'failed':
      return unavailableVerdict(run.reason ? `The analysis of this run failed: ${run.reason}` : 'The analysis of this run failed', policy);
    case 'unavailable':
      return unavailableVerdict(run.reason ?? 'No verdict can be given for this run', policy);
    case 'done':
      break;
  }
  const baseline = baselineOf(run);
  const runFigures = figures.get(run.id);
  const baselineFigures = baseline ? figures.get(baseline.id) : undefined;
  const queries: VerdictQuery[] = plans.map((plan) => ({
    hash: plan.hash,
    formattedQuery: plan.formattedQuery ?? '',
    cost: plan.cost,
    recommendations: plan.recommendations,
    indexesUsedInProduction: plan.indexesUsed,
    schemaNotes: plan.schemaNotes,
    plan: plan.plan,
    baselinePlan: plan.baselinePlan,
    calls: runFigures?.get(plan.hash)?.calls ?? null,
    callSites: runFigures?.get(plan.hash)?.callSites ?? [],
    pairedWith: plan.pairedHash
      ? { hash: plan.pairedHash, formattedQuery: plan.pairedFormattedQuery ?? '', cost: plan.baselineCost, plan: plan.baselinePlan, reason: plan.pairing ?? '' }
      : null,
  }));
  const verdict = evaluateVerdict({
    queries,
    // Baseline costs were planned with the run, on the same snapshot (see jobs.ts).
    baseline: baseline
      ? {
          meta: baseline,
          costs: new Map(plans.filter((p) => p.inBaseline).map((p) => [p.hash, p.baselineCost])),
          calls: new Map([...(baselineFigures ?? [])].map(([hash, f]) => [hash, f.calls])),
        }
      : null,
    policy,
    acknowledgements,
    droppedIndexes: run.droppedIndexes ?? [],
    schemaNotes: run.runNotes ?? [],
    snapshotAt: iso(run.snapshotAt),
    analyzedAt: iso(run.analyzedAt),
  });
  return withStatisticsWarnings(verdict, queries);
}

/** The verdicts of these runs (those that exist), with five queries whatever their number. */
async function readVerdicts(db: Db, runIds: readonly string[], withText: boolean): Promise<Map<string, Verdict>> {
  const verdicts = new Map<string, Verdict>();
  if (runIds.length === 0) return verdicts;
  const runs = await readRunRows(db, runIds);
  const analyzed = runs.filter((run) => run.environmentId && run.status === 'done');
  const [plans, acknowledgements, figures] = await Promise.all([
    readPlanRows(
      db,
      analyzed.map((run) => run.id),
      withText,
    ),
    readAcknowledgements(db, [...new Set(analyzed.map((run) => run.environmentId!))]),
    readRunQueryFigures(
      db,
      analyzed.flatMap((run) => (run.baselineId ? [run.id, run.baselineId] : [run.id])),
    ),
  ]);
  const plansByRun = groupBy(plans, (plan) => plan.runId);
  for (const run of runs) {
    verdicts.set(run.id, verdictOf(run, plansByRun.get(run.id) ?? [], acknowledgements.get(run.environmentId ?? '') ?? [], figures));
  }
  return verdicts;
}

/** GET /ci/runs/{id}/verdict: 404 for an unknown run. */
export async function readVerdict(db: Db, runId: string): Promise<Verdict> {
  const verdict = (await readVerdicts(db, [runId], true)).get(runId);
  if (!verdict) throw notFound(`CI run ${runId}`);
  return verdict;
}

/** The status of each run's verdict, for lists of runs (unknown runs are left out). */
export async function readVerdictStatuses(db: Db, runIds: readonly string[]): Promise<Map<string, VerdictStatus>> {
  const verdicts = await readVerdicts(db, runIds, false);
  return new Map([...verdicts].map(([id, verdict]) => [id, verdict.status]));
}
