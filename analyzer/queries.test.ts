// A known workload runs against a real server; the sync must report exactly those statements, with
// their calls, once per fingerprint, and nothing of its own, of other databases or of the catalogs.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteSyncResponseSchema, type QueryStats, type RemoteSyncResponse } from '../shared/analyzer-schema';
import { fingerprintQuery, loadParser } from '../shared/sql-fingerprint';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { classifyStatement } from './queries';
import { majorsUnderTest, postSync, startTestAnalyzer } from '../test/support/analyzer';

const SETUP = `
CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text);
CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, total numeric NOT NULL);
INSERT INTO customers (name, email) SELECT 'customer ' || i, 'c' || i || '@example.com' FROM generate_series(1, 50) i;
INSERT INTO orders (customer_id, total) SELECT 1 + i % 50, i FROM generate_series(1, 200) i;`;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function repeat(times: number, work: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < times; i++) await work(i);
}

function entry(queries: QueryStats[], fragment: string): QueryStats {
  const found = queries.filter((q) => q.query.includes(fragment));
  if (found.length !== 1) throw new Error(`expected one entry with "${fragment}", found ${found.length}: ${queries.map((q) => q.query).join(' | ')}`);
  return found[0]!;
}

describe.each(majorsUnderTest())('queries from pg_stat_statements on PostgreSQL %i', (major) => {
  let server: PostgresServer;
  let unloaded: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let shopUrl: string;
  let first: RemoteSyncResponse;
  let second: RemoteSyncResponse;

  beforeAll(async () => {
    [server, unloaded, analyzer] = await Promise.all([startPostgres({ major }), startPostgres({ major, statStatements: false }), startTestAnalyzer()]);
    shopUrl = await server.createDatabase('shop');
    const otherUrl = await server.createDatabase('other');
    for (const url of [shopUrl, otherUrl]) {
      await withClient(url, async (c) => {
        await c.query('CREATE EXTENSION pg_stat_statements');
        await c.query(SETUP);
      });
    }
    await server.query(`CREATE ROLE app2 LOGIN PASSWORD 'app2'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO app2`, [], 'shop');
    await server.query('SELECT pg_stat_statements_reset()', [], 'shop');

    await withClient(shopUrl, async (c) => {
      await repeat(7, (i) => c.query('SELECT name FROM customers WHERE id = $1', [i + 1]));
      // Different IN-list lengths: two queryids before PostgreSQL 18, one fingerprint always.
      await repeat(2, () => c.query('SELECT count(*) FROM orders WHERE customer_id IN (1, 2)'));
      await repeat(3, () => c.query('SELECT count(*) FROM orders WHERE customer_id IN (1, 2, 3)'));
      await c.query('BEGIN');
      await repeat(4, (i) => c.query('UPDATE customers SET email = $1 WHERE id = $2', [`new${i}@example.com`, i + 1]));
      await c.query('COMMIT');
      await repeat(2, () => c.query(`SELECT relname FROM pg_class WHERE relkind = 'r'`));
    });
    // The same statement from another role: a separate queryid, the same entry.
    await withClient(shopUrl.replace('postgres:postgres@', 'app2:app2@'), (c) =>
      repeat(3, (i) => c.query('SELECT name FROM customers WHERE id = $1', [i + 1])),
    );
    // Another database's statements stay out.
    await withClient(otherUrl, (c) => repeat(20, (i) => c.query('SELECT name FROM customers WHERE id = $1', [i + 1])));

    const answer1 = await postSync(analyzer.url, { db: shopUrl });
    first = remoteSyncResponseSchema.parse(answer1.json);
    // A second sync would see the first one's statements if the analyzer did not filter itself out.
    const answer2 = await postSync(analyzer.url, { db: shopUrl });
    second = remoteSyncResponseSchema.parse(answer2.json);
  }, 120_000);

  afterAll(async () => {
    await analyzer?.close();
    await Promise.all([server?.stop(), unloaded?.stop()]);
  });

  function queriesOf(response: RemoteSyncResponse): QueryStats[] {
    if (response.queries.type !== 'ok') throw new Error(`queries failed: ${response.queries.error}`);
    return response.queries.value;
  }

  it('reports each workload statement with its calls and rows, merged per fingerprint across roles and IN-list lengths', async () => {
    const queries = queriesOf(second);
    const select = entry(queries, 'FROM customers WHERE id = $1');
    expect(select).toMatchObject({ calls: 10, rows: 10 });
    expect(select.queryids).toHaveLength(2);
    const inList = entry(queries, 'FROM orders WHERE customer_id IN');
    expect(inList.calls).toBe(5);
    expect(inList.queryids).toHaveLength(major >= 18 ? 1 : 2);
    expect(entry(queries, 'UPDATE customers SET email')).toMatchObject({ calls: 4, rows: 4 });
    // The hash is the one the server computes when it ingests the same text (shared fingerprinting).
    const { hash, formattedQuery } = await fingerprintQuery(select.query);
    expect(select).toMatchObject({ hash, formattedQuery });
    expect(select.formattedQuery).toContain('$1');
    for (const q of queries) {
      expect(q.minTimeMs).toBeLessThanOrEqual(q.meanTimeMs + 1e-9);
      expect(q.meanTimeMs).toBeLessThanOrEqual(q.maxTimeMs + 1e-9);
      expect(q.meanTimeMs * q.calls).toBeCloseTo(q.totalTimeMs, 6);
      expect(q.stddevTimeMs).toBeGreaterThanOrEqual(0);
    }
    expect(select.sharedBlksHit + select.sharedBlksRead).toBeGreaterThan(0);
    expect(new Set(queries.map((q) => q.hash)).size).toBe(queries.length);
  });

  it('leaves out its own statements, system catalog queries, transaction control and other databases', () => {
    for (const response of [first, second]) {
      const texts = queriesOf(response).map((q) => q.query);
      expect(texts.filter((t) => t.includes('querytrail-analyzer'))).toEqual([]);
      expect(texts.filter((t) => /\bpg_class\b/.test(t))).toEqual([]);
      expect(texts.filter((t) => /^(BEGIN|COMMIT)$/i.test(t.trim()))).toEqual([]);
    }
    // Nothing new appears between two syncs: the first sync's own statements are not reported.
    expect(
      queriesOf(second)
        .map((q) => [q.hash, q.calls])
        .sort(),
    ).toEqual(
      queriesOf(first)
        .map((q) => [q.hash, q.calls])
        .sort(),
    );
  });

  it('orders by total time and honours queryLimit', async () => {
    const all = queriesOf(second);
    const totals = all.map((q) => q.totalTimeMs);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    const limited = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db: shopUrl, queryLimit: 1 })).json);
    expect(queriesOf(limited)).toHaveLength(1);
  });

  it('says the extension must be preloaded when it is installed but not in shared_preload_libraries', async () => {
    const url = await unloaded.createDatabase('shop');
    await unloaded.query('CREATE EXTENSION pg_stat_statements', [], 'shop');
    const response = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db: url })).json);
    expect(response.queries).toEqual({ type: 'error', error: expect.stringContaining('shared_preload_libraries') });
    expect(response.schema.type).toBe('ok');
    expect(response.meta.type).toBe('ok');
  });
});

