// Indexes chosen for the whole workload rather than one query at a time. Each query's trials
// (recommend.ts) say what every index that helps it would save it alone (`alternatives`) and what
// its own best pair saves together (`recommendations`); from those, a greedy choice with
// re-evaluation (as Microsoft's AutoAdmin and the DB2 advisor do it) adds, one at a time, the index
// that lowers the workload's cost most given the ones already chosen: an index serving several
// queries beats several that each serve one, and an index whose queries are already served by a
// chosen one adds nothing. With a byte budget the measure is the saving per byte (the knapsack
// rule of the DB2 advisor); with a count budget the choice stops at that count; with neither it
// stops at the knee of its saving curve (knee.ts).
import type { ChoiceStop, IndexRecommendation, PlannedQuery, Recommendation, SavingPoint, TableWrites, WorkloadBudget } from '../shared/analysis.js';
import { candidateKey, type IndexCandidate } from './candidates.js';
import { curveOf, kneeOf, stopOf } from './knee.js';
import type { Snapshot } from '../snapshot/types.js';

/** Other queries' candidates added to one query's, at most: each costs one more plan per round. */
const MAX_SHARED = 6;

/** Smallest share of a query's cost (x calls) an index must save it to count as helping it, in percent. */
const DEFAULT_MIN_SAVED_PCT = 5;

/**
 * Each query's candidates, plus those of other queries on the same table that extend one of its
 * own B-tree keys (its key columns first, then more): one index that may serve both, so each
 * query's trials can tell the workload's choice about it. `(a, b)` for `a = ? ORDER BY b` is then
 * also tried on `a = ?`.
 */
export function withSharedCandidates(lists: IndexCandidate[][]): IndexCandidate[][] {
  const all = new Map<string, IndexCandidate>();
  for (const list of lists) for (const c of list) all.set(candidateKey(c), c);
  return lists.map((own) => {
    const keys = new Set(own.map(candidateKey));
    const extends_ = (c: IndexCandidate) =>
      own.some(
        (o) =>
          o.am === 'btree' &&
          o.schema === c.schema &&
          o.table === c.table &&
          o.predicate === c.predicate &&
          !o.desc?.length &&
          o.keys.length < c.keys.length &&
          o.keys.every((k, i) => c.keys[i] === k),
      );
    const extra = [...all.values()]
      .filter((c) => c.am === 'btree' && !keys.has(candidateKey(c)) && extends_(c))
      .sort((a, b) => a.keys.length + a.include.length - (b.keys.length + b.include.length))
      .slice(0, MAX_SHARED);
    return [...own, ...extra];
  });
}

/** Index sizes in bytes and the table's production write rates on every recommendation and alternative. */
export function annotateRecommendations(results: PlannedQuery[], snapshot: Snapshot): void {
  const writes = new Map((snapshot.writes ?? []).map((w) => [`${w.schema}.${w.table}`, w]));
  const round = (n: number) => Math.round(n * 1000) / 1000;
  const ratesOf = (table: string): TableWrites | null => {
    const w = writes.get(table);
    if (!w) return null;
    return {
      insertsPerSec: round(w.inserted / w.seconds),
      updatesPerSec: round(w.updated / w.seconds),
      deletesPerSec: round(w.deleted / w.seconds),
      indexWritesPerSec: round((w.inserted + w.updated) / w.seconds),
      since: w.since,
    };
  };
  for (const q of results) {
    for (const r of [...q.recommendations, ...(q.alternatives ?? [])]) {
      r.estimatedBytes = r.estimatedPages * (snapshot.blockSize || 8192);
      r.writes = ratesOf(r.table);
    }
  }
}

/** A way to lower one query's cost: these indexes together save it `saved` (cost x calls), `parts` each. */
interface Option {
  indexes: string[];
  parts: number[];
  saved: number;
  /** It saves the query less than the smallest share that counts: only for the room a byte budget leaves. */
  minor: boolean;
}

interface QueryOptions {
  hash: string;
  options: Option[];
  /** The query's cost x calls as it is. */
  cost: number;
}

