// A query plan as EXPLAIN (FORMAT JSON) gives it, and the ways the advisor, the server and the SPA
// read one. A node keeps PostgreSQL's own field names ("Node Type", "Total Cost", "Plans"); the
// fields read here are declared, every other one travels as PostgreSQL wrote it.
import { z } from 'zod';

export const planNodeSchema = z
  .object({
    'Node Type': z.string(),
    'Total Cost': z.number(),
    'Plan Rows': z.number(),
    'Relation Name': z.string().optional(),
    Alias: z.string().optional(),
    'Index Name': z.string().optional(),
    'Join Type': z.string().optional(),
    Strategy: z.string().optional(),
    'Parent Relationship': z.string().optional(),
    get Plans() {
      return z.array(planNodeSchema).optional();
    },
  })
  .catchall(z.unknown())
  .meta({ id: 'PlanNode', description: 'A node of EXPLAIN (FORMAT JSON), its fields as PostgreSQL names them' });
export type PlanNode = z.infer<typeof planNodeSchema>;

/**
 * How a plan names an index the advisor recommends: "recommended: " and the index's target, e.g.
 * "recommended: public.orders (customer_id)". The shadow's scratch names mean nothing to a reader.
 */
export const RECOMMENDED_INDEX_PREFIX = 'recommended: ';

/** Calls `visit` on the node and every node under it, parents first. */
export function eachPlanNode(plan: PlanNode, visit: (node: PlanNode) => void): void {
  visit(plan);
  for (const child of plan.Plans ?? []) eachPlanNode(child, visit);
}

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
  eachPlanNode(plan, (node) => {
    if (node['Index Name']) out.add(node['Index Name']);
  });
  return out;
}
