// Which candidates to recommend for a query: the cheapest plan that uses one, kept when it saves
// enough, then a second index on top of the first; and the ranking of every recommended index
// over all queries by the total cost it saves.
import type { ChoiceStop, IndexRecommendation, PlannedQuery, Recommendation, WorkloadBudget } from '../shared/analysis.js';
import { RECOMMENDED_INDEX_PREFIX, indexesUsed, planShape, type PlanNode } from '../shared/plan.js';
import { candidateTarget } from './candidates.js';
import type { LiveCandidate } from './live-candidates.js';
import { explain } from '../shadow/explain.js';
import { budgetBytesOf, chooseForWorkload, type WorkloadChoice } from './workload.js';
import { extensionsAmong, refineByPlans } from './planned-refinement.js';
import type { ShadowSession } from '../shadow/session.js';

export interface QueryInput {
  /** The catalog's fingerprint; returned as is. */
  hash: string;
  /** SQL, possibly with $n placeholders (planned as a generic plan). */
  query: string;
  /** Production call count; weights the ranking. Missing means 1. */
  calls?: number;
}

interface RecommendLimits {
  /** Smallest cost reduction, in percent of the query's cost, worth an index. */
  minSavedPct: number;
  /** Most indexes recommended for one query. */
  maxPerQuery: number;
}

/** A query with nothing planned: refused, or its plan failed. */
export const unplanned = (hash: string, error: string): PlannedQuery => ({
  hash,
  plan: null,
  cost: null,
  planShape: null,
  planAfter: null,
  recommendations: [],
  error,
  indexesUsed: [],
  tablesUsed: [],
});

/** A plan's cost as the advisor compares and reports it: PostgreSQL's, plus what the shadow leaves out, to the cent. */
export const costWith = (extra: (plan: PlanNode) => number) => (plan: PlanNode) => Math.round((plan['Total Cost'] + extra(plan)) * 100) / 100;

/** Plans one query as it is, then with candidates, and recommends the ones that lower its cost. */
export async function recommendFor(
  session: ShadowSession,
  q: QueryInput,
  candidates: LiveCandidate[],
  parseError: string | undefined,
  limits: RecommendLimits,
  costOf: (plan: PlanNode) => number,
): Promise<PlannedQuery> {
  let base: PlanNode;
  try {
    base = await explain(session, q.query);
  } catch (e) {
    return unplanned(q.hash, (e as Error).message);
  }
  const result: PlannedQuery = {
    hash: q.hash,
    plan: base,
    cost: costOf(base),
    planShape: planShape(base),
    planAfter: null,
    recommendations: [],
    error: parseError ?? null,
    indexesUsed: [],
    tablesUsed: [],
  };
  const calls = q.calls ?? 1;
  const chosen: LiveCandidate[] = [];
  let current = base;
  const recommendation = (c: LiveCandidate, before: number, cost: number): Recommendation => {
    const savedPct = before > 0 ? ((before - cost) / before) * 100 : 0;
    return {
      createIndex: `CREATE INDEX ON ${candidateTarget(c)}`,
      table: `${c.schema}.${c.table}`,
      method: c.am,
      columns: c.keys,
      include: c.include,
      predicate: c.predicate,
      costBefore: before,
      costAfter: cost,
      savedPct: Math.round(savedPct * 10) / 10,
      totalSaved: (before - cost) * calls,
      estimatedPages: c.pages,
      ...(c.sizeUncertain && { sizeUncertain: c.sizeUncertain }),
    };
  };
  for (let round = 0; round < limits.maxPerQuery; round++) {
    const tried: Tried[] = [];
    for (const c of candidates) {
      if (chosen.includes(c)) continue;
      let plan: PlanNode;
      try {
        plan = await explain(
          session,
          q.query,
          [...chosen, c].flatMap((x) => x.oids),
        );
      } catch {
        continue;
      }
      const used = indexesUsed(plan);
      if ([...c.names].some((n) => used.has(n))) tried.push({ c, plan, cost: costOf(plan) });
    }
    const before = costOf(current);
    // The first round tries each candidate alone: every one that lowers the cost is an alternative
    // the workload's choice (workload.ts) may prefer, e.g. one that also serves other queries. Those
    // that save less than minSavedPct only fill the room a byte budget leaves.
    if (round === 0) result.alternatives = tried.filter((t) => t.cost < before).map((t) => recommendation(t.c, before, t.cost));
    const pick = cheapest(tried);
    if (!pick) break;
    const rec = recommendation(pick.c, before, pick.cost);
    if (rec.savedPct < limits.minSavedPct) break;
    chosen.push(pick.c);
    current = pick.plan;
    result.recommendations.push(rec);
  }
  if (chosen.length) result.planAfter = nameCandidates(current, chosen);
  return result;
}

/** A candidate tried for a query: the plan with it and that plan's cost. */
export interface Tried<C extends Sized = LiveCandidate> {
  c: C;
  plan: PlanNode;
  cost: number;
}

type Sized = Pick<LiveCandidate, 'pages' | 'keys' | 'include' | 'fixes' | 'predicate' | 'rareValue'>;

/**
 * The cheapest plan; near-ties (within 1%) go first to an index that serves the query whatever its
 * constants: a partial index for `user_id = 1`, one user among ten alike, loses to an index with
 * user_id among its keys that plans as well, as it serves every other user too. A partial index for
 * a value the application singles out (`status = 'refunded'`, rarer than the others) keeps its
 * place. Then to the smaller index, then to the one with fewer columns: it costs less to keep and
 * the planner sees no difference.
 */