export interface WorkloadChoice {
  indexes: IndexRecommendation[];
  /** What the chosen indexes save the workload together (cost x calls). */
  saved: number;
  /** The workload's cost after each step of the greedy choice, from no index on (knee.ts). */
  savingCurve: SavingPoint[];
  /** Where on the curve the choice stopped, and why. */
  stop: ChoiceStop;
}

/** A query's ways to lower its cost; `withMinor`: also the single indexes that save it less than `minSavedPct`. */
function optionsOf(q: PlannedQuery, minSavedPct: number, withMinor: boolean): QueryOptions | undefined {
  const recs = q.recommendations;
  const minor = (r: Recommendation) => r.costBefore - r.costAfter < (r.costBefore * minSavedPct) / 100;
  const alternatives = (q.alternatives ?? []).filter((r) => withMinor || !minor(r));
  const singles = alternatives.length ? alternatives : recs.slice(0, 1);
  if (singles.length === 0) return undefined;
  const first = recs[0] ?? singles[0]!;
  const calls = first.costBefore > first.costAfter ? first.totalSaved / (first.costBefore - first.costAfter) : 1;
  const options: Option[] = singles.map((r) => ({ indexes: [r.createIndex], parts: [r.totalSaved], saved: r.totalSaved, minor: minor(r) }));
  // The query's own chain: its second index saves on top of its first.
  for (let k = 2; k <= recs.length; k++) {
    const chain = recs.slice(0, k);
    const saved = chain.reduce((s, r) => s + r.totalSaved, 0);
    options.push({ indexes: chain.map((r) => r.createIndex), parts: chain.map((r) => r.totalSaved), saved, minor: false });
  }
  return { hash: q.hash, options, cost: first.costBefore * calls };
}

/**
 * The option a query would use with these indexes (and `plus`, tried beside them): the one saving
 * most among those fully built; minor ones only `withMinor`.
 */
function bestOption(q: QueryOptions, chosen: ReadonlySet<string>, plus?: string, withMinor = false): Option | undefined {
  let best: Option | undefined;
  for (const o of q.options) {
    if ((withMinor || !o.minor) && o.indexes.every((i) => i === plus || chosen.has(i)) && (!best || o.saved > best.saved)) best = o;
  }
  return best;
}

const bytesOf = (r: Recommendation) => r.estimatedBytes ?? r.estimatedPages * 8192;
/**
 * What an index spends of a byte budget. An exact estimate comes within 5% of the index built
 * (docs/index-sizes.md), on either side: it is counted 5% larger, so that a choice within the
 * budget stays within it once built. An uncertain one is an upper bound already.
 */
export const budgetBytesOf = (r: Recommendation) => bytesOf(r) * (r.sizeUncertain ? 1 : 1.05);

/** Where a greedy pass starts: from these indexes, among those allowed, by saving per byte or by saving; minor options counted or not. */
interface GreedyFrom {
  start?: string[];
  allowed?: ReadonlySet<string>;
  byBytes?: boolean;
  withMinor?: boolean;
}

/** Improving rounds of the refinement at most: each is one greedy pass per chosen index and measure. */
const MAX_REFINE_ROUNDS = 50;

/** What these indexes save the workload together: each query's best option among them. */
const savingOf = (queries: QueryOptions[], set: Iterable<string>) => {
  const chosen = new Set(set);
  return queries.reduce((n, q) => n + (bestOption(q, chosen)?.saved ?? 0), 0);
};

/**
 * The choice within a byte budget, refined after the greedy pass as Relaxation and AutoAdmin refine
 * theirs: the better of the greedy by saving per byte and by saving, then, while it gains, one
 * chosen index dropped and the bytes it frees filled greedily again (by either measure) without it.
 * A per-byte greedy stops where one large index that saved well per byte leaves too little room;
 * the refill finds the smaller ones that save more together. At most MAX_REFINE_ROUNDS rounds.
 */
