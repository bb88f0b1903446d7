// Reading a plan: its shape for comparing two plans, the indexes it uses, and the node fields the
// wire keeps.
import { describe, expect, it } from 'vitest';
import { indexesUsed, planNodeSchema, planShape, type PlanNode } from './plan';

const node = (type: string, rest: Partial<PlanNode> = {}): PlanNode => ({ 'Node Type': type, 'Total Cost': 1, 'Plan Rows': 1, ...rest });
const plan = node('Limit', {
  Plans: [
    node('Nested Loop', {
      'Join Type': 'Inner',
      Plans: [
        node('Index Scan', { 'Relation Name': 'orders', 'Index Name': 'orders_customer_idx' }),
        node('Bitmap Heap Scan', { 'Relation Name': 'customers', Plans: [node('Bitmap Index Scan', { 'Index Name': 'customers_pkey' })] }),
      ],
    }),
  ],
});

describe('plans', () => {
  it('have a shape that names each step and what it reads, and leaves costs out', () => {
    expect(planShape(plan)).toBe(
      'Limit(Nested Loop[Inner](Index Scan orders using orders_customer_idx, Bitmap Heap Scan customers(Bitmap Index Scan using customers_pkey)))',
    );
    expect(planShape({ ...plan, 'Total Cost': 99, 'Plan Rows': 1000 })).toBe(planShape(plan));
  });

  it('name every index they read', () => {
    expect([...indexesUsed(plan)]).toEqual(['orders_customer_idx', 'customers_pkey']);
    expect(indexesUsed(node('Seq Scan')).size).toBe(0);
  });

  it('keep on the wire every field PostgreSQL wrote, and refuse a node without its type or costs', () => {
    const explained = { ...node('Seq Scan'), Filter: '(status = $1)', 'Startup Cost': 0, Plans: [{ ...node('Hash'), 'Hash Buckets': 1024 }] };
    expect(planNodeSchema.parse(explained)).toEqual(explained);
    expect(planNodeSchema.safeParse({ 'Total Cost': 1, 'Plan Rows': 1 }).success).toBe(false);
    expect(planNodeSchema.safeParse({ 'Node Type': 'Seq Scan', Plans: [{ 'Node Type': 'Hash' }] }).success).toBe(false);
  });
});
