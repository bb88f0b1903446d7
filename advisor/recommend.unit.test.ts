// How the advisor chooses among candidates that lower a query's cost, and ranks the indexes it
// recommends over all queries: pure rules, no PostgreSQL.
import { describe, expect, it } from 'vitest';
import type { PlannedQuery, Recommendation } from '../shared/analysis.js';
import type { PlanNode } from '../shared/plan.js';
import { cheapest, costWith, rankIndexes, type Tried } from './recommend.js';

const plan: PlanNode = { 'Node Type': 'Index Scan', 'Total Cost': 10, 'Plan Rows': 1 };
const tried = (
  cost: number,
  pages: number,
  columns = 1,
  name = `${cost}/${pages}/${columns}`,
): Tried<{ pages: number; keys: string[]; include: string[]; predicate: string | null; fixes?: string[]; rareValue?: boolean; name: string }> => ({
  c: { pages, keys: Array.from({ length: columns }, (_, i) => `k${i}`), include: [], predicate: null, name },
  plan,
  cost,
});

describe('choosing a candidate for a query', () => {
  it('takes the plan that costs least', () => {
    expect(cheapest([tried(50, 10), tried(20, 10), tried(30, 10)])?.cost).toBe(20);
  });

  it('gives a near-tie (within 1%) to the smaller index', () => {
    expect(cheapest([tried(100, 900), tried(100.5, 300)])?.c.pages).toBe(300);
    expect(cheapest([tried(100, 900), tried(102, 300)])?.c.pages).toBe(900);
  });

  it('gives a tie between equal sizes to the index with fewer columns', () => {
    expect(cheapest([tried(10, 50, 3), tried(10, 50, 1)])?.c.keys).toHaveLength(1);
  });

  it("gives a near-tie to an index serving every value over a partial one for the query's constant", () => {
    const full = { ...tried(277.44, 115, 2), c: { ...tried(0, 115, 2).c, keys: ['user_id', 'blog_id'] } };
    const partial = { ...tried(277.2, 14), c: { ...tried(0, 14).c, keys: ['blog_id'], predicate: 'user_id = 1', fixes: ['user_id'] } };
    expect(cheapest([partial, full])?.c.keys).toEqual(['user_id', 'blog_id']);
    // cheaper by more than 1%, or no full index with the fixed column: the partial one stays
    expect(cheapest([{ ...partial, cost: 250 }, full])?.c.predicate).toBe('user_id = 1');
    expect(cheapest([partial, { ...full, c: { ...full.c, keys: ['blog_id', 'id'] } }])?.c.predicate).toBe('user_id = 1');
    // a value the application singles out keeps its partial index
    expect(cheapest([{ ...partial, c: { ...partial.c, rareValue: true } }, full])?.c.predicate).toBe('user_id = 1');
  });

  it('takes nothing when no candidate was used', () => {
    expect(cheapest([])).toBeUndefined();
  });

  it('compares costs to the cent, with what the shadow leaves out added', () => {
    expect(costWith(() => 0.125)({ ...plan, 'Total Cost': 8.334 })).toBe(8.46);
    expect(costWith(() => 0)({ ...plan, 'Total Cost': 8.335 })).toBe(8.34);
  });
});

describe('ranking the recommended indexes', () => {
  const recommendation = (createIndex: string, totalSaved: number): Recommendation => ({
    createIndex,
    table: 'public.orders',
    method: 'btree',
    columns: ['customer_id'],
    include: [],
    predicate: null,
    costBefore: 100,
    costAfter: 10,
    savedPct: 90,
    totalSaved,
    estimatedPages: 30,
  });
  const query = (hash: string, ...recommendations: Recommendation[]): PlannedQuery => ({
    hash,
    plan,
    cost: 100,
    planShape: 'Seq Scan',
    planAfter: plan,
    recommendations,
    error: null,
    indexesUsed: [],
    tablesUsed: [],
  });

  it('lists an index that helps several queries once, with their savings summed and their hashes', () => {
    const ranked = rankIndexes([
      query('a', recommendation('CREATE INDEX ON orders (customer_id)', 500)),
      query('b', recommendation('CREATE INDEX ON orders (customer_id)', 700)),
    ]);
    expect(ranked).toHaveLength(1);
    expect(ranked[0]).toMatchObject({ createIndex: 'CREATE INDEX ON orders (customer_id)', totalSaved: 1200, queries: ['a', 'b'] });
    expect(ranked[0]).not.toHaveProperty('costBefore');
  });

  it('puts the index that saves most in total first, whatever it saves one query', () => {
    const ranked = rankIndexes([
      query('a', recommendation('CREATE INDEX ON orders (status)', 900)),
      query('b', recommendation('CREATE INDEX ON orders (customer_id)', 600)),
      query('c', recommendation('CREATE INDEX ON orders (customer_id)', 600)),
    ]);
    expect(ranked.map((r) => r.createIndex)).toEqual(['CREATE INDEX ON orders (customer_id)', 'CREATE INDEX ON orders (status)']);
  });
});