function refinedWithinBytes(queries: QueryOptions[], meta: Map<string, Recommendation>, budget: WorkloadBudget, minSavedPct: number): string[] {
  const universe = new Set(queries.flatMap((q) => q.options.flatMap((o) => o.indexes)));
  const fill = (from: GreedyFrom) => [...(from.start ?? []), ...greedySteps(queries, meta, budget, minSavedPct, from).steps.map((s) => s.index)];
  let best = [fill({ byBytes: true }), fill({ byBytes: false })].sort((a, b) => savingOf(queries, b) - savingOf(queries, a))[0]!;
  let bestSaving = savingOf(queries, best);
  for (let round = 0; round < MAX_REFINE_ROUNDS; round++) {
    let improved = false;
    for (const drop of best) {
      const allowed = new Set([...universe].filter((i) => i !== drop));
      const start = best.filter((i) => i !== drop);
      for (const byBytes of [true, false]) {
        const next = fill({ start, allowed, byBytes });
        const saving = savingOf(queries, next);
        if (saving > bestSaving * (1 + 1e-9)) {
          [best, bestSaving, improved] = [next, saving, true];
          break;
        }
      }
      if (improved) break;
    }
    if (!improved) break;
  }
  return best;
}

/** One step of the greedy choice: the index added, its size and the workload's cost after it. */
interface Step {
  index: string;
  bytes: number;
  cost: number;
}

/**
 * Greedy choice with re-evaluation over the queries' trials (see the top of this file), run until
 * nothing that fits saves more: every step, in order. `blocked` says what ended it early: the
 * count, or an index that saves but no longer fits in the bytes left.
 */
function greedySteps(queries: QueryOptions[], meta: Map<string, Recommendation>, budget: WorkloadBudget, minSavedPct: number, from: GreedyFrom = {}) {
  const queriesOf = new Map<string, QueryOptions[]>();
  for (const q of queries) {
    for (const i of new Set(q.options.flatMap((o) => o.indexes))) if (!from.allowed || from.allowed.has(i)) queriesOf.set(i, [...(queriesOf.get(i) ?? []), q]);
  }
  const chosen = new Set<string>(from.start);
  const withMinor = from.withMinor ?? false;
  const value = new Map(queries.map((q) => [q.hash, bestOption(q, chosen, undefined, withMinor)?.saved ?? 0]));
  const base = queries.reduce((n, q) => n + q.cost, 0);
  const steps: Step[] = [];
  let spent = [...chosen].reduce((n, i) => n + budgetBytesOf(meta.get(i)!), 0);
  const byBytes = from.byBytes ?? budget.maxBytes !== undefined;
  let blocked: 'maxIndexes' | 'maxBytes' | undefined;
  for (;;) {
    if (budget.maxIndexes !== undefined && chosen.size >= budget.maxIndexes) {
      blocked = 'maxIndexes';
      break;
    }
    let best: { index: string; gain: number; score: number; helped: number; bytes: number } | undefined;
    let tooBig = false;
    for (const [index, qs] of queriesOf) {
      if (chosen.has(index)) continue;
      const size = bytesOf(meta.get(index)!);
      let gain = 0;
      let helped = 0;
      for (const q of qs) {
        // It counts when it saves minSavedPct of the query's cost, or completes the query's own pair
        // (whose second index was judged on the cost left by the first, as recommend.ts does).
        const option = bestOption(q, chosen, index, withMinor);
        const d = (option?.saved ?? 0) - value.get(q.hash)!;
        if (d > 0 && (d >= (q.cost * minSavedPct) / 100 || option!.indexes.length > 1)) {
          gain += d;
          helped++;
        }
      }
      if (gain <= 0) continue;
      if (budget.maxBytes !== undefined && spent + budgetBytesOf(meta.get(index)!) > budget.maxBytes) {
        tooBig = true;
        continue;
      }
      const score = byBytes ? gain / Math.max(size, 1) : gain;
      // Near ties (within 1%) go to the index serving more queries, then to the smaller one.
      const better =
        !best || score > best.score * 1.01 || (score >= best.score * 0.99 && (helped > best.helped || (helped === best.helped && size < best.bytes)));
      if (better) best = { index, gain, score, helped, bytes: size };
    }
    if (!best) {
      if (tooBig) blocked = 'maxBytes';
      break;
    }
    chosen.add(best.index);
    spent += budgetBytesOf(meta.get(best.index)!);
    for (const q of queriesOf.get(best.index)!) value.set(q.hash, Math.max(value.get(q.hash)!, bestOption(q, chosen, undefined, withMinor)?.saved ?? 0));
    steps.push({ index: best.index, bytes: best.bytes, cost: base - [...value.values()].reduce((n, v) => n + v, 0) });
  }
  return { base, steps, blocked };
}

