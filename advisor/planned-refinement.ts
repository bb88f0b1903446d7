// The workload's choice refined by planning, as Extend and AutoAdmin judge each of their steps. The
// choice from the queries' trials (workload.ts) knows what each index saves a query alone and with
// the query's own second index, never what two indexes do together otherwise: an index on a
// dimension that makes a join into the fact table's index pay, say. From that choice, within its
// byte budget, in the shadow:
// - fill: add the index that lowers the workload's planned cost most per byte among those that
//   still fit, or widen a chosen one into an index that extends it (its keys first, as Extend's
//   steps do: a single-column index grown into the composite several queries share costs only
//   the bytes it adds), again until no step does. Lazily, as CELF does: a step whose saving per
//   byte at an earlier step was below the best of this step is not planned again (a saving seldom
//   grows as indexes are added);
// - swap: each chosen index in turn, the one saving least per byte first, dropped and the room it
//   frees filled the same way without it; kept when the workload's planned cost falls, and the
//   swaps start over from there.
// Bounded: at most MAX_EVALUATIONS workload costs asked and MAX_PLANS plans (each workload cost plans
// again only the queries that read a column of an index that changed, planned-cost.ts); when a
// bound is reached the best set found so far is kept.

/**
 * Workload costs the refinement asks for at most. Most are answered from plans already made (a
 * query is planned once per set of the indexes that concern it), so plans are the real bound; this one
 * only keeps the bookkeeping of a huge pool in check. At 1,000 the swaps were cut short on an
 * 18-query workload long before its plans ran out.
 */
export const MAX_EVALUATIONS = 10_000;
/** Plans the refinement asks of the shadow at most, whatever the number of queries. */
export const MAX_PLANS = 5000;

export interface PlannedSearch {
  /** What may be added: CREATE INDEX statement → the bytes it spends of the budget. */
  pool: ReadonlyMap<string, number>;
  /** Per statement, the pool's indexes that can replace it by extending it (its keys a prefix of theirs). */
  extensions?: ReadonlyMap<string, readonly string[]>;
  maxBytes: number;
  /** Indexes at most, when the budget counts them too. */
  maxIndexes?: number;
  /** The workload's planned cost with exactly these indexes. */
  cost: (statements: string[]) => Promise<number>;
  /** Plans asked of the shadow so far, when the cost counts them. */
  plans?: () => number;
  maxEvaluations?: number;
}

interface Found {
  set: string[];
  cost: number;
}

/** The set reached from `start` (which fits the budget): never costlier, as planned, than `start`. */
export async function refineByPlans(start: string[], search: PlannedSearch): Promise<{ indexes: string[]; evaluations: number }> {
  const plansAt = search.plans?.() ?? 0;
  const spent = () => (search.plans?.() ?? 0) - plansAt >= MAX_PLANS;
  let evaluations = 0;
  const maxEvaluations = search.maxEvaluations ?? MAX_EVALUATIONS;
  const reached = () => evaluations >= maxEvaluations || spent();
  const costOf = (set: string[]) => {
    evaluations++;
    return search.cost(set);
  };
  const bytesOf = (set: string[]) => set.reduce((n, s) => n + (search.pool.get(s) ?? 0), 0);
  // The per-byte greedy from `from`, planned; `without` is never added.
  const fill = async (from: Found, without?: string): Promise<Found> => {
    let { set, cost } = from;
    // Each step's saving per byte when last planned: an upper bound of what it saves now.
    const bound = new Map<string, number>();
    const boundOf = (step: string) => bound.get(step) ?? Number.MAX_VALUE;
    for (;;) {
      const room = search.maxBytes - bytesOf(set);
      const open = steps(set, room, without);
      let best: { set: string[]; cost: number; ratio: number } | undefined;
      for (const step of open.sort((a, b) => boundOf(b.key) - boundOf(a.key))) {
        if (reached() || (best && boundOf(step.key) <= best.ratio)) break;
        const c = await costOf(step.set);
        const ratio = (cost - c) / Math.max(step.bytes, 1);
        bound.set(step.key, ratio);
        if (c < cost * (1 - 1e-9) && (!best || ratio > best.ratio)) best = { set: step.set, cost: c, ratio };
      }
      if (!best) return { set, cost };
      ({ set, cost } = best);
    }
  };
  // What one step of the fill may do within `room`: add an index, or widen a chosen one.
  const steps = (set: string[], room: number, without?: string): { key: string; set: string[]; bytes: number }[] => {
    const out: { key: string; set: string[]; bytes: number }[] = [];
    if (set.length < (search.maxIndexes ?? Infinity))
      for (const [index, bytes] of search.pool)
        if (index !== without && bytes <= room && !set.includes(index)) out.push({ key: index, set: [...set, index], bytes });
    for (const index of set) {
      for (const wider of search.extensions?.get(index) ?? []) {
        const bytes = (search.pool.get(wider) ?? Infinity) - (search.pool.get(index) ?? 0);
        if (wider === without || set.includes(wider) || bytes > room) continue;
        out.push({ key: `${index}\u0000${wider}`, set: set.map((s) => (s === index ? wider : s)), bytes });
      }
    }
    return out;
  };

  let found = await fill({ set: start, cost: await costOf(start) });
  for (let improved = true; improved && !reached();) {
    improved = false;
    const without = new Map<string, number>();
    for (const index of found.set) if (!reached()) without.set(index, await costOf(found.set.filter((s) => s !== index)));
    const perByte = (index: string) => ((without.get(index) ?? Infinity) - found.cost) / Math.max(bytesOf([index]), 1);
    for (const drop of [...without.keys()].sort((a, b) => perByte(a) - perByte(b))) {
      if (reached()) break;
      const rest = found.set.filter((s) => s !== drop);
      const next = await fill({ set: rest, cost: without.get(drop)! }, drop);
      if (next.cost < found.cost * (1 - 1e-9)) {
        found = next;
        improved = true;
        break;
      }
    }
  }
  return { indexes: found.set, evaluations };
}

/** An index as the pool knows it: its statement and what it is built on. */
export interface PoolIndex {
  createIndex: string;
  table: string;
  method: string;
  columns: string[];
  include: string[];
  predicate: string | null;
}

/**
 * Per statement, the B-tree indexes among `indexes` that extend it: same table and predicate, its
 * keys the first of theirs and more after, every column it stores stored by them.
 */
export function extensionsAmong(indexes: PoolIndex[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const btrees = indexes.filter((i) => i.method === 'btree');
  for (const x of btrees) {
    const wider = btrees.filter(
      (y) =>
        y.table === x.table &&
        y.predicate === x.predicate &&
        y.columns.length > x.columns.length &&
        x.columns.every((c, i) => y.columns[i] === c) &&
        x.include.every((c) => y.columns.includes(c) || y.include.includes(c)),
    );
    if (wider.length) out.set(x.createIndex, [...new Set(wider.map((y) => y.createIndex))]);
  }
  return out;
}
