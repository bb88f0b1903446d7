// The workload's cost of a set of candidate indexes as the shadow plans it: Σ cost × calls, each
// query planned with the candidates on the tables it concerns valid and no other. An index on a
// table a query does not read cannot change its plan, so a query is planned once per distinct set
// of the indexes that concern it: a search that changes one table's indexes plans again only the
// queries reading that table.
import { candidateKey } from './candidates.js';
import type { LiveCandidate } from './live-candidates.js';

export interface PlannedCost {
  (indexes: LiveCandidate[]): Promise<number>;
  /** Each query's cost × calls with these indexes (0 for a query not planned). */
  perQuery: (indexes: LiveCandidate[]) => Promise<number[]>;
  /** Plans asked of the shadow so far (each distinct query and index set once). */
  plans: () => number;
}

/**
 * `tables[i]`: the tables (schema.table) query i concerns, null when it is not planned; `cost(i,
 * indexes)`: its cost planned with exactly these candidates.
 */
export function plannedCost(
  tables: (ReadonlySet<string> | null)[],
  calls: number[],
  cost: (query: number, indexes: LiveCandidate[]) => Promise<number>,
): PlannedCost {
  const cache = new Map<string, number>();
  const perQuery = async (indexes: LiveCandidate[]) => {
    const costs: number[] = [];
    for (const [i, used] of tables.entries()) {
      if (!used) {
        costs.push(0);
        continue;
      }
      const mine = indexes.filter((c) => used.has(`${c.schema}.${c.table}`));
      const key = `${i}|${mine.map(candidateKey).sort().join(';')}`;
      let c = cache.get(key);
      if (c === undefined) {
        c = await cost(i, mine);
        cache.set(key, c);
      }
      costs.push(c * calls[i]!);
    }
    return costs;
  };
  const total = async (indexes: LiveCandidate[]) => (await perQuery(indexes)).reduce((n, c) => n + c, 0);
  return Object.assign(total, { perQuery, plans: () => cache.size });
}
