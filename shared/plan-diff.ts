// The difference between two plans of one query (the baseline's and the run's), on their trees:
// the scans, joins and other steps each has that the other lacks, the steps whose method, index or
// estimated rows (by more than 2x) changed, and the step whose own cost moved most. Pure and
// deterministic: the same two plans give the same diff, line for line.
//
// Matching: a scan is the same step in both plans when it reads the same relation under the same
// alias (a Bitmap Index Scan is folded into the Bitmap Heap Scan above it); any other step when it
// has the same kind (every join is one kind, so a Nested Loop can become a Hash Join) over the same
// relations, the n-th such step of one plan with the n-th of the other.
import { z } from 'zod';
import type { PlanNode } from './plan';

export const PLAN_CHANGE_KINDS = ['added', 'removed', 'changed'] as const;

export const planChangeSchema = z.object({
  kind: z.enum(PLAN_CHANGE_KINDS),
  node: z.string().meta({ description: 'The step, as EXPLAIN names it (e.g. "Seq Scan on orders")' }),
  before: z.string().optional().meta({ description: "The step in the baseline's plan, with its estimated rows" }),
  after: z.string().optional().meta({ description: "The step in this run's plan, with its estimated rows" }),
});
export type PlanChange = z.infer<typeof planChangeSchema>;

export const planDiffSchema = z
  .object({
    summary: z.array(z.string()).meta({ description: 'A few lines in words, the step whose cost moved most last' }),
    changes: z.array(planChangeSchema),
  })
  .meta({ id: 'PlanDiff', description: "How this run's plan differs from the baseline's" });
export type PlanDiff = z.infer<typeof planDiffSchema>;

/** Estimated rows must differ by more than this factor to count as a change. */
export const ROWS_FACTOR = 2;

interface Step {
  key: string;
  label: string;
  rows: number;
  /** The step's own cost: its total less its children's. */
  ownCost: number;
  node: PlanNode;
}

const isJoin = (type: string) => type === 'Nested Loop' || type.endsWith(' Join');

/** 1234567 -> "1.2M", 35400 -> "35k", 12 -> "12". */
export function formatRows(rows: number): string {
  const trim = (value: number) => (value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10));
  if (rows >= 1e9) return `${trim(rows / 1e9)}G`;
  if (rows >= 1e6) return `${trim(rows / 1e6)}M`;
  if (rows >= 1e3) return `${trim(rows / 1e3)}k`;
  return String(Math.round(rows));
}

const formatCost = (cost: number) => (Math.round(cost * 10) / 10).toLocaleString('en-US');

function relationsUnder(node: PlanNode, out = new Set<string>()): Set<string> {
  if (node['Relation Name']) out.add(node.Alias ?? node['Relation Name']);
  for (const child of node.Plans ?? []) relationsUnder(child, out);
  return out;
}

function scanLabel(node: PlanNode): string {
  const bitmapIndexes = (node.Plans ?? []).flatMap(function names(child): string[] {
    return [...(child['Index Name'] ? [child['Index Name']] : []), ...(child.Plans ?? []).flatMap(names)];
  });
  const index = node['Index Name'] ?? (bitmapIndexes.length ? bitmapIndexes.join(', ') : undefined);
  const relation = node['Relation Name']!;
  const alias = node.Alias && node.Alias !== relation ? ` ${node.Alias}` : '';
  return `${node['Node Type']}${index ? ` using ${index}` : ''} on ${relation}${alias}`;
}

/** The steps of a plan, parents first; Bitmap Index Scans belong to their heap scan. */
function steps(plan: PlanNode): Step[] {
  const out: Step[] = [];
  const seen = new Map<string, number>();
  const visit = (node: PlanNode) => {
    const type = node['Node Type'];
    const children = node.Plans ?? [];
    const ownCost = Math.max(0, node['Total Cost'] - children.reduce((sum, c) => sum + c['Total Cost'], 0));
    let base: string;
    let label: string;
    if (node['Relation Name']) {
      base = `scan ${node['Relation Name']} ${node.Alias ?? ''}`;
      label = scanLabel(node);
    } else {
      const relations = [...relationsUnder(node)].sort();
      const kind = isJoin(type) ? 'join' : type;
      base = `${kind} ${relations.join(',')}`;
      const join = node['Join Type'] && node['Join Type'] !== 'Inner' ? ` (${node['Join Type']})` : '';
      label = `${type}${join}${relations.length ? ` over ${relations.join(', ')}` : ''}`;
    }
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ key: `${base}#${n}`, label, rows: node['Plan Rows'], ownCost, node });
    const folded = node['Node Type'] === 'Bitmap Heap Scan';
    for (const child of children) if (!(folded && child['Node Type'].startsWith('Bitmap'))) visit(child);
  };
  visit(plan);
  return out;
}