/**
 * The room a byte budget leaves after `chosen`, filled by saving per byte with indexes that save
 * less than the share that counts: too little to recommend on their own, but the budget says their
 * storage is there to spend, and each still lowers the workload's cost.
 */
function withRoomFilled(queries: QueryOptions[], meta: Map<string, Recommendation>, budget: WorkloadBudget, chosen: string[]): string[] {
  return [...chosen, ...greedySteps(queries, meta, budget, 0, { start: chosen, byBytes: true, withMinor: true }).steps.map((s) => s.index)];
}

/**
 * The indexes for the whole workload. Within a budget: the greedy choice until it is spent (within
 * bytes: refined unless `refine` is false, then the room left filled unless `fill` is false). With
 * none: the greedy choice up to the knee of its saving curve (knee.ts), unless `knee` is false.
 * `fixed`: these indexes (a byte budget's, found by planning), shown as the others are; one the
 * trials see no saving in comes last on the curve, with no query of its own.
 */
export function chooseForWorkload(
  results: PlannedQuery[],
  budget: WorkloadBudget = {},
  options: { minSavedPct?: number; knee?: boolean; refine?: boolean; fill?: boolean; fixed?: string[] } = {},
): WorkloadChoice {
  const minSavedPct = options.minSavedPct ?? DEFAULT_MIN_SAVED_PCT;
  const withMinor = budget.maxBytes !== undefined && options.fill !== false;
  const queries = results.map((q) => optionsOf(q, minSavedPct, withMinor)).filter((q): q is QueryOptions => !!q);
  const meta = new Map<string, Recommendation>();
  for (const q of results) for (const r of [...q.recommendations, ...(q.alternatives ?? [])]) if (!meta.has(r.createIndex)) meta.set(r.createIndex, r);
  const greedy = greedySteps(queries, meta, budget, minSavedPct);
  const { base, blocked } = greedy;
  let steps = greedy.steps;
  if (budget.maxBytes !== undefined && (options.refine !== false || withMinor || options.fixed)) {
    let chosen = options.refine === false ? steps.map((s) => s.index) : refinedWithinBytes(queries, meta, budget, minSavedPct);
    if (withMinor) chosen = withRoomFilled(queries, meta, budget, chosen);
    chosen = options.fixed ?? chosen;
    // The chosen set, in the order a per-byte greedy pass over it takes it: the curve's steps.
    steps = greedySteps(queries, meta, budget, 0, { allowed: new Set(chosen), withMinor }).steps;
    const unseen = chosen.filter((i) => meta.has(i) && !steps.some((s) => s.index === i));
    steps = [...steps, ...unseen.map((index) => ({ index, bytes: bytesOf(meta.get(index)!), cost: steps.at(-1)?.cost ?? base }))];
  }
  const savingCurve = curveOf(base, steps);
  const budgeted = budget.maxIndexes !== undefined || budget.maxBytes !== undefined;
  const stop = stopOf(savingCurve, budgeted || options.knee === false ? undefined : kneeOf(savingCurve), blocked);
  const chosen = new Set(steps.slice(0, stop.indexes).map((s) => s.index));

  // Each query's saving goes to the indexes of the option it would use.
  const saved = new Map<string, { total: number; queries: string[] }>([...chosen].map((i) => [i, { total: 0, queries: [] }]));
  for (const q of queries) {
    const o = bestOption(q, chosen, undefined, withMinor);
    if (!o) continue;
    o.indexes.forEach((i, k) => {
      const s = saved.get(i)!;
      s.total += o.parts[k]!;
      s.queries.push(q.hash);
    });
  }
  const indexes: IndexRecommendation[] = [];
  for (const [index, s] of saved) {
    if (s.queries.length === 0 && !options.fixed?.includes(index)) continue;
    const { costBefore: _b, costAfter: _a, savedPct: _p, ...rest } = meta.get(index)!;
    indexes.push({ ...rest, totalSaved: s.total, queries: s.queries });
  }
  indexes.sort((a, b) => b.totalSaved - a.totalSaved);
  return { indexes, saved: indexes.reduce((n, i) => n + i.totalSaved, 0), savingCurve, stop };
}
