// Which indexes the advisor tries for a query, read from the query alone: no PostgreSQL, a small
// table map written by hand. The shadow planner decides later which of them wins.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadParser } from '../shared/sql-fingerprint.js';
import { candidateKey, candidatesFor, candidateTarget, isCovered, type CandidateOptions, type IndexCandidate } from './candidates.js';
import type { TableMap, ColumnInfo } from './table-map.js';
import { PARTIAL_MAX_DISTINCT, UsageCollector } from './usage.js';

beforeAll(() => loadParser());

/** Column -> [type, typcategory, distinct values]. */
const TABLES: Record<string, Record<string, [string, string, number]>> = {
  orders: {
    id: ['integer', 'N', 1_000_000],
    customer_id: ['integer', 'N', 50_000],
    store_id: ['integer', 'N', 40],
    status: ['text', 'S', 5],
    created_at: ['timestamp with time zone', 'D', 900_000],
    total: ['numeric', 'N', 10_000],
    payload: ['jsonb', 'U', 1_000_000],
    tags: ['text[]', 'A', 500],
    note: ['text', 'S', 200_000],
    shipped: ['boolean', 'B', 2],
  },
  customers: {
    id: ['integer', 'N', 50_000],
    country: ['text', 'S', 30],
    email: ['text', 'S', 50_000],
  },
};

const tables: TableMap = {
  resolve: (schema, name) => ((schema ?? 'public') === 'public' && TABLES[name] ? { schema: 'public', table: name } : undefined),
  columns: (t) => {
    const columns = TABLES[t.table];
    return columns && new Map(Object.entries(columns).map(([name, [type, category]]): [string, ColumnInfo] => [name, { type, category }]));
  },
  distinct: (t, column) => TABLES[t.table]?.[column]?.[2] ?? 200,
};

/** The candidates for a query, as the CREATE INDEX targets a reader would see. */
function candidates(sql: string, options?: CandidateOptions): string[] {
  return candidatesFor(new UsageCollector(tables).collect(sql), tables, options).map(candidateTarget);
}