describe('which statements belong in the query catalog', () => {
  beforeAll(() => loadParser());

  it.each([
    ['select * from orders where id = $1', 'user'],
    ['SELECT * FROM users JOIN pg_class ON true', 'user'],
    ['CREATE INDEX i ON t USING gin (name gin_trgm_ops)', 'user'],
    ['SELECT 1', 'user'],
    ['SELECT relname FROM pg_class WHERE relkind = $1', 'systemCatalog'],
    ['/* app */ SELECT relname FROM pg_catalog.pg_class', 'systemCatalog'],
    ['-- x\n select * from information_schema.tables', 'systemCatalog'],
    ['WITH x AS (SELECT * FROM pg_class) SELECT * FROM x', 'systemCatalog'],
    ['SELECT * FROM pg_stat_statements(true)', 'systemCatalog'],
    ['BEGIN', 'session'],
    ['SET search_path = public', 'session'],
    ['/* a /* nested */ comment */ SELECT relname FROM pg_class', 'systemCatalog'],
    ['(((SELECT relname FROM pg_class)))', 'systemCatalog'],
  ])('%j is %s', (query, kind) => {
    expect(classifyStatement(query)).toBe(kind);
  });

  // Any database user can leave such a text in pg_stat_statements; a backtracking pattern took
  // seconds on 190 characters, doubling with each comment, and blocked the server meanwhile.
  it.each(
    [
      ['/**/'.repeat(47) + 'xy', 'user'],
      ['/**/'.repeat(2500), 'user'],
      ['/**/'.repeat(2500) + 'x', 'user'],
      ['/**/ '.repeat(2000) + 'SELECT relname FROM pg_class', 'systemCatalog'],
    ].map(([query, kind]) => ({ query: query!, kind, length: query!.length })),
  )('classifies a $length-character statement of repeated comments as $kind in under 50 ms', ({ query, kind }) => {
    const started = performance.now();
    expect(classifyStatement(query)).toBe(kind);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
