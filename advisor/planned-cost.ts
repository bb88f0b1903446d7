// The workload's cost of a set of candidate indexes as the shadow plans it: Σ cost × calls, each
// query planned with the candidates that concern it valid and no other. An index on a table a
// query does not read cannot change its plan, nor can a full index none of whose columns the query
// reads there (no condition, join, sort or covered read can use it), so a query is planned once per
// distinct set of the indexes that concern it: a search that changes one index plans again only
// the queries that read one of its columns. A partial index, and any index for a query that reads
// no column of the table (a count(*) can scan the smallest index), concerns every query on it.
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
 * indexes)`: its cost planned with exactly these candidates; `columns[i]`: per table, the columns
 * query i reads there (null: every column; absent: not known, every index concerns it).
 */
export function plannedCost(
  tables: (ReadonlySet<string> | null)[],
  calls: number[],
  cost: (query: number, indexes: LiveCandidate[]) => Promise<number>,
  columns: (ReadonlyMap<string, ReadonlySet<string> | null> | undefined)[] = [],
): PlannedCost {
  const concerns = (i: number, c: LiveCandidate, table: string) => {
    const read = columns[i]?.get(table);
    if (!read || read.size === 0 || c.predicate !== null) return true;
    return c.keys.some((k) => read.has(k)) || c.include.some((k) => read.has(k));
  };
  const cache = new Map<string, number>();
  const perQuery = async (indexes: LiveCandidate[]) => {
    const costs: number[] = [];
    for (const [i, used] of tables.entries()) {
      if (!used) {
        costs.push(0);
        continue;
      }
      const mine = indexes.filter((c) => {
        const table = `${c.schema}.${c.table}`;
        return used.has(table) && concerns(i, c, table);
      });
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