describe('candidate indexes for a query', () => {
  it('tries every column the query filters on, alone', () => {
    const found = candidates('SELECT * FROM orders WHERE customer_id = $1 AND created_at > $2');
    expect(found).toContain('public.orders (customer_id)');
    expect(found).toContain('public.orders (created_at)');
  });

  it('puts equality columns before range columns', () => {
    const found = candidates('SELECT * FROM orders WHERE created_at > $2 AND customer_id = $1');
    expect(found).toContain('public.orders (customer_id, created_at)');
    expect(found).not.toContain('public.orders (created_at, customer_id)');
  });

  it('puts the most selective equality column first', () => {
    const found = candidates('SELECT * FROM orders WHERE store_id = $1 AND customer_id = $2');
    expect(found).toContain('public.orders (customer_id, store_id)');
    expect(found).not.toContain('public.orders (store_id, customer_id)');
  });

  it('reads a comparison written value first from the column side', () => {
    expect(candidates('SELECT * FROM orders WHERE customer_id = $1 AND $2 < created_at')).toContain('public.orders (customer_id, created_at)');
  });

  it('follows the equality columns with the ORDER BY columns, so the index returns rows in order', () => {
    expect(candidates('SELECT * FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 10')).toContain('public.orders (customer_id, created_at)');
  });

  it('follows the equality columns with the GROUP BY columns', () => {
    expect(candidates('SELECT status, count(*) FROM orders WHERE store_id = $1 GROUP BY status')).toContain('public.orders (store_id, status)');
  });

  it('takes IN, = ANY and IS NULL as equalities, BETWEEN and a prefix LIKE as ranges', () => {
    expect(candidates('SELECT * FROM orders WHERE store_id IN (1, 2) AND created_at BETWEEN $1 AND $2')).toContain('public.orders (store_id, created_at)');
    expect(candidates('SELECT * FROM orders WHERE store_id = ANY($1) AND created_at > $2')).toContain('public.orders (store_id, created_at)');
    expect(candidates("SELECT * FROM customers WHERE country = $1 AND email LIKE 'ann%'")).toContain('public.customers (country, email)');
  });

  it('does not take an infix LIKE or a comparison between two columns of one table as something an index seeks', () => {
    expect(candidates("SELECT * FROM customers WHERE email LIKE '%@example.com'")).toEqual([]);
    expect(candidates('SELECT * FROM orders WHERE created_at > id')).toEqual([]);
  });

  it('tries the join column of each side, first or last with the equalities', () => {
    const found = candidates('SELECT o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = $1 AND c.country = $2');
    expect(found).toContain('public.orders (customer_id)');
    expect(found).toContain('public.orders (customer_id, status)');
    expect(found).toContain('public.orders (status, customer_id)');
    expect(found).toContain('public.customers (id, country)');
  });

  it('gives only single-column candidates for the arms of an OR (a bitmap OR combines them)', () => {
    const found = candidates('SELECT * FROM orders WHERE customer_id = $1 OR store_id = $2');
    expect(found).toEqual(['public.orders (customer_id)', 'public.orders (store_id)']);
  });

  it('stops at single columns when maxColumns is 1 (the single-column advisor)', () => {
    const found = candidates("SELECT id FROM orders WHERE customer_id = $1 AND status = 'paid' ORDER BY created_at", { maxColumns: 1 });
    expect(found.every((c) => /^public\.orders \(\w+\)$/.test(c))).toBe(true);
  });

  it('never builds a B-tree of more than maxColumns keys', () => {
    const sql = 'SELECT * FROM orders WHERE customer_id = $1 AND store_id = $2 AND total = $3 AND created_at > $4';
    for (const c of candidatesFor(new UsageCollector(tables).collect(sql), tables, { maxColumns: 2 })) expect(c.keys.length).toBeLessThanOrEqual(2);
  });

  it('adds a covering variant with the other columns the query reads, for an index-only scan', () => {
    const found = candidates('SELECT id, total FROM orders WHERE customer_id = $1');
    expect(found).toContain('public.orders (customer_id) INCLUDE (id, total)');
  });

  it('adds the other columns the query reads as further keys when they fit, ranges before the rest', () => {
    const found = candidates('SELECT store_id FROM orders WHERE created_at > $1 AND total >= $2');
    expect(found).toContain('public.orders (created_at, total, store_id)');
    expect(found).toContain('public.orders (total, created_at, store_id)');
    expect(found).toContain('public.orders (created_at) INCLUDE (total, store_id)');
    // Four columns do not fit in three keys: INCLUDE only.
    const wide = candidates('SELECT store_id, note FROM orders WHERE created_at > $1 AND total >= $2');
    expect(wide.filter((c) => /^public\.orders \(created_at, total, /.test(c))).toEqual([]);
    expect(candidates('SELECT store_id FROM orders WHERE created_at > $1 AND total >= $2', { maxColumns: 2 })).not.toContain(
      'public.orders (created_at, total, store_id)',
    );
  });

  it('puts the grouping columns ahead of the equalities in one candidate', () => {
    const found = candidates('SELECT store_id, count(*) FROM orders WHERE status = $1 GROUP BY store_id');
    expect(found).toContain('public.orders (store_id, status)');
    expect(found).toContain('public.orders (status, store_id)');
  });

  it('adds no covering variant when the query reads every column, or more than four others', () => {
    expect(candidates('SELECT * FROM orders WHERE customer_id = $1').some((c) => c.includes('INCLUDE'))).toBe(false);
    expect(candidates('SELECT id, total, status, note, created_at FROM orders WHERE customer_id = $1').some((c) => c.includes('INCLUDE'))).toBe(false);
    expect(candidates('SELECT id, total FROM orders WHERE customer_id = $1', { include: false }).some((c) => c.includes('INCLUDE'))).toBe(false);
  });

  it('makes a literal on a state-like column the predicate of a partial index', () => {
    const found = candidates("SELECT id FROM orders WHERE status = 'refunded' AND created_at > $1");
    expect(found).toContain("public.orders (created_at) WHERE status = 'refunded'");
  });

  it('does not take a literal on a high-cardinality column as a partial predicate', () => {
    expect(TABLES.orders!.customer_id![2]).toBeGreaterThan(PARTIAL_MAX_DISTINCT);
    const found = candidates('SELECT * FROM orders WHERE customer_id = 42 AND created_at > $1');
    expect(found.some((c) => c.includes('WHERE'))).toBe(false);
    expect(found).toContain('public.orders (customer_id, created_at)');
  });

  it('does not take a $n parameter as a partial predicate, whatever the column', () => {
    expect(candidates('SELECT * FROM orders WHERE status = $1 AND created_at > $2').some((c) => c.includes('WHERE'))).toBe(false);
  });

  it('turns IS NULL, IS NOT NULL, <> and a boolean column into partial predicates', () => {
    expect(candidates('SELECT * FROM orders WHERE note IS NULL ORDER BY created_at')).toContain('public.orders (created_at) WHERE note IS NULL');
    expect(candidates('SELECT * FROM orders WHERE note IS NOT NULL AND customer_id = $1')).toContain('public.orders (customer_id) WHERE note IS NOT NULL');
    expect(candidates("SELECT * FROM orders WHERE status <> 'paid' AND customer_id = $1")).toContain("public.orders (customer_id) WHERE status <> 'paid'");
    expect(candidates('SELECT * FROM orders WHERE NOT shipped AND created_at < $1')).toContain('public.orders (created_at) WHERE NOT shipped');
    expect(candidates('SELECT * FROM orders WHERE note IS NULL ORDER BY created_at', { partial: false }).some((c) => c.includes('WHERE'))).toBe(false);
  });

  it('tries GIN for containment on jsonb and arrays, and not on other types', () => {
    expect(candidates(`SELECT * FROM orders WHERE payload @> '{"a": 1}'`)).toEqual(['public.orders USING gin (payload)']);
    expect(candidates('SELECT * FROM orders WHERE tags && $1')).toEqual(['public.orders USING gin (tags)']);
    expect(candidates(`SELECT * FROM orders WHERE payload @> '{"a": 1}'`, { gin: false })).toEqual([]);
    expect(candidates("SELECT * FROM customers WHERE email @> 'x'")).toEqual([]);
  });

  it('finds the columns of UPDATE and DELETE, subqueries, CTEs and UNION arms', () => {
    expect(candidates('UPDATE orders SET total = $1 WHERE customer_id = $2')).toContain('public.orders (customer_id)');
    expect(candidates('DELETE FROM orders WHERE created_at < $1')).toContain('public.orders (created_at)');
    expect(candidates('SELECT * FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE store_id = $1)')).toContain('public.orders (store_id)');
    expect(candidates('WITH recent AS (SELECT * FROM orders WHERE created_at > $1) SELECT * FROM recent')).toContain('public.orders (created_at)');
    const union = candidates('SELECT id FROM orders WHERE store_id = $1 UNION SELECT id FROM customers WHERE country = $2');
    expect(union).toContain('public.orders (store_id)');
    expect(union).toContain('public.customers (country)');
  });

  it('proposes nothing on views, CTE names and tables it does not know', () => {
    expect(candidates('SELECT * FROM order_summary WHERE customer_id = $1')).toEqual([]);
    expect(candidates('WITH orders AS (SELECT 1 AS customer_id) SELECT * FROM orders WHERE customer_id = $1')).toEqual([]);
  });

  it('lists each candidate once, however often the query asks for it', () => {
    const found = candidatesFor(
      new UsageCollector(tables).collect('SELECT * FROM orders WHERE customer_id = $1 AND customer_id = $2 ORDER BY customer_id'),
      tables,
    );
    expect(new Set(found.map(candidateKey)).size).toBe(found.length);
  });
});

describe('equality plus order', () => {
  it('puts the equality column before the sort column, for ascending and descending sorts alike', () => {
    for (const dir of ['', ' DESC']) {
      expect(candidates(`SELECT * FROM orders WHERE store_id = $1 ORDER BY created_at${dir} LIMIT 20`)).toContain('public.orders (store_id, created_at)');
    }
  });

  it('keeps every sort column after the equality, with the directions of a mixed sort', () => {
    const found = candidates('SELECT id FROM orders WHERE store_id = $1 ORDER BY created_at DESC, id LIMIT 20');
    expect(found).toContain('public.orders (store_id, created_at, id DESC)');
    expect(found).not.toContain('public.orders (store_id, created_at, id)');
  });

  it('serves the sort of a join from the index on the table the sort is on', () => {
    const found = candidates(
      'SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.store_id = $1 ORDER BY o.created_at DESC LIMIT 10',
    );
    expect(found).toContain('public.orders (store_id, created_at)');
  });

  it('marks a partial candidate with the column its predicate fixes, so a full index can win a tie', () => {
    const found = candidatesFor(new UsageCollector(tables).collect("SELECT * FROM orders WHERE status = 'paid' ORDER BY created_at LIMIT 20"), tables);
    expect(found.find((c) => c.predicate === "status = 'paid'" && c.keys[0] === 'created_at')?.fixes).toEqual(['status']);
    expect(found.map(candidateTarget)).toContain('public.orders (status, created_at)');
    expect(found.filter((c) => c.predicate === null).every((c) => c.fixes === undefined)).toBe(true);
  });
});

describe('indexes the database already has', () => {
  const candidate = (keys: string[], rest: Partial<IndexCandidate> = {}): IndexCandidate => ({
    schema: 'public',
    table: 'orders',
    am: 'btree',
    keys,
    include: [],
    predicate: null,
    ...rest,
  });
  const existing = (keys: (string | null)[], rest: { am?: string; include?: string[]; predicate?: string | null } = {}) => ({
    am: 'btree',
    include: [],
    predicate: null,
    keys,
    ...rest,
  });

  it('cover a candidate whose keys are their leading keys', () => {
    expect(isCovered(candidate(['customer_id']), existing(['customer_id', 'created_at']))).toBe(true);
    expect(isCovered(candidate(['created_at']), existing(['customer_id', 'created_at']))).toBe(false);
    expect(isCovered(candidate(['customer_id', 'created_at']), existing(['customer_id']))).toBe(false);
  });

  it('cover a covering candidate only when they hold its INCLUDE columns', () => {
    expect(isCovered(candidate(['customer_id'], { include: ['total'] }), existing(['customer_id'], { include: ['total', 'id'] }))).toBe(true);
    expect(isCovered(candidate(['customer_id'], { include: ['created_at'] }), existing(['customer_id', 'created_at']))).toBe(true);
    expect(isCovered(candidate(['customer_id'], { include: ['total'] }), existing(['customer_id']))).toBe(false);
  });

  it('cover a partial candidate only with the same predicate: a full index reads the rows the partial one skips', () => {
    const partial = candidate(['created_at'], { predicate: "(status = 'refunded'::text)" });
    expect(isCovered(partial, existing(['created_at']))).toBe(false);
    expect(isCovered(partial, existing(['created_at'], { predicate: "(status = 'refunded'::text)" }))).toBe(true);
    expect(isCovered(candidate(['created_at']), existing(['created_at'], { predicate: "(status = 'refunded'::text)" }))).toBe(false);
  });

  it('cover a candidate only with the same method', () => {
    expect(isCovered(candidate(['payload'], { am: 'gin' }), existing(['payload'], { am: 'gin' }))).toBe(true);
    expect(isCovered(candidate(['payload'], { am: 'gin' }), existing(['payload']))).toBe(false);
    expect(isCovered(candidate(['customer_id']), existing(['customer_id'], { am: 'hash' }))).toBe(false);
  });

  it('with an expression key cover nothing past it', () => {
    expect(isCovered(candidate(['customer_id', 'created_at']), existing(['customer_id', null]))).toBe(false);
  });
});
