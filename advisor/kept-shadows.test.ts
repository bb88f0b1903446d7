// A shadow database kept on a warm server between analyses (AnalyzeOptions.reuseKey) plans
// exactly like one built fresh for the same snapshot, including candidates it builds for queries
// it has not seen, and those are still built on physically empty tables.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { analyzeSnapshot, planShape, readSnapshot, startShadowServer, type AnalysisResult, type ShadowServer, type Snapshot } from './index.js';

let production: PostgresServer;
let shadow: ShadowServer;
let snapshot: Snapshot;

const FIRST = {
  byCustomer: `SELECT * FROM orders WHERE customer_id = $1`,
  refunded: `SELECT id FROM orders WHERE status = 'refunded' AND created > $1`,
  ledger: `SELECT sum(amount) FROM ledger WHERE customer_id = $1`,
};
// Two of the first queries again, and three whose candidates the kept database does not have yet.
const SECOND = {
  byCustomer: FIRST.byCustomer,
  ledger: FIRST.ledger,
  byStatusSorted: `SELECT id, amount FROM orders WHERE customer_id = $1 AND status = $2 ORDER BY created DESC LIMIT 10`,
  byRegion: `SELECT count(*) FROM customer WHERE region = $1 AND active`,
  ledgerDay: `SELECT id FROM ledger WHERE customer_id = $1 AND day > $2`,
};
const queriesOf = (set: Record<string, string>) => Object.entries(set).map(([hash, query]) => ({ hash, query, calls: 10 }));

/** What a reader of the result sees per query, plan node ids aside. */
const comparable = (r: AnalysisResult) =>
  r.queries.map((q) => ({
    hash: q.hash,
    cost: q.cost,
    planShape: q.planShape,
    after: q.planAfter ? planShape(q.planAfter) : null,
    recommendations: q.recommendations,
    error: q.error,
  }));

async function shadowQuery<T extends pg.QueryResultRow>(database: string, sql: string): Promise<T[]> {
  const client = new pg.Client(shadow.connection(database));
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const shadowDatabases = async () =>
  (await shadowQuery<{ datname: string }>('postgres', `SELECT datname FROM pg_database WHERE datname LIKE 'shadow\\_%'`)).map((r) => r.datname);

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  await production.query(`
    CREATE TABLE customer (id int PRIMARY KEY, region text NOT NULL, active bool NOT NULL, created timestamptz NOT NULL);
    INSERT INTO customer SELECT g, 'r' || (g % 50), g % 10 <> 0, now() - g * interval '1 hour' FROM generate_series(1, 30000) g;
    CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customer, status text NOT NULL,
      amount numeric NOT NULL, created timestamptz NOT NULL);
    INSERT INTO orders SELECT g, 1 + (g * 7919) % 30000, CASE WHEN g % 200 = 0 THEN 'refunded' WHEN g % 3 = 0 THEN 'new' ELSE 'paid' END,
        (g % 1000)::numeric, now() - g * interval '1 minute' FROM generate_series(1, 200000) g;
    CREATE INDEX orders_created_idx ON orders (created);
    CREATE TABLE ledger (id int, customer_id int, amount numeric, day date NOT NULL, PRIMARY KEY (day, id)) PARTITION BY RANGE (day);
    CREATE TABLE ledger_2024 PARTITION OF ledger FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
    CREATE TABLE ledger_2025 PARTITION OF ledger FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
    INSERT INTO ledger SELECT g, g % 5000, g % 100, date '2024-01-01' + g % 700 FROM generate_series(1, 100000) g;
    ANALYZE;`);
  snapshot = await readSnapshot(production.url());
  shadow = await startShadowServer();
}, 120_000);

afterAll(async () => {
  await shadow?.stop();
  await production?.stop();
});

describe('a shadow database kept between analyses', () => {
  it('plans the same queries, costs and recommendations as a fresh one, new candidates included', async () => {
    const first = await analyzeSnapshot(snapshot, queriesOf(FIRST), { shadow, reuseKey: 'snap-1' });
    const kept = await shadowDatabases();
    expect(kept).toHaveLength(1);
    const again = await analyzeSnapshot(snapshot, queriesOf(FIRST), { shadow, reuseKey: 'snap-1' });
    const second = await analyzeSnapshot(snapshot, queriesOf(SECOND), { shadow, reuseKey: 'snap-1' });
    expect(await shadowDatabases()).toEqual(kept);

    const freshFirst = await analyzeSnapshot(snapshot, queriesOf(FIRST), { shadow });
    const freshSecond = await analyzeSnapshot(snapshot, queriesOf(SECOND), { shadow });
    expect(comparable(first)).toEqual(comparable(freshFirst));
    expect(comparable(again)).toEqual(comparable(freshFirst));
    expect(comparable(second)).toEqual(comparable(freshSecond));
    expect(second.indexes).toEqual(freshSecond.indexes);
    expect(second.warnings).toEqual(freshSecond.warnings);
    // The queries new to the kept database did get recommendations from candidates built now.
    expect(second.queries.find((q) => q.hash === 'byStatusSorted')!.recommendations.length).toBeGreaterThan(0);
    expect(second.queries.find((q) => q.hash === 'byRegion')!.recommendations.length).toBeGreaterThan(0);
    // Fresh analyses drop their databases; the kept one stays.
    expect(await shadowDatabases()).toEqual(kept);
  }, 120_000);

  it('built its later candidates on physically empty tables, then grew them back to production size', async () => {
    const [name] = await shadowDatabases();
    // Building on the extended orders table would have read its ~1,600 zero pages.
    await new Promise((resolve) => setTimeout(resolve, 600)); // exited backends' statistics reach shared memory
    const [io] = await shadowQuery<{ blocks: string }>(
      name!,
      `SELECT heap_blks_read + heap_blks_hit AS blocks FROM pg_statio_all_tables WHERE relname = 'orders'`,
    );
    expect(Number(io!.blocks)).toBeLessThan(50);
    const [size] = await shadowQuery<{ blocks: string }>(name!, `SELECT pg_relation_size('orders') / 8192 AS blocks`);
    expect(Number(size!.blocks)).toBe(snapshot.relations.find((r) => r.name === 'orders')!.blocks);
  });

  it('drops the kept database when asked for another key', async () => {
    const before = await shadowDatabases();
    await analyzeSnapshot(snapshot, queriesOf(FIRST), { shadow, reuseKey: 'snap-2' });
    const after = await shadowDatabases();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  }, 120_000);
});
