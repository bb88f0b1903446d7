// What a user sees of their own data: real sample rows (whatever the table is called), planner
// statistics, disabled indexes, an honest report of what a plain role may not see, and proof that
// a sync writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteSyncResponseSchema, type DatabaseSchema, type Meta, type RemoteSyncResponse, type Table } from '../shared/analyzer-schema';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { openGateway } from '../gateway/index';
import { majorsUnderTest, postSync, startTestAnalyzer } from '../test/support/analyzer';

const WEIRD_SCHEMA = 'Weird "Schema" ü';
const WEIRD_TABLE = 'Tab "le" ünï 🚀';

const SETUP = `
CREATE EXTENSION pg_stat_statements;
CREATE SCHEMA "Weird ""Schema"" ü";
CREATE TABLE "Weird ""Schema"" ü"."Tab ""le"" ünï 🚀" ("Col ""x""" text, "Space Col" int, data bytea, day date);
INSERT INTO "Weird ""Schema"" ü"."Tab ""le"" ünï 🚀" VALUES ('a"b''c', 1, '\\x0102', '2024-01-02');
CREATE TABLE secret (id int PRIMARY KEY, token text);
INSERT INTO secret SELECT i, 'token ' || i FROM generate_series(1, 10) i;
CREATE TABLE big (id int PRIMARY KEY, category int NOT NULL);
INSERT INTO big SELECT i, i % 3 FROM generate_series(1, 6000) i;
CREATE TABLE empty_table (id int);
CREATE TABLE dup (v int);
INSERT INTO dup VALUES (1), (1);
CREATE TABLE events (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE INDEX events_at_idx ON ONLY events (at);
ANALYZE;
CREATE ROLE plain LOGIN PASSWORD 'plain';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO plain;
REVOKE SELECT ON secret FROM plain;
GRANT USAGE ON SCHEMA "Weird ""Schema"" ü" TO plain;
GRANT SELECT ON ALL TABLES IN SCHEMA "Weird ""Schema"" ü" TO plain;
CREATE ROLE monitor LOGIN PASSWORD 'monitor' IN ROLE pg_read_all_stats;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO monitor;`;

function ok<T>(part: { type: 'ok'; value: T } | { type: 'error'; error: string }): T {
  if (part.type !== 'ok') throw new Error(`part failed: ${part.error}`);
  return part.value;
}

