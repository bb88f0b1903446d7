// The verdict of a CI run, as a pure function of data already read: the run's analyzed
// queries, its baseline's costs, the environment's policy and acknowledgements, and the indexes the
// run's schema drops. No database, no clock, no I/O: the same input gives the same verdict, byte
// for byte, whatever the order its lists arrive in.
//
// Who decides what, outside this file:
// - The BASELINE is picked by the caller: the latest run created before this one, of the same
//   repository and environment, on the policy's comparison branch (ordered by created_at, id). For a
//   run on the comparison branch itself that is simply its previous run on that branch: nothing
//   here knows branches, so both cases are the same call. No earlier run: `baseline: null`, and
//   only lost indexes are checked (nothing is "new" or "regressed" without something to compare).
// - COSTS are the caller's too: `cost` is the query planned on production's snapshot with the
//   run's schema differences applied; `baselineCosts` are the baseline run's costs (see
//   /work/notes/verdict-design.md for why they should be planned on the same snapshot).
// - CALLS are what the CI database's pg_stat_statements counted for each query of a run (null when
//   not reported). A query of the baseline called `calls` times now is a call_count_regression when
//   calls >= policy.callRatio x baselineCalls and calls >= policy.minCalls: an ORM loop issuing one
//   query per row (N+1) multiplies a query's calls while its cost per call stays the same.
// - CHANGED QUERIES: a query absent from the baseline that the analysis paired with a baseline query
//   absent from the run (pairedWith) is compared with that query: a cost_regression (cause
//   query_changed) when its cost grew past the policy's threshold, else one changed_query finding;
//   never a new_query. Its calls are compared with that query's too.
// - CALL SITES come with the run's queries (ci_run_queries.call_sites); a query whose call sites
//   naming a file are all matched by policy.ignoredCallSites is skipped like an ignored hash.
// - INDEX NAMES in `indexesUsedInProduction` and `droppedIndexes` must be spelt alike (the design
//   uses "schema.name"); they are compared as given.
import { callSitesIgnored, type CallSite } from '../../shared/call-sites';
import {
  FINDING_KINDS,
  SEVERITIES,
  policySchema,
  type Acknowledgement,
  type Finding,
  type FindingKind,
  type Policy,
  type Verdict,
  type VerdictBaseline,
  type VerdictSummary,
} from '../../shared/policy';
import type { PlanNode } from '../../shared/plan';
import { diffPlans } from '../../shared/plan-diff';
import { findCauses } from './causes';

export interface VerdictRecommendation {
  createIndex: string;
  costAfter: number;
  savedPct: number;
}

export interface VerdictQuery {
  hash: string;
  formattedQuery: string;
  /** Production cost with the run's schema applied; null when the query could not be planned. */
  cost: number | null;
  /** The advisor's recommendations for the query, in its order. */
  recommendations: readonly VerdictRecommendation[];
  /** Indexes the query's plan uses on production's own schema (without the run's differences). */
  indexesUsedInProduction?: readonly string[];
  /** What the run's schema changes for this query ("no production statistics for public.x", ...). */
  schemaNotes: readonly string[];
  /** The run's plan of the query, and the baseline's (planned on the same snapshot); null when not planned. */
  plan?: PlanNode | null;
  baselinePlan?: PlanNode | null;
  /** How many times the run's tests executed it; null or absent when not reported. */
  calls?: number | null;
  /** Where it comes from, read from its comments at ingestion. */
  callSites?: readonly CallSite[];
  /**
   * For a query absent from the baseline: the baseline query (absent from the run) it is an edit
   * of, paired by the analysis (pairing.ts), with that query's cost and plan on the same snapshot.
   */
  pairedWith?: PairedInput | null;
}

export interface PairedInput {
  hash: string;
  formattedQuery: string;
  cost: number | null;
  plan: PlanNode | null;
  /** Why the two were paired, in words. */
  reason: string;
}

export interface BaselineInput {
  meta: VerdictBaseline;
  /** The baseline run's queries: hash -> cost (null when it was not planned). A hash absent here is new. */
  costs: ReadonlyMap<string, number | null>;
  /** The baseline run's calls per query (all of its queries, also those the run no longer has). */
  calls?: ReadonlyMap<string, number | null>;
}

