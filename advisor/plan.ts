// Plan reading helpers shared by the advisor, its tests and the benchmark.
import type { PlanNode } from './shadow.js';

/**
 * The plan's shape: node types with their join type, aggregate strategy, relation and index,
 * nested as the plan is. Two plans with the same shape do the same work in the same order;
 * costs and row counts are left out on purpose.
 */
export function planShape(plan: PlanNode): string {
  const label = [
    plan['Node Type'],
    plan['Join Type'] ? `[${plan['Join Type']}]` : '',
    plan.Strategy ? `[${plan.Strategy}]` : '',
    plan['Relation Name'] ? ` ${plan['Relation Name']}` : '',
    plan['Index Name'] ? ` using ${plan['Index Name']}` : '',
  ].join('');
  const children = plan.Plans ?? [];
  return children.length ? `${label}(${children.map(planShape).join(', ')})` : label;
}

/** Names of every index the plan reads. */
export function indexesUsed(plan: PlanNode): Set<string> {
  const out = new Set<string>();
  const visit = (p: PlanNode) => {
    if (p['Index Name']) out.add(p['Index Name']);
    (p.Plans ?? []).forEach(visit);
  };
  visit(plan);
  return out;
}
