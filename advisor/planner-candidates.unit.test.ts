// Candidates read the way the planner sees a query after rewriting: views replaced by their query,
// inlined CTEs and subqueries seen through, sorts by position and alias, mixed directions. A small
// table map written by hand; advisor/planner-candidates.test.ts proves the same shapes on real data.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadParser } from '../shared/sql-fingerprint.js';
import { candidatesFor, candidateTarget } from './candidates.js';
import type { TableMap, ColumnInfo } from './table-map.js';
import { UsageCollector } from './usage.js';

beforeAll(() => loadParser());

const TABLES: Record<string, Record<string, number>> = {
  orders: { id: 1_000_000, customer_id: 50_000, status: 5, created_at: 900_000, total: 10_000 },
  customers: { id: 50_000, country: 30, email: 50_000 },
};
const VIEWS: Record<string, string> = {
  paid_orders: `CREATE VIEW public.paid_orders AS SELECT o.id, o.customer_id, o.created_at AS paid_at, o.total FROM orders o WHERE o.status = 'paid'`,
  order_customers: `CREATE VIEW public.order_customers AS SELECT o.id AS order_id, o.created_at, c.email, c.country FROM orders o JOIN customers c ON c.id = o.customer_id`,
  recent_paid: `CREATE VIEW public.recent_paid AS SELECT * FROM paid_orders WHERE paid_at > '2024-01-01'`,
  top_orders: `CREATE VIEW public.top_orders AS SELECT id, customer_id FROM orders ORDER BY total DESC LIMIT 100`,
};

const tables: TableMap = {
  resolve: (schema, name) => ((schema ?? 'public') === 'public' && TABLES[name] ? { schema: 'public', table: name } : undefined),
  columns: (t) => {
    const columns = TABLES[t.table];
    return (
      columns &&
      new Map(Object.keys(columns).map((name): [string, ColumnInfo] => [name, { type: name === 'created_at' ? 'timestamptz' : 'integer', category: 'N' }]))
    );
  },
  distinct: (t, column) => TABLES[t.table]?.[column] ?? 200,
  view: (schema, name) => ((schema ?? 'public') === 'public' ? VIEWS[name] : undefined),
};

const candidates = (sql: string) => candidatesFor(new UsageCollector(tables).collect(sql), tables).map(candidateTarget);

describe('candidates as the planner sees the query', () => {
  it('sees through a view to its table, the view condition and the outer one together', () => {
    const found = candidates(`SELECT id FROM paid_orders WHERE customer_id = $1 ORDER BY paid_at DESC LIMIT 5`);
    expect(found).toContain(`public.orders (customer_id, created_at) WHERE status = 'paid'`);
    expect(found).toContain('public.orders (customer_id, status, created_at)');
  });

  it('sees through nested views and views with joins', () => {
    expect(candidates(`SELECT * FROM recent_paid WHERE customer_id = $1`)).toContain('public.orders (customer_id, status, created_at)');
    const joined = candidates(`SELECT order_id FROM order_customers WHERE email = $1`);
    expect(joined).toContain('public.customers (email)');
    expect(joined).toContain('public.orders (customer_id)');
  });

  it('does not push a condition through a view with LIMIT', () => {
    expect(candidates(`SELECT * FROM top_orders WHERE customer_id = $1`)).not.toContain('public.orders (customer_id)');
  });

  it('sees through inlined CTEs and subqueries in FROM, not through a MATERIALIZED CTE', () => {
    for (const sql of [
      `WITH o AS (SELECT id, customer_id FROM orders) SELECT id FROM o WHERE customer_id = $1`,
      `WITH o AS NOT MATERIALIZED (SELECT id, customer_id FROM orders) SELECT a.id FROM o a JOIN o b ON b.id = a.id WHERE a.customer_id = $1`,
      `SELECT id FROM (SELECT id, customer_id AS cust FROM orders) s WHERE cust = $1`,
      `SELECT c.email, l.id FROM customers c, LATERAL (SELECT id FROM orders o WHERE o.customer_id = c.id ORDER BY created_at DESC LIMIT 3) l WHERE c.country = $1`,
    ]) {
      expect(candidates(sql).some((c) => c.startsWith('public.orders (customer_id'))).toBe(true);
    }
    const fenced = candidates(`WITH o AS MATERIALIZED (SELECT id, customer_id FROM orders) SELECT id FROM o WHERE customer_id = $1`);
    expect(fenced.filter((c) => c.startsWith('public.orders'))).toEqual([]);
  });

  it('reads ORDER BY by position, by alias and with SELECT *', () => {
    expect(candidates(`SELECT created_at, id FROM orders WHERE customer_id = $1 ORDER BY 1 LIMIT 10`)).toContain('public.orders (customer_id, created_at)');
    expect(candidates(`SELECT created_at AS t FROM orders WHERE customer_id = $1 ORDER BY t LIMIT 10`)).toContain('public.orders (customer_id, created_at)');
    expect(candidates(`SELECT * FROM orders WHERE customer_id = $1 ORDER BY 4 LIMIT 10`)).toContain('public.orders (customer_id, created_at)');
  });

  it('gives mixed sort directions an index with matching directions', () => {
    const found = candidates(`SELECT id FROM orders WHERE status = $1 ORDER BY created_at DESC, total LIMIT 10`);
    expect(found).toContain('public.orders (status, created_at, total DESC)');
    // one direction throughout: a plain index read backwards serves it
    expect(candidates(`SELECT id FROM orders WHERE status = $1 ORDER BY created_at DESC, total DESC LIMIT 10`)).toContain(
      'public.orders (status, created_at, total)',
    );
  });
});
