// The workload's what-if cost of a set of indexes, as the advisor plans it (advisor/planned-cost.ts):
// each query planned in the shadow with the indexes on the tables it reads valid and no other
// candidate, times its calls. The tables a query concerns are those its plan reads and those of
// its candidates (Extend's attributes), so that Extend's indexes are costed as the advisor's are.
// `byColumns`: a query is planned again only for an index on a column it reads, as the advisor's
// own search plans (the selections search with it; the scores that compare them are planned
// without it, every index on a table a query reads valid).
import { plannedCost, type PlannedCost, type WhatIf } from '../../advisor/index.js';
import { attributesOf } from './extend.js';

export type WhatIfCost = PlannedCost;

export function whatIfCost(w: WhatIf, calls: number[], options: { byColumns?: boolean } = {}): WhatIfCost {
  const attributes = attributesOf(w.candidatesOf);
  const tables = w.results.map((r, i) => (r.plan === null ? null : new Set([...r.tablesUsed, ...attributes[i]!.keys()])));
  return plannedCost(tables, calls, (i, indexes) => w.cost(i, indexes), options.byColumns ? w.columns : []);
}
