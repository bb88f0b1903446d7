// Reading EXPLAIN (FORMAT JSON) plans for people: what a node does, what it costs, and which nodes
// differ between production's plan and the plan with the recommended indexes in place.
import { RECOMMENDED_INDEX_PREFIX, eachPlanNode, type PlanNode } from '../../shared/plan';

const costFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const largeCostFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });

/** A planner cost: two decimals while small, whole numbers once large enough that decimals are noise. */
export function formatCost(cost: number): string {
  return (Math.abs(cost) >= 1000 ? largeCostFormat : costFormat).format(cost);
}

export function formatPercent(value: number): string {
  return `${value >= 10 || value === 0 ? Math.round(value) : value.toFixed(1)}%`;
}

/** "Index Scan on orders using orders_customer_idx": the parts that identify what a node reads. */
export function describeNode(node: PlanNode): string {
  const parts = [node['Node Type']];
  const strategy = node.Strategy;
  if (node['Node Type'] === 'Aggregate' && typeof strategy === 'string' && strategy !== 'Plain') parts[0] = `${strategy} ${parts[0]}`;
  const join = node['Join Type'];
  if (typeof join === 'string' && join !== 'Inner') parts[0] = `${parts[0]} (${join})`;
  if (node['Relation Name']) {
    const alias = node.Alias;
    parts.push(`on ${node['Relation Name']}${typeof alias === 'string' && alias !== node['Relation Name'] ? ` ${alias}` : ''}`);
  }
  const index = node['Index Name'];
  if (index)
    parts.push(index.startsWith(RECOMMENDED_INDEX_PREFIX) ? `using the recommended index ${index.slice(RECOMMENDED_INDEX_PREFIX.length)}` : `using ${index}`);
  return parts.join(' ');
}

/** Conditions and keys worth reading beside a node, as PostgreSQL prints them. */
const DETAIL_KEYS = ['Index Cond', 'Recheck Cond', 'Hash Cond', 'Merge Cond', 'Join Filter', 'Filter', 'Sort Key', 'Group Key'] as const;

export function nodeDetails(node: PlanNode): { label: string; text: string }[] {
  const details: { label: string; text: string }[] = [];
  for (const key of DETAIL_KEYS) {
    const value = node[key];
    if (typeof value === 'string' && value) details.push({ label: key, text: value });
    else if (Array.isArray(value) && value.length > 0) details.push({ label: key, text: value.join(', ') });
  }
  return details;
}

/** What makes two nodes "the same step": its kind and what it reads. Costs may differ freely. */
const signatureOf = (node: PlanNode) => [node['Node Type'], node['Relation Name'] ?? '', node['Index Name'] ?? ''].join('\u0000');

/**
 * The nodes of `plan` that have no counterpart in `other`: every node type + relation + index is
 * matched once against the other plan's, so a node that only moved (a Sort above a new Index
 * Scan) is not reported, while a Seq Scan replaced by an Index Scan is, in both plans.
 */
export function changedNodes(plan: PlanNode, other: PlanNode | null): Set<PlanNode> {
  const changed = new Set<PlanNode>();
  if (!other) return changed;
  const available = new Map<string, number>();
  eachPlanNode(other, (node) => available.set(signatureOf(node), (available.get(signatureOf(node)) ?? 0) + 1));
  eachPlanNode(plan, (node) => {
    const left = available.get(signatureOf(node)) ?? 0;
    if (left > 0) available.set(signatureOf(node), left - 1);
    else changed.add(node);
  });
  return changed;
}
