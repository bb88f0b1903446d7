// POST /postgres/analyze: the advisor over one database, planned with that database's own
// statistics, on a real PostgreSQL 18 with pg_stat_statements.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { analyzeResponseSchema } from '../shared/analysis';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { request, startTestAnalyzer } from '../test/support/analyzer';
import { expectSavingCurve } from '../test/support/saving-curve';

describe('POST /postgres/analyze', () => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let shop: string;

  const analyze = async (body: unknown) => {
    const answer = await request(analyzer.url, {
      method: 'POST',
      path: '/postgres/analyze',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return answer;
  };

  beforeAll(async () => {
    [server, analyzer] = await Promise.all([startPostgres({ major: 18 }), startTestAnalyzer()]);
    shop = await server.createDatabase('shop');
    await server.query(
      `CREATE EXTENSION pg_stat_statements;
       CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, created_at timestamptz NOT NULL, total_cents int NOT NULL);
       INSERT INTO orders SELECT g, g % 4000, now() - (g || ' minutes')::interval, g % 9000 FROM generate_series(1, 30000) g;
       ANALYZE orders;`,
      [],
      'shop',
    );
    // the application's workload, with bind parameters as drivers send it
    const app = new pg.Client({ connectionString: shop });
    await app.connect();
    for (let i = 0; i < 5; i++) {
      await app.query('SELECT id, total_cents FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 10', [i]);
      await app.query('SELECT * FROM orders WHERE id = $1', [i]);
    }
    await app.end();
  }, 120_000);

  afterAll(async () => {
    await analyzer?.close();
    await server?.stop();
  });

  it("analyzes the database's own pg_stat_statements and recommends the index its workload misses", async () => {
    const writesBefore = (await server.query(`SELECT n_tup_ins + n_tup_upd + n_tup_del AS w FROM pg_stat_user_tables WHERE relname = 'orders'`, [], 'shop'))
      .rows[0];
    const answer = await analyze({ db: shop });
    expect(answer.status).toBe(200);
    const body = analyzeResponseSchema.parse(answer.json);
    expect(body).toMatchObject({ database: 'shop', source: 'pg_stat_statements' });
    const byCustomer = body.queries.find((q) => q.query.includes('customer_id'));
    expect(byCustomer?.calls).toBe(5);
    expect(byCustomer?.recommendations[0]?.createIndex).toMatch(/orders.*customer_id/);
    expect(body.queries.find((q) => q.query.includes('WHERE id ='))?.recommendations).toEqual([]);
    // the advisor's own reads and DDL never show up as the application's queries
    expect(body.queries.filter((q) => /^\s*(CREATE|ANALYZE)\b|pg_catalog|querytrail/i.test(q.query))).toEqual([]);
    const writesAfter = (await server.query(`SELECT n_tup_ins + n_tup_upd + n_tup_del AS w FROM pg_stat_user_tables WHERE relname = 'orders'`, [], 'shop'))
      .rows[0];
    expect(writesAfter).toEqual(writesBefore);
  });

  it('analyzes queries sent in the request', async () => {
    const answer = await analyze({ db: shop, queries: [{ query: 'SELECT sum(total_cents) FROM orders WHERE created_at > $1', calls: 100 }] });
    expect(answer.status).toBe(200);
    const body = analyzeResponseSchema.parse(answer.json);
    expect(body.source).toBe('request');
    expect(body.queries).toHaveLength(1);
    expect(body.queries[0]!.cost).toBeGreaterThan(0);
    expect(JSON.stringify(body.queries[0]!.plan)).toContain('orders');
  });

  it('answers the saving curve of its choice, and keeps to maxBytes', async () => {
    const queries = [
      { query: 'SELECT id, total_cents FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 10', calls: 500 },
      { query: 'SELECT sum(total_cents) FROM orders WHERE created_at > $1', calls: 50 },
      { query: 'SELECT id FROM orders WHERE total_cents = $1', calls: 20 },
    ];
    const whole = analyzeResponseSchema.parse((await analyze({ db: shop, queries })).json);
    expectSavingCurve(whole.savingCurve, whole.stopReason);
    const curve = whole.savingCurve!;
    expect(curve.length).toBeGreaterThanOrEqual(3);
    // from the cost of the queries an index helps, as they are, down to what the chosen point leaves
    const helped = whole.queries.filter((q) => q.recommendations.length > 0);
    expect(curve[0]!.cost).toBeCloseTo(
      helped.reduce((n, q) => n + q.cost! * q.calls!, 0),
      0,
    );
    const chosen = curve[whole.stopReason!.indexes]!;
    expect(whole.indexes.reduce((n, i) => n + i.estimatedBytes!, 0)).toBe(chosen.bytes);
    expect(curve[0]!.cost - chosen.cost).toBeCloseTo(
      whole.indexes.reduce((n, i) => n + i.totalSaved, 0),
      0,
    );

    const budget = curve[1]!.bytes; // room for the smallest first step only, if that
    const small = analyzeResponseSchema.parse((await analyze({ db: shop, queries, maxBytes: budget })).json);
    expectSavingCurve(small.savingCurve, small.stopReason);
    expect(small.savingCurve!.at(-1)!.bytes).toBeLessThanOrEqual(budget);
    expect(small.stopReason!.code).toBe('maxBytes');
  });

  it('answers bad requests, unreadable statistics and unreachable servers with distinct errors', async () => {
    expect((await analyze({ db: 'mysql://x/y' })).json.error.code).toBe('validation_failed');
    const unparsable = await analyze({ db: shop, queries: [{ query: 'SELEC nothing' }] });
    expect(unparsable.status).toBe(400);
    expect(unparsable.json.error.message).toContain('queries.0');
    expect(unparsable.json.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'queries.0.query', message: expect.any(String) }] });
    const bare = await server.createDatabase('bare');
    const noStats = await analyze({ db: bare });
    expect(noStats.status).toBe(409);
    expect(noStats.json.error.code).toBe('pg_stat_statements_unavailable');
    const refused = await analyze({ db: 'postgres://u:secret-pw@127.0.0.1:1/shop' });
    expect(refused.status).toBe(502);
    expect(refused.json.error.code).toBe('connection_refused');
    expect(refused.text).not.toContain('secret-pw');
  });
});
