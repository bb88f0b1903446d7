// Index health in the sync and hiddenIndexes in POST /postgres/analyze, on a real PostgreSQL 18
// with data: an unused index, a duplicate, a redundant prefix, an invalid index left by a failed
// CREATE INDEX CONCURRENTLY, constraint-backing indexes that are never scanned (not listed), and
// names that need quoting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeResponseSchema } from '../shared/analysis';
import { remoteSyncResponseSchema } from '../shared/analyzer-schema';
import type { IndexHealthEntry } from '../shared/index-health';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { postSync, request, startTestAnalyzer } from '../test/support/analyzer';

describe('index health and hiddenIndexes', () => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let db: string;

  const post = (path: string, body: unknown) =>
    request(analyzer.url, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    [server, analyzer] = await Promise.all([startPostgres({ major: 18 }), startTestAnalyzer()]);
    db = await server.createDatabase('health');
    await server.query(
      `CREATE TABLE items (id bigint PRIMARY KEY, code text NOT NULL UNIQUE, a int NOT NULL, b int NOT NULL, note text);
       INSERT INTO items SELECT g, 'c' || g, g % 500, g % 7, 'n' || (g % 100) FROM generate_series(1, 20000) g;
       CREATE INDEX items_note_idx ON items (note);
       CREATE INDEX items_a_idx ON items (a);
       CREATE INDEX items_a_copy ON items (a);
       CREATE INDEX items_a_b_idx ON items (a, b);
       CREATE TABLE orders (id bigint PRIMARY KEY, item_id bigint NOT NULL REFERENCES items, customer_id int NOT NULL);
       INSERT INTO orders SELECT g, 1 + g % 20000, g % 3000 FROM generate_series(1, 30000) g;
       CREATE INDEX orders_customer_idx ON orders (customer_id);
       CREATE SCHEMA "Odd ""Schema""";
       CREATE TABLE "Odd ""Schema""".t (x int);
       CREATE INDEX "we""ird idx" ON "Odd ""Schema""".t (x);
       ANALYZE;`,
      [],
      'health',
    );
    // CONCURRENTLY cannot run in a transaction block: a statement of its own, which fails on the duplicates of b.
    await expect(server.query(`CREATE UNIQUE INDEX CONCURRENTLY items_b_unique ON items (b)`, [], 'health')).rejects.toThrow(/could not create unique index/);
    // Statistics start from zero; the wide index serves reads after that.
    await server.query(`SELECT pg_stat_reset()`, [], 'health');
    await server.query(`SET enable_seqscan = off; SELECT count(*) FROM items WHERE a = 3 AND b = 2`, [], 'health');
  }, 120_000);

  afterAll(async () => {
    await analyzer?.close();
    await server?.stop();
  });

  it('lists unused, duplicate, redundant and invalid indexes with sizes and DROP statements, never a constraint-backing one', async () => {
    const answer = await postSync(analyzer.url, { db, sampleRows: 0 });
    expect(answer.status).toBe(200);
    const sync = remoteSyncResponseSchema.parse(answer.json);
    expect(sync.indexHealth?.type).toBe('ok');
    if (sync.indexHealth?.type !== 'ok') return;
    const health = sync.indexHealth.value;
    expect(Date.parse(health.statsReset ?? '')).toBeGreaterThan(Date.now() - 10 * 60_000);
    const byName = new Map(health.indexes.map((e) => [e.name, e]));

    expect(byName.get('items_note_idx')).toMatchObject({
      schema: 'public',
      table: 'items',
      kinds: ['unused'],
      scans: 0,
      dropStatement: 'DROP INDEX CONCURRENTLY public.items_note_idx;',
    });
    expect(byName.get('items_note_idx')!.bytes).toBeGreaterThan(8192);
    // two equal indexes: one is listed as the duplicate of the other, which is itself a prefix of (a, b)
    const copy = byName.get('items_a_copy')!;
    expect(copy.kinds).toEqual(['duplicate', 'unused']);
    expect(copy.coveredBy).toBe('public.items_a_idx');
    expect(byName.get('items_a_idx')).toMatchObject({ kinds: ['redundant', 'unused'], coveredBy: 'public.items_a_b_idx' });
    // scanned since the reset: neither unused nor redundant
    expect(byName.has('items_a_b_idx')).toBe(false);
    expect(byName.get('items_b_unique')).toMatchObject({ kinds: ['invalid'], dropStatement: 'DROP INDEX CONCURRENTLY public.items_b_unique;' });
    // never scanned, but they back the primary keys and the UNIQUE constraint (the foreign key references items_pkey)
    for (const name of ['items_pkey', 'items_code_key', 'orders_pkey']) expect(byName.has(name)).toBe(false);
    // names that need quoting are quoted as PostgreSQL quotes them
    expect(byName.get('we"ird idx')).toMatchObject({
      schema: 'Odd "Schema"',
      kinds: ['unused'],
      dropStatement: 'DROP INDEX CONCURRENTLY "Odd ""Schema"""."we""ird idx";',
    });
  });

  it('the DROP statements it prints run as they are', async () => {
    const sync = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db, sampleRows: 0 })).json);
    const entry = sync.indexHealth?.type === 'ok' ? sync.indexHealth.value.indexes.find((e: IndexHealthEntry) => e.name === 'we"ird idx') : undefined;
    await server.query(entry!.dropStatement, [], 'health');
    expect((await server.query(`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'we"ird idx'`, [], 'health')).rows[0]).toEqual({ n: 0 });
  });

  it('hiddenIndexes plans a query as if the index were dropped, and names it', async () => {
    const query = 'SELECT id FROM orders WHERE customer_id = $1';
    const plain = analyzeResponseSchema.parse((await post('/postgres/analyze', { db, queries: [{ query }] })).json);
    expect(plain.queries[0]!.indexesUsed).toContain('public.orders_customer_idx');
    expect(plain.hiddenIndexes).toEqual([]);

    const answer = await post('/postgres/analyze', { db, queries: [{ query }], hiddenIndexes: ['orders_customer_idx'] });
    expect(answer.status).toBe(200);
    const hidden = analyzeResponseSchema.parse(answer.json);
    expect(hidden.hiddenIndexes).toEqual(['public.orders_customer_idx']);
    expect(hidden.queries[0]!.indexesUsed).not.toContain('public.orders_customer_idx');
    expect(hidden.queries[0]!.cost!).toBeGreaterThan(plain.queries[0]!.cost! * 10);
    // without it the advisor recommends it again
    expect(hidden.queries[0]!.recommendations[0]?.createIndex).toMatch(/orders.*customer_id/);
    // production still has it
    expect((await server.query(`SELECT to_regclass('public.orders_customer_idx') IS NOT NULL AS kept`, [], 'health')).rows[0]).toEqual({ kept: true });
  });

  it('refuses an unknown index with a 400 naming it', async () => {
    const answer = await post('/postgres/analyze', { db, queries: [{ query: 'SELECT 1' }], hiddenIndexes: ['public.orders_customer_idx', 'no_such_index'] });
    expect(answer.status).toBe(400);
    const body = answer.json as { error: { code: string; message: string; issues: { path: string; message: string }[] } };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.message).toContain('no_such_index');
    expect(body.error.issues).toEqual([{ path: 'hiddenIndexes.1', message: expect.stringContaining('no_such_index') }]);
  });

  it('reading production for an analysis scans no index that nothing else scanned: unused indexes stay unused', async () => {
    // The analyses above read production's snapshot, extremes of indexed columns included.
    const answer = await post('/postgres/analyze', { db, queries: [{ query: 'SELECT id FROM items WHERE note = $1' }] });
    expect(answer.status).toBe(200);
    // statistics reach the shared counters when a backend goes idle or exits
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const sync = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db, sampleRows: 0 })).json);
    if (sync.indexHealth?.type !== 'ok') throw new Error('no index health');
    const byName = new Map(sync.indexHealth.value.indexes.map((e) => [e.name, e]));
    for (const name of ['items_note_idx', 'items_a_idx', 'items_a_copy'])
      expect(byName.get(name)).toMatchObject({ scans: 0, kinds: expect.arrayContaining(['unused']) });
    const scans = await server.query<{ name: string; n: string }>(
      `SELECT indexrelname AS name, idx_scan AS n FROM pg_stat_user_indexes WHERE indexrelname IN ('items_note_idx', 'items_a_idx', 'items_a_copy')`,
      [],
      'health',
    );
    expect(scans.rows.map((r) => Number(r.n))).toEqual([0, 0, 0]);
  });
});
