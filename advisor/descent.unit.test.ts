// The B-tree descents production charges and the shadow's near-empty indexes do not: what the
// advisor adds back to a plan's cost before comparing plans.
import { describe, expect, it } from 'vitest';
import type { PlanNode } from '../shared/plan.js';
import { btreeHeights, descentCost } from './descent.js';
import type { Snapshot } from '../snapshot/types.js';

const CPU_OPERATOR_COST = 0.0025;
/** One descent of a height-2 index: 2 x 50 x cpu_operator_cost. */
const DESCENT = 2 * 50 * CPU_OPERATOR_COST;
const heights = new Map([['orders_customer_idx', 2]]);

const node = (type: string, rows: number, rest: Partial<PlanNode> = {}): PlanNode => ({ 'Node Type': type, 'Total Cost': 1, 'Plan Rows': rows, ...rest });
const indexScan = (rows = 10, rest: Partial<PlanNode> = {}) => node('Index Scan', rows, { 'Index Name': 'orders_customer_idx', ...rest });
const cost = (plan: PlanNode) => descentCost(plan, heights, CPU_OPERATOR_COST);

describe('the B-tree descent correction', () => {
  it('is nothing for a plan without index scans', () => {
    expect(cost(node('Seq Scan', 1000, { 'Relation Name': 'orders' }))).toBe(0);
  });

  it('charges an index scan its height x 50 x cpu_operator_cost', () => {
    expect(cost(indexScan())).toBeCloseTo(DESCENT);
    expect(cost(node('Bitmap Heap Scan', 10, { Plans: [node('Bitmap Index Scan', 10, { 'Index Name': 'orders_customer_idx' })] }))).toBeCloseTo(DESCENT);
    expect(cost(node('Index Only Scan', 10, { 'Index Name': 'orders_customer_idx' }))).toBeCloseTo(DESCENT);
  });

  it('charges nothing for an index whose height it does not know', () => {
    expect(cost(indexScan(10, { 'Index Name': 'unknown_idx' }))).toBe(0);
  });

  it('charges the inner side of a nested loop once per outer row', () => {
    const loop = node('Nested Loop', 100, {
      Plans: [node('Seq Scan', 100, { 'Parent Relationship': 'Outer' }), indexScan(1, { 'Parent Relationship': 'Inner' })],
    });
    expect(cost(loop)).toBeCloseTo(100 * DESCENT);
  });

  it('charges a scan under a Materialize or a Hash once, however often that runs', () => {
    const materialized = node('Nested Loop', 100, {
      Plans: [node('Seq Scan', 100, { 'Parent Relationship': 'Outer' }), node('Materialize', 10, { 'Parent Relationship': 'Inner', Plans: [indexScan(10)] })],
    });
    expect(cost(materialized)).toBeCloseTo(DESCENT);
    const hashed = node('Hash Join', 100, { Plans: [node('Seq Scan', 100, { 'Parent Relationship': 'Outer' }), node('Hash', 10, { Plans: [indexScan(10)] })] });
    expect(cost(hashed)).toBeCloseTo(DESCENT);
  });

  it('charges a scan under a Limit for the share of its rows the Limit reads', () => {
    expect(cost(node('Limit', 10, { Plans: [indexScan(1000)] }))).toBeCloseTo(DESCENT * 0.01);
  });

  it('charges in full a scan whose rows a Sort or a hashed Aggregate reads before the Limit gets any', () => {
    expect(cost(node('Limit', 10, { Plans: [node('Sort', 1000, { Plans: [indexScan(1000)] })] }))).toBeCloseTo(DESCENT);
    expect(cost(node('Limit', 10, { Plans: [node('Aggregate', 1000, { Strategy: 'Hashed', Plans: [indexScan(1000)] })] }))).toBeCloseTo(DESCENT);
    expect(cost(node('Limit', 10, { Plans: [node('Aggregate', 1000, { Strategy: 'Sorted', Plans: [indexScan(1000)] })] }))).toBeCloseTo(DESCENT * 0.01);
  });

  it('adds up every scan of the plan, one per partition of an Append', () => {
    expect(cost(node('Append', 30, { Plans: [indexScan(10), indexScan(10), indexScan(10)] }))).toBeCloseTo(3 * DESCENT);
  });
});

describe("heights of production's indexes", () => {
  const snapshot = {
    relations: [
      { schema: 'public', name: 'orders', kind: 'r', relpages: 8000, reltuples: 1_000_000, relallvisible: 0, blocks: 8000 },
      { schema: 'public', name: 'orders_pkey', kind: 'i', relpages: 2745, reltuples: 1_000_000, relallvisible: 0, blocks: 2745 },
      { schema: 'public', name: 'orders_small_idx', kind: 'i', relpages: 1, reltuples: 10, relallvisible: 0, blocks: 1 },
      { schema: 'public', name: 'orders_payload_idx', kind: 'i', relpages: 5000, reltuples: 1_000_000, relallvisible: 0, blocks: 5000 },
    ],
    indexes: [
      {
        schema: 'public',
        table: 'orders',
        name: 'orders_pkey',
        am: 'btree',
        keys: ['id'],
        include: [],
        predicate: null,
        unique: true,
        parent: null,
        definition: '',
      },
      {
        schema: 'public',
        table: 'orders',
        name: 'orders_small_idx',
        am: 'btree',
        keys: ['status'],
        include: [],
        predicate: null,
        unique: false,
        parent: null,
        definition: '',
      },
      {
        schema: 'public',
        table: 'orders',
        name: 'orders_payload_idx',
        am: 'gin',
        keys: ['payload'],
        include: [],
        predicate: null,
        unique: false,
        parent: null,
        definition: '',
      },
    ],
    stats: [{ schema: 'public', table: 'orders', column: 'id', inherited: false, values: { avg_width: 4, null_frac: 0, n_distinct: -1 } }],
  } as Pick<Snapshot, 'relations' | 'indexes' | 'stats'> as Snapshot;

  it('are estimated for B-trees from their production page counts, and not for other methods', () => {
    const found = btreeHeights(snapshot);
    expect(found.get('orders_pkey')).toBe(2);
    expect(found.get('orders_small_idx')).toBe(0);
    expect(found.has('orders_payload_idx')).toBe(false);
  });
});