const rowsApart = (a: number, b: number) => Math.max(a, b) > ROWS_FACTOR * Math.max(Math.min(a, b), 1);

/** A step's own cost in each plan (0 where the plan lacks it), and its nodes there. */
export interface CostMove {
  label: string;
  from: number;
  to: number;
  before: PlanNode | null;
  after: PlanNode | null;
}

/** The first of the largest moves, or null when no step's cost moved. */
function mostMoved(moves: readonly CostMove[]): CostMove | null {
  let most: CostMove | null = null;
  for (const move of moves) if (!most || Math.abs(move.to - move.from) > Math.abs(most.to - most.from)) most = move;
  return most && most.to !== most.from ? most : null;
}

/** The step whose own cost moved most between the two plans, with its node in each (for a view to highlight). */
export function mostMovedStep(baseline: PlanNode | null | undefined, run: PlanNode | null | undefined): CostMove | null {
  if (!baseline || !run) return null;
  const after = steps(run);
  const before = steps(baseline);
  const afterByKey = new Map(after.map((s) => [s.key, s]));
  const beforeKeys = new Set(before.map((s) => s.key));
  const moves: CostMove[] = [];
  for (const step of before) {
    const now = afterByKey.get(step.key);
    moves.push({ label: (now ?? step).label, from: step.ownCost, to: now?.ownCost ?? 0, before: step.node, after: now?.node ?? null });
  }
  for (const step of after) if (!beforeKeys.has(step.key)) moves.push({ label: step.label, from: 0, to: step.ownCost, before: null, after: step.node });
  return mostMoved(moves);
}

/** The diff of the baseline's plan and the run's; null when either is missing. */
export function diffPlans(baseline: PlanNode | null | undefined, run: PlanNode | null | undefined): PlanDiff | null {
  if (!baseline || !run) return null;
  const before = steps(baseline);
  const after = steps(run);
  const beforeByKey = new Map(before.map((s) => [s.key, s]));
  const afterKeys = new Set(after.map((s) => s.key));
  const lines: { change: PlanChange; line: string }[] = [];
  const moves: CostMove[] = [];
  const withRows = (step: Step) => `${step.label} (rows ${formatRows(step.rows)})`;

  for (const step of before) {
    if (afterKeys.has(step.key)) continue;
    lines.push({ change: { kind: 'removed', node: step.label, before: withRows(step) }, line: `- ${withRows(step)}` });
    moves.push({ label: step.label, from: step.ownCost, to: 0, before: step.node, after: null });
  }
  for (const step of after) {
    const old = beforeByKey.get(step.key);
    if (!old) {
      lines.push({ change: { kind: 'added', node: step.label, after: withRows(step) }, line: `+ ${withRows(step)}` });
      moves.push({ label: step.label, from: 0, to: step.ownCost, before: null, after: step.node });
      continue;
    }
    moves.push({ label: step.label, from: old.ownCost, to: step.ownCost, before: old.node, after: step.node });
    if (old.label !== step.label || rowsApart(old.rows, step.rows)) {
      lines.push({
        change: { kind: 'changed', node: step.label, before: withRows(old), after: withRows(step) },
        line: old.label === step.label ? `${step.label}: rows ${formatRows(old.rows)} -> ${formatRows(step.rows)}` : `${old.label} -> ${withRows(step)}`,
      });
    }
  }

  // Scans and joins first (what a reader looks for), then the other steps, each in plan order.
  const rank = (c: PlanChange) => (/ on | over /.test(c.node) ? 0 : 1);
  const ordered = lines.map((l, i) => ({ ...l, i })).sort((a, b) => rank(a.change) - rank(b.change) || a.i - b.i);
  const changes = ordered.map((l) => l.change);
  const summary = ordered.map((l) => l.line);
  const most = mostMoved(moves);
  if (most) summary.push(`Cost moved most at ${most.label}: ${formatCost(most.from)} -> ${formatCost(most.to)}`);
  return { summary, changes };
}
