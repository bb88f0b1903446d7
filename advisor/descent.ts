// What the shadow's plans are not charged for B-tree descents. The shadow's indexes hold at most
// two rows, so _bt_getrootheight says 0 and btcostestimate charges every scan
// height x 50 x cpu_operator_cost less than production does. Alone that is 0.125 a level, but an
// index probed on the inner side of a nested loop pays it once per outer row, and once per
// partition: a nested loop over a partitioned table can look 30% cheaper than it is (measured:
// 59k vs 84k, and production chose a hash join instead). The plan's own node costs are left as
// PostgreSQL gave them; the advisor compares and reports costs with this added.
import type { PlanNode } from '../shared/plan.js';
import { estimateBtreeHeight } from './sizing.js';
import type { Snapshot } from '../snapshot/types.js';

/**
 * Production B-tree heights of production's indexes, by index name, estimated from their page counts.
 * Looked up through maps built once: a whole schema holds tens of thousands of indexes and of
 * column statistics, and a search of the lists per index held the event loop for seconds.
 */
export function btreeHeights(snapshot: Snapshot): Map<string, number> {
  const out = new Map<string, number>();
  const pages = new Map(snapshot.relations.filter((r) => r.kind === 'i').map((r) => [`${r.schema}.${r.name}`, Math.max(r.blocks, r.relpages)]));
  // the first of a column's own statistics, as columnSize (table-map.ts) reads it
  const widths = new Map<string, number>();
  for (const s of snapshot.stats) {
    const key = JSON.stringify([s.schema, s.table, s.column]);
    if (!s.inherited && !widths.has(key)) widths.set(key, Number(s.values.avg_width ?? 8));
  }
  for (const i of snapshot.indexes) {
    if (i.am !== 'btree') continue;
    const first = i.keys[0];
    const width = first ? (widths.get(JSON.stringify([i.schema, i.table, first])) ?? 8) : 8;
    out.set(i.name, estimateBtreeHeight(pages.get(`${i.schema}.${i.name}`) ?? 1, width));
  }
  return out;
}

/** Nodes that read all their input before returning a row: a Limit above them no longer cuts their input short. */
const isBlocking = (node: PlanNode) =>
  ['Sort', 'Incremental Sort', 'Hash', 'Materialize'].includes(node['Node Type']) || (node['Node Type'] === 'Aggregate' && node.Strategy !== 'Sorted');

/**
 * The descent cost production charges and the shadow does not, summed over the plan: per index
 * scan, its height x 50 x cpu_operator_cost, times how often the scan runs (per outer row on the
 * inner side of a nested loop, once under a Materialize or Hash) and the share of its output a
 * Limit above reads. An index of unknown height (not in `heights`) costs nothing.
 */
export function descentCost(plan: PlanNode, heights: Map<string, number>, cpuOperatorCost: number): number {
  // `loops`: how often the node runs; `fraction`: the share of its output a Limit above reads.
  const walk = (node: PlanNode, loops: number, fraction: number): number => {
    let sum = 0;
    const name = node['Index Name'];
    const type = node['Node Type'];
    if (typeof name === 'string' && /Index/.test(type)) sum += (heights.get(name) ?? 0) * 50 * cpuOperatorCost * loops * fraction;
    const children = node.Plans ?? [];
    const outerRows = children.find((c) => c['Parent Relationship'] === 'Outer')?.['Plan Rows'] ?? 1;
    for (const child of children) {
      let childLoops = loops;
      let childFraction = isBlocking(node) ? 1 : fraction;
      if (type === 'Nested Loop' && child['Parent Relationship'] === 'Inner') childLoops = loops * Math.max(outerRows, 1);
      if (type === 'Materialize' || type === 'Hash') childLoops = 1;
      // A Limit runs its input for a fraction of its rows (the planner scales the cost alike).
      if (type === 'Limit') childFraction = fraction * Math.min(1, node['Plan Rows'] / Math.max(child['Plan Rows'], 1));
      sum += walk(child, childLoops, childFraction);
    }
    return sum;
  };
  return walk(plan, 1, 1);
}
