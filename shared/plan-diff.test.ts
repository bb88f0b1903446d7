// The plan diff a developer reads on a failing run: which steps of the plan changed, and where the
// cost moved.
import { describe, expect, it } from 'vitest';
import type { PlanNode } from './plan';
import { diffPlans, formatRows, mostMovedStep } from './plan-diff';

const node = (type: string, cost: number, rows: number, rest: Partial<PlanNode> = {}): PlanNode => ({
  'Node Type': type,
  'Total Cost': cost,
  'Plan Rows': rows,
  ...rest,
});

const indexed = node('Nested Loop', 120, 40, {
  'Join Type': 'Inner',
  Plans: [
    node('Index Scan', 8.3, 1, { 'Relation Name': 'customers', Alias: 'c', 'Index Name': 'customers_pkey' }),
    node('Index Scan', 110, 40, { 'Relation Name': 'orders', Alias: 'o', 'Index Name': 'orders_customer_id_idx' }),
  ],
});
const sequential = node('Hash Join', 21000, 1_200_000, {
  'Join Type': 'Inner',
  Plans: [
    node('Seq Scan', 20500, 1_200_000, { 'Relation Name': 'orders', Alias: 'o' }),
    node('Hash', 8.3, 1, { Plans: [node('Index Scan', 8.3, 1, { 'Relation Name': 'customers', Alias: 'c', 'Index Name': 'customers_pkey' })] }),
  ],
});

describe('plan diff', () => {
  it('names the scan and join that changed method, the step added, and where the cost moved most', () => {
    const diff = diffPlans(indexed, sequential)!;
    expect(diff.summary).toEqual([
      'Nested Loop over c, o -> Hash Join over c, o (rows 1.2M)',
      'Index Scan using orders_customer_id_idx on orders o -> Seq Scan on orders o (rows 1.2M)',
      '+ Hash over c (rows 1)',
      'Cost moved most at Seq Scan on orders o: 110 -> 20,500',
    ]);
    expect(diff.changes).toContainEqual({
      kind: 'changed',
      node: 'Seq Scan on orders o',
      before: 'Index Scan using orders_customer_id_idx on orders o (rows 40)',
      after: 'Seq Scan on orders o (rows 1.2M)',
    });
    expect(diff.changes.filter((c) => c.kind === 'added').map((c) => c.node)).toEqual(['Hash over c']);
  });

  it('reads the reverse as removals, and identical plans as no change', () => {
    const back = diffPlans(sequential, indexed)!;
    expect(back.changes.map((c) => c.kind).sort()).toEqual(['changed', 'changed', 'removed']);
    expect(diffPlans(indexed, structuredClone(indexed))).toEqual({ summary: [], changes: [] });
  });

  it('counts estimated rows only beyond a factor of two', () => {
    const scan = (rows: number) => node('Seq Scan', rows, rows, { 'Relation Name': 'orders' });
    expect(diffPlans(scan(100), scan(200))!.changes).toEqual([]);
    expect(diffPlans(scan(100), scan(201))!.summary[0]).toBe('Seq Scan on orders: rows 100 -> 201');
  });

  it('folds a bitmap index scan into its heap scan, so a changed index shows once', () => {
    const bitmap = (index: string) =>
      node('Bitmap Heap Scan', 50, 10, { 'Relation Name': 'orders', Plans: [node('Bitmap Index Scan', 4, 10, { 'Index Name': index })] });
    expect(diffPlans(bitmap('orders_a_idx'), bitmap('orders_b_idx'))!.summary).toEqual([
      'Bitmap Heap Scan using orders_a_idx on orders -> Bitmap Heap Scan using orders_b_idx on orders (rows 10)',
    ]);
  });

  it('is the same diff whatever the order it is asked in, and null without both plans', () => {
    expect(JSON.stringify(diffPlans(indexed, sequential))).toBe(JSON.stringify(diffPlans(structuredClone(indexed), structuredClone(sequential))));
    expect(diffPlans(null, sequential)).toBeNull();
    expect(diffPlans(indexed, undefined)).toBeNull();
  });

  it('writes row counts short', () => {
    expect([12, 1500, 35_400, 1_234_567, 3e9].map(formatRows)).toEqual(['12', '1.5k', '35.4k', '1.2M', '3G']);
  });
});

describe('the step whose cost moved most', () => {
  it('is named in the diff, and found with its node in each plan for a view to highlight', () => {
    const most = mostMovedStep(indexed, sequential)!;
    expect(most.label).toBe('Seq Scan on orders o');
    expect(most.before).toBe(indexed.Plans![1]);
    expect(most.after).toBe(sequential.Plans![0]);
    expect(diffPlans(indexed, sequential)!.summary.at(-1)).toBe(`Cost moved most at ${most.label}: 110 -> 20,500`);
    expect(mostMovedStep(indexed, structuredClone(indexed))).toBeNull();
  });
});