export function cheapest<C extends Sized>(tried: Tried<C>[]): Tried<C> | undefined {
  if (tried.length === 0) return undefined;
  const best = Math.min(...tried.map((t) => t.cost));
  const ties = tried.filter((t) => t.cost <= best + Math.max(0.01 * best, 0.01));
  const narrower = (c: C) => !!c.fixes?.length && !c.rareValue && ties.some((t) => t.c.predicate === null && c.fixes!.every((f) => t.c.keys.includes(f)));
  const rank = (t: Tried<C>) => (narrower(t.c) ? 1 : 0);
  return ties.sort((a, b) => rank(a) - rank(b) || a.c.pages - b.c.pages || a.c.keys.length + a.c.include.length - (b.c.keys.length + b.c.include.length))[0];
}

/** The shadow's scratch index names (qt_candidate_7) replaced by what the index is, for readers. */
function nameCandidates(plan: PlanNode, chosen: LiveCandidate[]): PlanNode {
  const labels = new Map<string, string>();
  for (const c of chosen) for (const name of c.names) labels.set(name, `${RECOMMENDED_INDEX_PREFIX}${candidateTarget(c)}`);
  const walk = (node: PlanNode): PlanNode => {
    const copy: PlanNode = { ...node };
    const name = copy['Index Name'];
    if (typeof name === 'string' && labels.has(name)) copy['Index Name'] = labels.get(name)!;
    if (Array.isArray(copy.Plans)) copy.Plans = copy.Plans.map(walk);
    return copy;
  };
  return walk(plan);
}

/**
 * Every recommended index once, chosen for the whole workload (workload.ts), with the queries it
 * helps and the cost it saves them all, most saved first; within `budget` when one is given, else
 * every index the greedy choice takes (no knee: a CI verdict judges each one).
 */
export const rankIndexes = (results: PlannedQuery[], budget: WorkloadBudget = {}): IndexRecommendation[] =>
  chooseForWorkload(results, budget, { knee: false }).indexes;

export type ShownChoice = Pick<WorkloadChoice, 'indexes' | 'savingCurve'> & { stopReason: ChoiceStop };

/** The workload's choice as a person is shown it: within `budget`, else up to the knee of its saving curve, with the curve. */
export function chooseIndexes(results: PlannedQuery[], budget: WorkloadBudget = {}, options: { refine?: boolean } = {}): ShownChoice {
  const { indexes, savingCurve, stop } = chooseForWorkload(results, budget, options);
  return { indexes, savingCurve, stopReason: stop };
}

/**
 * Within a byte budget, where the shadow is at hand: the plain greedy choice and the refined one
 * both planned with their indexes, the one the planner finds cheaper kept, then refined by planning
 * (planned-refinement.ts). The choice's own estimate adds up each query's trials, which miss what
 * two indexes do together that no query's trials tried; the refinement from the trials trusts that
 * estimate further, so it can lose to the plain choice, and the planned one finds what it misses.
 * `workloadCost` is each query's planned cost × calls (in the order of `results`) with these CREATE
 * INDEX statements' candidates, with the count of plans it has asked when it keeps one.
 */
export async function chooseVerified(
  results: PlannedQuery[],
  budget: WorkloadBudget,
  workloadCost: ((statements: string[]) => Promise<number[]>) & { plans?: () => number },
): Promise<ShownChoice> {
  const refined = chooseIndexes(results, budget);
  if (budget.maxBytes === undefined) return refined;
  const plain = chooseIndexes(results, budget, { refine: false });
  const statements = (c: ShownChoice) => c.indexes.map((i) => i.createIndex);
  const total = async (set: string[]) => (await workloadCost(set)).reduce((n, c) => n + c, 0);
  const same = statements(plain).join('\n') === statements(refined).join('\n');
  const kept = same || (await total(statements(refined))) <= (await total(statements(plain))) ? refined : plain;
  const pool = new Map<string, number>();
  const known = new Map<string, Recommendation>();
  for (const q of results) for (const r of [...q.recommendations, ...(q.alternatives ?? [])]) known.set(r.createIndex, r);
  for (const r of known.values()) pool.set(r.createIndex, budgetBytesOf(r));
  const { indexes } = await refineByPlans(statements(kept), {
    pool,
    extensions: extensionsAmong([...known.values()]),
    maxBytes: budget.maxBytes,
    maxIndexes: budget.maxIndexes,
    cost: total,
    plans: workloadCost.plans,
  });
  if ([...indexes].sort().join('\n') === [...statements(kept)].sort().join('\n')) return kept;
  const { indexes: shown, savingCurve, stop } = chooseForWorkload(results, budget, { fixed: indexes });
  // An index the trials see no saving in: what the plans say it saves, and which queries.
  const after = await workloadCost(indexes);
  for (const index of shown.filter((i) => i.queries.length === 0)) {
    const before = await workloadCost(indexes.filter((s) => s !== index.createIndex));
    const helped = results.flatMap((q, i) => (before[i]! > after[i]! ? [q.hash] : []));
    index.totalSaved = before.reduce((n, c, i) => n + c - after[i]!, 0);
    index.queries = helped;
  }
  return { indexes: shown.sort((a, b) => b.totalSaved - a.totalSaved), savingCurve, stopReason: stop };
}
