// The workload's choice refined by planning, as Extend and AutoAdmin judge each of their steps. The
// choice from the queries' trials (workload.ts) knows what each index saves a query alone and with
// the query's own second index, never what two indexes do together otherwise: an index on a
// dimension that makes a join into the fact table's index pay, say. From that choice, within its
// byte budget, in the shadow:
// - fill: add the index that lowers the workload's planned cost most per byte among those that
//   still fit, again until none does;
// - swap: each chosen index in turn, largest first, dropped and the room it frees filled the same
//   way without it; kept when the workload's planned cost falls, and the swaps start over from there.
// Bounded: at most MAX_EVALUATIONS workload costs asked; each plans only the queries that read a
// table whose indexes changed (planned-cost.ts), and when the bound is reached the best set found
// so far is kept.

/** Workload costs the refinement asks for at most. */
export const MAX_EVALUATIONS = 400;

export interface PlannedSearch {
  /** What may be added: CREATE INDEX statement → the bytes it spends of the budget. */
  pool: ReadonlyMap<string, number>;
  maxBytes: number;
  /** Indexes at most, when the budget counts them too. */
  maxIndexes?: number;
  /** The workload's planned cost with exactly these indexes. */
  cost: (statements: string[]) => Promise<number>;
  maxEvaluations?: number;
}

interface Found {
  set: string[];
  cost: number;
}

/** The set reached from `start` (which fits the budget): never costlier, as planned, than `start`. */
export async function refineByPlans(start: string[], search: PlannedSearch): Promise<{ indexes: string[]; evaluations: number }> {
  const limit = search.maxEvaluations ?? MAX_EVALUATIONS;
  let evaluations = 0;
  const costOf = (set: string[]) => {
    evaluations++;
    return search.cost(set);
  };
  const bytesOf = (set: string[]) => set.reduce((n, s) => n + (search.pool.get(s) ?? 0), 0);
  // The per-byte greedy from `from`, planned; `without` is never added.
  const fill = async (from: Found, without?: string): Promise<Found> => {
    let { set, cost } = from;
    while (set.length < (search.maxIndexes ?? Infinity)) {
      const room = search.maxBytes - bytesOf(set);
      let best: { index: string; cost: number; ratio: number } | undefined;
      for (const [index, bytes] of search.pool) {
        if (evaluations >= limit) break;
        if (index === without || bytes > room || set.includes(index)) continue;
        const c = await costOf([...set, index]);
        const ratio = (cost - c) / Math.max(bytes, 1);
        if (c < cost * (1 - 1e-9) && (!best || ratio > best.ratio)) best = { index, cost: c, ratio };
      }
      if (!best) return { set, cost };
      set = [...set, best.index];
      cost = best.cost;
    }
    return { set, cost };
  };

  let found = await fill({ set: start, cost: await costOf(start) });
  for (let improved = true; improved && evaluations < limit; ) {
    improved = false;
    for (const drop of [...found.set].sort((a, b) => bytesOf([b]) - bytesOf([a]))) {
      if (evaluations >= limit) break;
      const rest = found.set.filter((s) => s !== drop);
      const next = await fill({ set: rest, cost: await costOf(rest) }, drop);
      if (next.cost < found.cost * (1 - 1e-9)) {
        found = next;
        improved = true;
        break;
      }
    }
  }
  return { indexes: found.set, evaluations };
}