function table(schema: DatabaseSchema, schemaName: string, name: string): Table {
  const found = schema.tables.find((t) => t.schema === schemaName && t.name === name);
  if (!found) throw new Error(`table ${schemaName}.${name} missing`);
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(majorsUnderTest())('sync as seen by its user on PostgreSQL %i', (major) => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let url: string;
  let asSuperuser: RemoteSyncResponse;

  const sync = async (body: Record<string, unknown>) => {
    const answer = await postSync(analyzer.url, body);
    expect(answer.status).toBe(200);
    return remoteSyncResponseSchema.parse(answer.json);
  };
  const as = (role: string) => url.replace('postgres:postgres@', `${role}:${role}@`);

  beforeAll(async () => {
    [server, analyzer] = await Promise.all([startPostgres({ major }), startTestAnalyzer()]);
    url = await server.createDatabase('app');
    await server.query(SETUP, [], 'app');
    // A failed CREATE INDEX CONCURRENTLY leaves an invalid index behind.
    await expect(server.query('CREATE UNIQUE INDEX CONCURRENTLY dup_v_key ON dup (v)', [], 'app')).rejects.toThrow(/could not create unique index/);
    await server.query('SELECT count(*) FROM secret WHERE id > $1', [0], 'app');
    // Before PostgreSQL 15 the statistics collector gets counters by UDP, a moment later: wait for them.
    for (let i = 0; i < 50; i++) {
      const { rows } = await server.query<{ ready: boolean }>(
        `SELECT coalesce((SELECT n_live_tup = 6000 AND last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'big'), false) AS ready`,
        [],
        'app',
      );
      if (rows[0]?.ready) break;
      await sleep(200);
    }
    asSuperuser = await sync({ db: url });
  }, 120_000);

  afterAll(async () => {
    await analyzer?.close();
    await server?.stop();
  });

  it('returns a table with quotes, spaces, unicode and emoji in its names intact, with real sample rows', () => {
    const schema = ok(asSuperuser.schema);
    expect(schema.schemas.map((s) => s.name)).toContain(WEIRD_SCHEMA);
    const weird = table(schema, WEIRD_SCHEMA, WEIRD_TABLE);
    expect(weird.columns.map((c) => [c.name, c.type])).toEqual([
      ['Col "x"', 'text'],
      ['Space Col', 'integer'],
      ['data', 'bytea'],
      ['day', 'date'],
    ]);
    expect(weird.sampleRows).toEqual({ type: 'ok', value: [{ 'Col "x"': `a"b'c`, 'Space Col': 1, data: '\\x0102', day: '2024-01-02' }] });
  });

  it('samples up to sampleRows rows, skips empty tables, and turns sampling off with 0', async () => {
    const schema = ok(asSuperuser.schema);
    const big = table(schema, 'public', 'big');
    expect(big.sampleRows.type === 'ok' && big.sampleRows.value).toHaveLength(5);
    expect(table(schema, 'public', 'empty_table').sampleRows).toEqual({ type: 'ok', value: [] });
    const two = ok((await sync({ db: url, sampleRows: 2 })).schema);
    expect(table(two, 'public', 'big').sampleRows).toMatchObject({
      type: 'ok',
      value: [{ id: expect.any(Number), category: expect.any(Number) }, expect.any(Object)],
    });
    const none = ok((await sync({ db: url, sampleRows: 0 })).schema);
    expect(none.tables.every((t) => t.sampleRows.type === 'ok' && t.sampleRows.value.length === 0)).toBe(true);
  });

  it('carries table and column statistics, and infers fromSource once the data is big enough', () => {
    const schema = ok(asSuperuser.schema);
    const big = table(schema, 'public', 'big');
    expect(big.stats).toMatchObject({ rowEstimate: 6000, liveTuples: 6000, lastAnalyze: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(big.stats!.tableBytes).toBeGreaterThan(0);
    expect(big.stats!.totalBytes).toBe(big.stats!.tableBytes + big.stats!.indexesBytes);
    const category = big.columns.find((c) => c.name === 'category')!.stats;
    expect(category).toMatchObject({ inherited: false, nullFraction: 0, nDistinct: 3, correlation: expect.any(Number) });
    expect([...(category!.mostCommonValues ?? [])].sort()).toEqual(['0', '1', '2']);
    expect(category!.mostCommonFrequencies!.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(big.columns.find((c) => c.name === 'id')!.stats!.histogramBounds!.length).toBeGreaterThan(10);
    const meta: Meta = ok(asSuperuser.meta);
    expect(meta.totalRows).toBeGreaterThanOrEqual(6000);
    expect(meta.inferredStatsStrategy).toBe('fromSource');
  });

  it('lists the indexes the planner will not use: a failed CREATE INDEX CONCURRENTLY, a partitioned index missing on a partition', () => {
    expect(ok(asSuperuser.disabledIndexes)).toEqual([
      {
        schema: 'public',
        table: 'dup',
        name: 'dup_v_key',
        reason: 'notReady',
        message: expect.stringContaining('CREATE INDEX CONCURRENTLY'),
        definition: 'CREATE UNIQUE INDEX dup_v_key ON public.dup USING btree (v)',
      },
      {
        schema: 'public',
        table: 'events',
        name: 'events_at_idx',
        reason: 'invalid',
        message: expect.stringContaining('missing on some partition'),
        definition: 'CREATE INDEX events_at_idx ON ONLY public.events USING btree (at)',
      },
    ]);
    expect(ok(asSuperuser.schema).indexes.find((i) => i.name === 'dup_v_key')).toMatchObject({ valid: false, ready: false, unique: true });
  });

  it('gives a plain role a sync and says honestly what it could not see', async () => {
    const response = await sync({ db: as('plain') });
    const meta = ok(response.meta);
    expect(meta.user).toBe('plain');
    expect(meta.visibility).toMatchObject({ superuser: false, pgReadAllStats: false, tablesWithoutSelect: [{ schema: 'public', name: 'secret' }] });
    expect(meta.visibility.insufficientPrivilegeStatements).toBeGreaterThan(0);
    expect(meta.visibility.notes.join('\n')).toMatch(/pg_read_all_stats/);
    expect(meta.visibility.notes.join('\n')).toMatch(/1 tables cannot be read/);
    const schema = ok(response.schema);
    const secret = table(schema, 'public', 'secret');
    expect(secret.sampleRows).toEqual({ type: 'error', error: expect.stringContaining('lacks SELECT') });
    expect(secret.columns.every((c) => c.stats === null)).toBe(true); // pg_stats hides them from this role
    expect(table(schema, 'public', 'big').sampleRows).toMatchObject({ type: 'ok', value: expect.arrayContaining([expect.any(Object)]) });
    expect(table(schema, WEIRD_SCHEMA, WEIRD_TABLE).sampleRows).toMatchObject({ type: 'ok', value: [{ 'Space Col': 1 }] });
    expect(schema.tables.length).toBe(ok(asSuperuser.schema).tables.length);
    const queries = ok(response.queries);
    expect(queries.some((q) => q.query.includes('<insufficient privilege>'))).toBe(false);
    expect(queries.some((q) => q.query.includes('FROM secret WHERE id >'))).toBe(false);
  });

  it('gives a pg_read_all_stats role every statement', async () => {
    const response = await sync({ db: as('monitor') });
    expect(ok(response.meta).visibility).toMatchObject({ superuser: false, pgReadAllStats: true, insufficientPrivilegeStatements: 0 });
    expect(ok(response.queries).some((q) => q.query.includes('FROM secret WHERE id >'))).toBe(true);
  });

  it('writes nothing: write counters and the catalog are unchanged by a full sync', async () => {
    // Counters reach the statistics views asynchronously: read until two reads a moment apart agree.
    const snapshot = async () => {
      let previous = await read();
      for (let i = 0; i < 10; i++) {
        await sleep(700);
        const current = await read();
        if (current.counters === previous.counters && current.catalog === previous.catalog) return current;
        previous = current;
      }
      return previous;
    };
    const read = async () => {
      const { rows } = await server.query<{ counters: string; catalog: string }>(
        `SELECT (SELECT json_build_array(tup_inserted, tup_updated, tup_deleted) FROM pg_stat_database WHERE datname = current_database())::text
                || (SELECT json_build_array(sum(n_tup_ins), sum(n_tup_upd), sum(n_tup_del), sum(n_tup_hot_upd)) FROM pg_stat_user_tables)::text AS counters,
                md5((SELECT string_agg(oid::text || relname || relkind::text || relnamespace::text, ',' ORDER BY oid) FROM pg_class)
                 || (SELECT string_agg(attrelid::text || attname || atttypid::text, ',' ORDER BY attrelid, attnum) FROM pg_attribute)
                 || (SELECT string_agg(oid::text || conname, ',' ORDER BY oid) FROM pg_constraint)
                 || (SELECT string_agg(indexrelid::text || indisvalid::text, ',' ORDER BY indexrelid) FROM pg_index)
                 || (SELECT string_agg(oid::text || proname, ',' ORDER BY oid) FROM pg_proc)
                 || (SELECT string_agg(oid::text || rolname, ',' ORDER BY oid) FROM pg_roles)) AS catalog`,
        [],
        'app',
      );
      return rows[0]!;
    };
    const before = await snapshot();
    await sync({ db: url, sampleRows: 100 });
    await sync({ db: as('plain') });
    const after = await snapshot();
    expect(after).toEqual(before);
    // The measure is able to see a write: one insert moves the counters.
    await server.query(`INSERT INTO empty_table VALUES (1); DELETE FROM empty_table`, [], 'app');
    const afterWrite = await snapshot();
    expect(afterWrite.counters).not.toBe(before.counters);
  });

  it('opens sessions that refuse writes, and refuses a connection string that would set session options', async () => {
    const db = openGateway(url);
    try {
      await expect(db.rows('CREATE TABLE should_not_exist (id int)')).rejects.toMatchObject({ code: '25006' });
      await expect(db.rows(`INSERT INTO public.empty_table VALUES (1)`)).rejects.toMatchObject({ code: '25006' });
      const rows = await db.rows<{ application_name: string }>('SHOW application_name');
      expect(rows[0]?.application_name).toBe('querytrail-analyzer');
    } finally {
      await db.close();
    }
    const sneaky = `${url}?options=${encodeURIComponent('-c default_transaction_read_only=off')}`;
    const refused = await postSync(analyzer.url, { db: sneaky });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('"options" is not accepted') });
  });
});