export interface EvaluateInput {
  queries: readonly VerdictQuery[];
  baseline: BaselineInput | null;
  policy: Policy;
  acknowledgements: readonly Pick<Acknowledgement, 'hash' | 'cost'>[];
  /** Indexes production has that the run's schema drops. */
  droppedIndexes: readonly string[];
  /** Differences of the run's schema the shadow could not apply (reported as they are). */
  schemaNotes?: readonly string[];
  snapshotAt: string | null;
  analyzedAt: string | null;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
/** Costs that are not finite numbers are no costs at all. */
const finite = (value: number | null | undefined): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Percent change from `from` to `to`; null when there is nothing to divide by. */
export function changePct(from: number | null, to: number | null): number | null {
  if (from === null || to === null || from <= 0) return null;
  return round1(((to - from) / from) * 100);
}

/** True when `cost` is above `baselineCost` by more than `pct` percent. */
export function exceeds(cost: number, baselineCost: number, pct: number): boolean {
  return cost > baselineCost * (1 + pct / 100);
}

/**
 * An acknowledgement holds while the query's cost stays within the policy's percentage of the cost
 * it was acknowledged at, in either direction. When either cost is unknown there is no movement to
 * measure, and it holds.
 */
export function acknowledgementHolds(acknowledgedCost: number | null, cost: number | null, pct: number): boolean {
  if (acknowledgedCost === null || cost === null) return true;
  return Math.abs(cost - acknowledgedCost) <= Math.abs(acknowledgedCost) * (pct / 100);
}

/** Findings in a fixed order: fail before warn, then by kind (FINDING_KINDS), highest cost first (unknown last), then hash. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
    FINDING_KINDS.indexOf(a.kind) - FINDING_KINDS.indexOf(b.kind) ||
    (b.cost ?? -Infinity) - (a.cost ?? -Infinity) ||
    compare(a.hash, b.hash)
  );
}

const emptySummary = (queries = 0): VerdictSummary => ({ queries, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
const noStatements = () => ({ run: null, baseline: null });

/** The sum of the known calls; null when none is known. */
function totalCalls(calls: Iterable<number | null>): number | null {
  let total: number | null = null;
  for (const value of calls) if (value !== null) total = (total ?? 0) + value;
  return total;
}

/** True when a query runs at least `ratio` times as often as in the baseline, and at least `min` times. */
export function callsRegressed(calls: number | null, baselineCalls: number | null, ratio: number, min: number): boolean {
  if (calls === null || baselineCalls === null) return false;
  return calls >= min && calls >= baselineCalls * ratio && calls > baselineCalls;
}

/** A policy echoed in a verdict is a copy in its normal form (hashes lowercase, sorted, once). */
const normalPolicy = (policy: Policy): Policy => policySchema.parse(policy);

/** The rule every verdict keeps, stated: the baseline is re-planned on the run's snapshot, so production's growth is never blamed on the run. */
export function plannedOn(snapshotAt: string | null, withBaseline: boolean): string | null {
  if (!snapshotAt) return null;
  return withBaseline ? `both planned on production as of ${snapshotAt}` : `planned on production as of ${snapshotAt}`;
}

export function evaluateVerdict(input: EvaluateInput): Verdict {
  const policy = normalPolicy(input.policy);
  const ignored = new Set(policy.ignoredHashes);
  const dropped = new Set(input.droppedIndexes);
  const acknowledgedAt = new Map(input.acknowledgements.map((a) => [a.hash.toLowerCase(), finite(a.cost)]));
  const baselineCosts = new Map<string, number | null>();
  for (const [hash, cost] of input.baseline?.costs ?? []) baselineCosts.set(hash.toLowerCase(), finite(cost));
  const baselineCalls = new Map<string, number | null>();
  for (const [hash, calls] of input.baseline?.calls ?? []) baselineCalls.set(hash.toLowerCase(), finite(calls));
  const runCalls: (number | null)[] = [];

  const seen = new Set<string>();
  const findings: Finding[] = [];
  let newQueries = 0;
  for (const query of input.queries) {
    const hash = query.hash.toLowerCase();
    // The store keeps one row per (run, hash); two here would make the verdict depend on their order.
    if (seen.has(hash)) throw new Error(`evaluateVerdict: query ${hash} is listed twice`);
    seen.add(hash);
    const calls = finite(query.calls);
    runCalls.push(calls);

    const inBaseline = input.baseline !== null && baselineCosts.has(hash);
    const pair = input.baseline !== null && !inBaseline ? (query.pairedWith ?? null) : null;
    const pairedHash = pair?.hash.toLowerCase();
    const isNew = input.baseline !== null && !inBaseline && !pair;
    if (isNew) newQueries++;
    const callSites = [...(query.callSites ?? [])];
    if (ignored.has(hash) || callSitesIgnored(callSites, policy.ignoredCallSites)) continue;

    const cost = finite(query.cost);
    const baselineCost = inBaseline ? (baselineCosts.get(hash) ?? null) : finite(pair?.cost);
    const callsBefore = inBaseline ? (baselineCalls.get(hash) ?? null) : pairedHash ? (baselineCalls.get(pairedHash) ?? null) : null;
    const recommendations = query.recommendations.map(({ createIndex, costAfter, savedPct }) => ({ createIndex, costAfter, savedPct }));
    const schemaNotes = [...new Set(query.schemaNotes)];
    const ackHolds = acknowledgedAt.has(hash) && acknowledgementHolds(acknowledgedAt.get(hash) ?? null, cost, policy.costRegressionPct);
    const plan = query.plan ?? null;
    const baselinePlan = inBaseline ? (query.baselinePlan ?? null) : (pair?.plan ?? null);
    const planDiff = diffPlans(baselinePlan, plan);
    const add = (kind: FindingKind) => {
      const mode = policy.conditions[kind];
      if (mode === 'off') return false;
      const explained = kind === 'cost_regression' || kind === 'lost_index' || kind === 'changed_query';
      findings.push({
        kind,
        severity: mode,
        hash,
        formattedQuery: query.formattedQuery,
        cost,
        baselineCost,
        changePct: changePct(baselineCost, cost),
        recommendations,
        schemaNotes,
        acknowledged: ackHolds,
        plan,
        baselinePlan,
        planDiff,
        causes: explained
          ? findCauses({
              cost,
              baselineCost,
              baselinePlan,
              indexesUsedInProduction: query.indexesUsedInProduction ?? [],
              droppedIndexes: input.droppedIndexes,
              schemaNotes,
              ...(pair && { pairing: pair.reason }),
            })
          : [],
        calls,
        baselineCalls: callsBefore,
        callSites,
        pairedWith: pair && pairedHash ? { hash: pairedHash, formattedQuery: pair.formattedQuery } : null,
      });
      return true;
    };

    const compared = inBaseline || pair !== null;
    const regressed =
      compared &&
      cost !== null &&
      baselineCost !== null &&
      exceeds(cost, baselineCost, policy.costRegressionPct) &&
      cost >= policy.minCost &&
      add('cost_regression');
    // an edited query is reported once: as the regression it causes, or as changed
    if (pair && !regressed) add('changed_query');
    if ((query.indexesUsedInProduction ?? []).some((name) => dropped.has(name))) add('lost_index');
    if (compared && callsRegressed(calls, callsBefore, policy.callRatio, policy.minCalls)) add('call_count_regression');
    if (isNew) {
      const bestSaved = Math.max(-Infinity, ...recommendations.map((r) => finite(r.savedPct) ?? -Infinity));
      // With the index condition off, a new query that needs an index is still a new query.
      if (!(bestSaved >= policy.minSavedPct && add('new_query_needs_index'))) add('new_query');
    }
  }
  findings.sort(compareFindings);

  const counting = findings.filter((f) => !f.acknowledged);
  const status = counting.some((f) => f.severity === 'fail') ? 'fail' : counting.some((f) => f.severity === 'warn') ? 'warn' : 'pass';
  const count = (kind: FindingKind) => findings.filter((f) => f.kind === kind).length;
  return {
    status,
    reason: input.baseline ? null : `No earlier run of branch "${policy.comparisonBranch}" to compare with: only indexes the run's schema drops were checked`,
    baseline: input.baseline ? { ...input.baseline.meta } : null,
    snapshotAt: input.snapshotAt,
    plannedOn: plannedOn(input.snapshotAt, input.baseline !== null),
    analyzedAt: input.analyzedAt,
    policy,
    summary: {
      queries: seen.size,
      newQueries,
      regressions: count('cost_regression'),
      needIndex: count('new_query_needs_index'),
      lostIndex: count('lost_index'),
    },
    findings,
    statements: { run: totalCalls(runCalls), baseline: input.baseline ? totalCalls(baselineCalls.values()) : null },
    schemaNotes: [...(input.schemaNotes ?? [])],
  };
}

/**
 * No verdict can be given, and none ever blocks: the repository is not linked to an environment,
 * or the environment has no production connection.
 */
export function unavailableVerdict(reason: string, policy: Policy): Verdict {
  return {
    status: 'unavailable',
    reason,
    baseline: null,
    snapshotAt: null,
    plannedOn: null,
    analyzedAt: null,
    policy: normalPolicy(policy),
    summary: emptySummary(),
    findings: [],
    statements: noStatements(),
    schemaNotes: [],
  };
}

export interface PendingInput {
  policy: Policy;
  /** The run's distinct queries, when known. */
  queries?: number;
  baseline?: VerdictBaseline | null;
  snapshotAt?: string | null;
  /** Queries planned so far out of those that need planning (the cached ones are not counted). */
  progress?: { done: number; total: number };
}

/** The analysis has not finished: the verdict says how far it is, in `reason` (the wire shape has no other place). */
export function pendingVerdict(input: PendingInput): Verdict {
  const progress = input.progress;
  const reason =
    progress && progress.total > 0
      ? `Analyzing: ${Math.min(progress.done, progress.total)} of ${progress.total} queries planned`
      : 'Waiting for the analysis of this run';
  return {
    status: 'pending',
    reason,
    baseline: input.baseline ? { ...input.baseline } : null,
    snapshotAt: input.snapshotAt ?? null,
    plannedOn: null,
    analyzedAt: null,
    policy: normalPolicy(input.policy),
    summary: emptySummary(input.queries ?? 0),
    findings: [],
    statements: noStatements(),
    schemaNotes: [],
  };
}
