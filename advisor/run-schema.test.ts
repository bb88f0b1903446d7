// A CI run's schema applied to production's snapshot, planned in a real shadow against a real
// PostgreSQL 18 holding 100k rows: the run's new index is used at the cost it would have in
// production (not the near-zero cost of an empty index), the index it drops is no longer used,
// and its new table is planned with PostgreSQL's defaults and says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSchema } from '../shared/run-schema.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import {
  analyzeSnapshot,
  planShape,
  applyRunSchema,
  readSnapshot,
  startShadowServer,
  type AnalysisResult,
  type AppliedRunSchema,
  type PlanNode,
  type ShadowServer,
} from './index.js';

let productionDb: PostgresServer;
let shadow: ShadowServer;
let production: AnalysisResult;
let applied: AppliedRunSchema;
let withRun: AnalysisResult;

const QUERIES = {
  byAccount: `SELECT * FROM events WHERE account_id = $1`,
  recent: `SELECT id, kind FROM events WHERE created > $1 ORDER BY created LIMIT 20`,
  coupon: `SELECT * FROM coupons WHERE code = $1`,
  // Reads a tenth of the index: its cost follows the index's size.
  accountRange: `SELECT account_id, count(*) FROM events WHERE account_id BETWEEN 10000 AND 15000 GROUP BY 1`,
};
const queries = Object.entries(QUERIES).map(([hash, query]) => ({ hash, query, calls: 1 }));

/** The schema as ci-report sends it (shared/run-schema.ts), read from a database by hand. */
async function runSchemaOf(db: PostgresServer): Promise<RunSchema> {
  const tables = await db.query<{ s: string; n: string; k: 'r' }>(
    `SELECT n.nspname AS s, c.relname AS n, c.relkind AS k FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY 1, 2`,
  );
  const columns = await db.query<{ s: string; t: string; c: string; type: string; nn: boolean }>(
    `SELECT n.nspname AS s, c.relname AS t, a.attname AS c, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS nn
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2, a.attnum`,
  );
  const indexes = await db.query<{ s: string; t: string; i: string; def: string; con: string | null }>(
    `SELECT n.nspname AS s, t.relname AS t, c.relname AS i, pg_get_indexdef(x.indexrelid) AS def, k.conname AS con
     FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     LEFT JOIN pg_constraint k ON k.conindid = x.indexrelid AND k.contype IN ('p', 'u', 'x') WHERE n.nspname = 'public' ORDER BY 1, 2, 3`,
  );
  return {
    tables: tables.rows.map((r) => [r.s, r.n, r.k, null]),
    columns: columns.rows.map((r) => [r.s, r.t, r.c, r.type, r.nn]),
    indexes: indexes.rows.map((r) => [r.s, r.t, r.i, r.def, r.con]),
  };
}

const nodes = (plan: PlanNode | null): PlanNode[] => (plan ? [plan, ...(plan.Plans ?? []).flatMap(nodes)] : []);
const result = (r: AnalysisResult, hash: keyof typeof QUERIES) => r.queries.find((q) => q.hash === hash)!;

async function realPlan(sql: string): Promise<PlanNode> {
  const r = await productionDb.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`);
  return r.rows[0]!['QUERY PLAN'][0]!.Plan;
}

beforeAll(async () => {
  productionDb = await startPostgres({ statStatements: false });
  await productionDb.query(`
    CREATE TABLE events (id bigint PRIMARY KEY, account_id int NOT NULL, kind text NOT NULL, created timestamptz NOT NULL);
    INSERT INTO events SELECT g, g / 2, 'k' || (g % 20), timestamptz '2025-01-01' + g * interval '1 minute' FROM generate_series(1, 100000) g;
    CREATE INDEX events_created_idx ON events (created);
    ANALYZE;`);
  shadow = await startShadowServer();
  const snapshot = await readSnapshot(productionDb.url());
  const baseline = await runSchemaOf(productionDb);
  // The pull request: an index on account_id, events_created_idx dropped, a new table.
  const run: RunSchema = {
    tables: [...baseline.tables, ['public', 'coupons', 'r', null]],
    columns: [...baseline.columns, ['public', 'coupons', 'id', 'integer', true], ['public', 'coupons', 'code', 'character varying(32)', false]],
    indexes: [
      ...baseline.indexes.filter(([, , name]) => name !== 'events_created_idx'),
      ['public', 'events', 'events_account_idx', 'CREATE INDEX events_account_idx ON public.events USING btree (account_id)', null],
    ],
  };
  production = await analyzeSnapshot(snapshot, queries, { shadow });
  applied = applyRunSchema(snapshot, run, baseline);
  withRun = await analyzeSnapshot(applied.snapshot, queries, { shadow });
}, 180_000);

afterAll(async () => {
  await shadow?.stop();
  await productionDb?.stop();
});

describe('a run schema applied in the shadow', () => {
  it('applies the three differences and names what it drops', () => {
    expect(applied.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(applied.droppedIndexes).toEqual(['public.events_created_idx']);
    expect(applied.runNotes).toEqual([]);
    expect(withRun.warnings).toEqual([]);
  });

  it("plans with the run's new index at the cost it would have in production, and recommends nothing for it", async () => {
    const before = result(production, 'byAccount');
    expect(before.indexesUsed).toEqual([]);
    expect(before.tablesUsed).toEqual(['public.events']);
    expect(before.recommendations[0]).toMatchObject({ table: 'public.events', columns: ['account_id'] });

    const after = result(withRun, 'byAccount');
    expect(after.error).toBeNull();
    expect(nodes(after.plan).map((n) => n['Node Type'])).toContain('Index Scan');
    expect(after.indexesUsed).toEqual(['public.events_account_idx']);
    expect(after.cost!).toBeLessThan(before.cost! / 50);
    expect(after.recommendations).toEqual([]);

    // Sized, not empty: the same index created for real costs the same (an empty one would look free).
    await productionDb.query('CREATE INDEX events_account_idx ON events (account_id)');
    try {
      for (const hash of ['byAccount', 'accountRange'] as const) {
        const real = await realPlan(QUERIES[hash]);
        const planned = result(withRun, hash);
        expect(planned.indexesUsed, hash).toEqual(['public.events_account_idx']);
        expect(planned.planShape, hash).toBe(planShape(real));
        expect(Math.abs(planned.cost! - real['Total Cost']), hash).toBeLessThan(0.1 * real['Total Cost']);
      }
    } finally {
      await productionDb.query('DROP INDEX events_account_idx');
    }
  });

  it('no longer uses the index the run drops', () => {
    const before = result(production, 'recent');
    expect(before.indexesUsed).toEqual(['public.events_created_idx']);
    const after = result(withRun, 'recent');
    expect(after.error).toBeNull();
    expect(after.indexesUsed).not.toContain('public.events_created_idx');
    expect(after.cost!).toBeGreaterThan(before.cost! * 10);
  });

  it('plans a query on the new table with planner defaults, and the table carries a note', () => {
    expect(result(production, 'coupon').error).toMatch(/coupons/);
    const after = result(withRun, 'coupon');
    expect(after.error).toBeNull();
    expect(after.tablesUsed).toEqual(['public.coupons']);
    // PostgreSQL's guess for a table never analyzed: ten pages of rows, not production's numbers.
    expect(after.plan!['Plan Rows']).toBeGreaterThan(1);
    expect(applied.tableNotes['public.coupons']).toEqual(['public.coupons is new in this run: no production statistics']);
  });
});
