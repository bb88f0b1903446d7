// The workload's what-if cost of a set of indexes, as the advisor plans it: each query planned in
// the shadow with the indexes on the tables it reads valid and no other candidate, times its calls.
// A query's cost is asked once per distinct set of indexes that concern it: a step of a selection
// that touches one table plans again only the queries reading it.
import type { LiveCandidate, WhatIf } from '../../advisor/index.js';
import { candidateKey } from '../../advisor/candidates.js';
import { attributesOf } from './extend.js';

export interface WhatIfCost {
  (indexes: LiveCandidate[]): Promise<number>;
  /** Plans asked of the shadow so far (each distinct query and index set once). */
  plans: () => number;
  /** Each query's cost x calls with these indexes (0 for a query not planned). */
  perQuery: (indexes: LiveCandidate[]) => Promise<number[]>;
}

export function whatIfCost(w: WhatIf, calls: number[]): WhatIfCost {
  const attributes = attributesOf(w.candidatesOf);
  const tables = w.results.map((r, i) => new Set([...r.tablesUsed, ...attributes[i]!.keys()]));
  const planned = w.results.map((r) => r.plan !== null);
  const cache = new Map<string, number>();
  const perQuery = async (indexes: LiveCandidate[]) => {
    const costs: number[] = [];
    for (const [i, used] of tables.entries()) {
      if (!planned[i]) {
        costs.push(0);
        continue;
      }
      const mine = indexes.filter((c) => used.has(`${c.schema}.${c.table}`));
      const key = `${i}|${mine.map(candidateKey).sort().join(';')}`;
      let c = cache.get(key);
      if (c === undefined) {
        c = await w.cost(i, mine);
        cache.set(key, c);
      }
      costs.push(c * calls[i]!);
    }
    return costs;
  };
  const cost = async (indexes: LiveCandidate[]) => (await perQuery(indexes)).reduce((n, c) => n + c, 0);
  return Object.assign(cost, { plans: () => cache.size, perQuery });
}
