// Schema filters of a connection against a real PostgreSQL with several schemas: the patterns are
// refused at the edge when malformed (nothing changes), shown and changed through the API (never
// the connection string), and every reader keeps to the schemas they allow: the analyzer's sync,
// production's catalog sync and history (pg_stat_statements), index health and the verdict's
// production snapshot (whole and scoped).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRefs } from '../advisor/index';
import { loadParser, fingerprintQuery } from '../shared/sql-fingerprint';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { requestJson } from '../test/support/api';
import { postJson, postSync, startTestAnalyzer } from '../test/support/analyzer';
import { appRouter } from './routers/root';
import { createContext } from './trpc';
import { takeHistoryReading } from './history/reading';
import { readProductionIndexHealth } from './analysis/index-health';
import { currentSnapshot } from './verdict/snapshots';

// public, tenant_1 and tenant_2 are allowed; tenant_secret is excluded; audit and other are not included.
const INCLUDE = ['tenant_*', 'public'];
const EXCLUDE = ['tenant_secret'];
const ALLOWED = ['public', 'tenant_1', 'tenant_2'];
const ALL = ['audit', 'other', 'public', 'tenant_1', 'tenant_2', 'tenant_secret'];

const STATEMENTS = {
  tenantOne: { sql: 'SELECT customer FROM tenant_1.orders WHERE id = $1', kept: true },
  secret: { sql: 'SELECT customer FROM tenant_secret.orders WHERE customer = $1', kept: false },
  // unqualified, and only the audit schema holds audit_log: attributed to audit, left out
  audit: { sql: 'SELECT note FROM audit_log WHERE id = $1', kept: false, searchPath: 'audit' },
  settings: { sql: 'SELECT value FROM settings WHERE key = $1::text', kept: true },
  // the documented limit: orders is unqualified and tenant_1 holds one too, so it is kept
  // although it ran against tenant_secret (pg_stat_statements does not keep the search_path)
  ambiguous: { sql: 'SELECT id FROM orders WHERE customer > $1', kept: true, searchPath: 'tenant_secret' },
} as const;

let production: PostgresServer;
let url: string;
const hashes: Record<string, string> = {};

async function runStatements(times = 3) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of Object.values(STATEMENTS)) {
      await client.query(`SET search_path TO ${'searchPath' in statement ? statement.searchPath : 'public'}`);
      for (let i = 0; i < times; i++) await client.query(statement.sql, [i + 1]);
    }
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  production = await startPostgres({ statStatements: true });
  url = await production.createDatabase('tenants');
  const q = (sql: string) => production.query(sql, [], 'tenants');
  await q('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await q("CREATE TABLE public.settings (key text PRIMARY KEY, value text); INSERT INTO public.settings VALUES ('a', 'b')");
  for (const schema of ['tenant_1', 'tenant_2', 'tenant_secret', 'other']) {
    await q(`CREATE SCHEMA ${schema}`);
    await q(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, customer int NOT NULL)`);
    await q(`INSERT INTO ${schema}.orders SELECT g, g % 10 FROM generate_series(1, 200) g`);
    // two indexes alike: index health calls one a duplicate
    await q(`CREATE INDEX orders_customer ON ${schema}.orders (customer)`);
    await q(`CREATE INDEX orders_customer_again ON ${schema}.orders (customer)`);
    await q(`CREATE TYPE ${schema}.state AS ENUM ('open', 'closed')`);
    await q(`ANALYZE ${schema}.orders`);
  }
  await q('CREATE SCHEMA audit');
  await q('CREATE TABLE audit.audit_log (id int PRIMARY KEY, note text)');
  await q('CREATE INDEX audit_note ON audit.audit_log (note)');
  await q('CREATE INDEX audit_note_again ON audit.audit_log (note)');
  await loadParser();
  for (const [name, statement] of Object.entries(STATEMENTS)) hashes[name] = (await fingerprintQuery(statement.sql)).hash;
});
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

const schemasIn = (items: { schema: string }[]) => [...new Set(items.map((i) => i.schema))].sort();

describe('the analyzer with schema filters in its request', () => {
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  beforeAll(async () => {
    analyzer = await startTestAnalyzer();
    await production.query('SELECT pg_stat_statements_reset()', [], 'tenants');
    await runStatements();
  });
  afterAll(() => analyzer?.close());

  it('syncs only the allowed schemas: schema, queries, disabled indexes and index health', async () => {
    const answer = await postSync(analyzer.url, { db: url, includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
    expect(answer.status).toBe(200);
    const { schema, queries, indexHealth } = answer.json;
    expect(schema.type).toBe('ok');
    expect(schema.value.schemas.map((s: { name: string }) => s.name)).toEqual(ALLOWED);
    expect(schemasIn(schema.value.tables)).toEqual(ALLOWED);
    expect(schemasIn(schema.value.indexes)).toEqual(['public', 'tenant_1', 'tenant_2']);
    expect(schemasIn(schema.value.types.enums)).toEqual(['tenant_1', 'tenant_2']);
    expect(indexHealth.type).toBe('ok');
    expect(schemasIn(indexHealth.value.indexes)).toEqual(['tenant_1', 'tenant_2']);
    expect(queries.type).toBe('ok');
    const seen = new Set(queries.value.map((q: { hash: string }) => q.hash));
    for (const [name, statement] of Object.entries(STATEMENTS)) expect([name, seen.has(hashes[name]!)]).toEqual([name, statement.kept]);
    expect(JSON.stringify(answer.json)).not.toContain('tenant_secret');
    expect(JSON.stringify(answer.json)).not.toContain('audit_log');
  });

  it('syncs while another session holds the excluded tables locked: nothing of them is read', async () => {
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tenant_secret.orders, audit.audit_log IN ACCESS EXCLUSIVE MODE');
      const answer = await postSync(analyzer.url, { db: url, includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
      expect([answer.json.schema.type, answer.json.indexHealth.type, answer.json.schema.value.warnings]).toEqual(['ok', 'ok', []]);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });

  it('reads every schema without filters, as a bare { db } request always did', async () => {
    const answer = await postSync(analyzer.url, { db: url });
    expect(answer.json.schema.value.schemas.map((s: { name: string }) => s.name)).toEqual(ALL);
  });

  it('keeps the summary and the pages of objects to the allowed schemas', async () => {
    const summary = await postJson(analyzer.url, '/postgres/summary', { db: url, includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
    expect(summary.json.summary.value.schemas.map((s: { name: string }) => s.name)).toEqual(ALLOWED);
    const objects = await postJson(analyzer.url, '/postgres/objects', { db: url, excludeSchemas: ['tenant_*', 'audit', 'other'], q: 'orders' });
    expect(objects.json.total).toBe(0);
    const all = await postJson(analyzer.url, '/postgres/objects', { db: url, excludeSchemas: ['tenant_?'], limit: 500 });
    expect(
      schemasIn(
        all.json.items
          .map((i: { table?: { schema: string }; kind: string }) => ({ schema: i.table?.schema ?? '' }))
          .filter((s: { schema: string }) => s.schema),
      ),
    ).toEqual(['audit', 'other', 'public', 'tenant_secret']);
  });

  it('refuses a malformed pattern with the one error shape', async () => {
    const answer = await postSync(analyzer.url, { db: url, excludeSchemas: ['^tenant_.*$'] });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('validation_failed');
    expect(answer.json.error.issues[0].path).toBe('excludeSchemas.0');
    expect(answer.json.error.issues[0].message).toMatch(/globs, not regular expressions/);
  });
});

describe.each(BACKENDS)('a connection with schema filters, the store on %s', (backend) => {
  let server: TestServer;
  let envId: string;
  let connectionId: string;
  const api = (path: string, init?: Parameters<typeof requestJson>[1]) => requestJson(`${server.url}/api/env/${envId}${path}`, init);
  const caller = () => appRouter.createCaller(createContext(server.services));

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    ({
      body: { id: envId },
    } = await requestJson(`${server.url}/api/env`, { method: 'POST', json: { name: 'Tenants', slug: 'tenants' } }));
  });
  afterAll(() => server?.close());

  it('refuses a connection with a malformed pattern, and adds nothing', async () => {
    for (const [field, pattern] of [
      ['includeSchemas', ''],
      ['excludeSchemas', 'tenant_(1|2)'],
      ['excludeSchemas', 'x'.repeat(64)],
      ['includeSchemas', 'tab\there'],
    ] as const) {
      const answer = await api('/connections', { method: 'POST', json: { label: 'bad', role: 'production', connectionString: url, [field]: [pattern] } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: `${field}.0`, message: expect.any(String) }] });
    }
    expect((await api('')).body.connections).toEqual([]);
  });

  it('stores the patterns, shows them, never the connection string', async () => {
    const added = await api('/connections', {
      method: 'POST',
      json: { label: 'primary', role: 'production', connectionString: url, includeSchemas: ['tenant_*'] },
    });
    expect(added.status).toBe(201);
    connectionId = added.body.id;
    const detail = await api('');
    expect(detail.body.connections).toEqual([expect.objectContaining({ id: connectionId, includeSchemas: ['tenant_*'], excludeSchemas: [] })]);
    expect(detail.text).not.toContain(url);
  });

  it('changes the patterns with PATCH, keeps a list left out, and refuses a bad one without changing anything', async () => {
    const changed = await api(`/connections/${connectionId}`, { method: 'PATCH', json: { includeSchemas: INCLUDE, excludeSchemas: EXCLUDE } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: connectionId, label: 'primary', includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
    expect(changed.text).not.toContain(url);
    expect(Object.keys(changed.body)).not.toContain('connectionString');

    const refused = await api(`/connections/${connectionId}`, { method: 'PATCH', json: { includeSchemas: [], excludeSchemas: ['tenant_[0-9]'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'excludeSchemas.0' }] });
    const kept = await api(`/connections/${connectionId}`, { method: 'PATCH', json: { excludeSchemas: EXCLUDE } });
    expect(kept.body).toMatchObject({ includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });

    expect((await api('/connections/conn_missing', { method: 'PATCH', json: { excludeSchemas: [] } })).status).toBe(404);
  });

  it('syncs production pg_stat_statements into the catalog without the statements of excluded schemas', async () => {
    await production.query('SELECT pg_stat_statements_reset()', [], 'tenants');
    await runStatements();
    await caller().queries.syncProduction({ id: envId });
    const catalog = new Set((await caller().queries.list({ id: envId })).map((q) => q.hash));
    for (const [name, statement] of Object.entries(STATEMENTS)) expect([name, catalog.has(hashes[name]!)]).toEqual([name, statement.kept]);
  });

  it('keeps history to the statements of the allowed schemas', async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 10, 20, 12, n));
    await production.query('SELECT pg_stat_statements_reset()', [], 'tenants');
    await runStatements(1);
    await takeHistoryReading(server.services, envId, { now: at(0) });
    await runStatements(2);
    const second = await takeHistoryReading(server.services, envId, { now: at(10) });
    expect(second?.connections[0]?.result).toBe('points');
    for (const [name, statement] of Object.entries(STATEMENTS)) {
      const points = await caller().history.query({ id: envId, hash: hashes[name]!, from: at(-1).toISOString(), to: at(60).toISOString() });
      expect([name, points.some((p) => p.calls === 2)]).toEqual([name, statement.kept]);
    }
  });

  it('judges only the indexes of the allowed schemas', async () => {
    const health = await readProductionIndexHealth(url, { includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
    expect(schemasIn(health.indexes)).toEqual(['tenant_1', 'tenant_2']);
    expect(health.indexes.filter((i) => i.kinds.includes('duplicate')).map((i) => `${i.schema}.${i.name}`)).toEqual([
      'tenant_1.orders_customer_again',
      'tenant_2.orders_customer_again',
    ]);
  });

  it('never touches an excluded schema: its tables locked by another session, every filtered reader still answers', async () => {
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tenant_secret.orders, audit.audit_log IN ACCESS EXCLUSIVE MODE');
      // unfiltered, the same read waits for the lock and gives up (lock_timeout 2 s): the lock is in the way
      await expect(readProductionIndexHealth(url)).rejects.toThrow(/lock/i);
      const health = await readProductionIndexHealth(url, { includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
      expect(schemasIn(health.indexes)).toEqual(['tenant_1', 'tenant_2']);
      const snapshot = await currentSnapshot(server.services, envId, { maxAgeMs: 0, force: true });
      expect(schemasIn(snapshot.snapshot.relations)).toEqual(ALLOWED);
      await caller().queries.syncProduction({ id: envId });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });

  it("reads the verdict's production snapshot of the allowed schemas only, and again when the filters change", async () => {
    const whole = await currentSnapshot(server.services, envId, { maxAgeMs: 0, force: true });
    const snapshot = whole.snapshot;
    expect(snapshot.schemaFilters).toEqual({ includeSchemas: INCLUDE, excludeSchemas: EXCLUDE });
    expect(schemasIn(snapshot.relations)).toEqual(ALLOWED);
    expect(schemasIn(snapshot.columns)).toEqual(ALLOWED);
    expect(schemasIn(snapshot.stats)).toEqual(['tenant_1', 'tenant_2']);
    expect(schemasIn(snapshot.indexes)).toEqual(ALLOWED);
    expect(schemasIn(Object.values(snapshot.graph!.relations))).toEqual(ALLOWED);
    const text = JSON.stringify({ ...snapshot, schemaFilters: undefined });
    for (const hidden of ['tenant_secret', 'audit_log']) expect(text).not.toContain(hidden);

    // scoped to a verdict's queries: a name in an excluded schema resolves to nothing
    const scope = queryRefs(['SELECT * FROM tenant_1.orders', 'SELECT * FROM tenant_secret.orders']);
    const scoped = await currentSnapshot(server.services, envId, { maxAgeMs: 0, force: true, scope });
    expect(scoped.snapshot.relations.map((r) => `${r.schema}.${r.name}`)).toContain('tenant_1.orders');
    // the query's own name stays in the scope, resolved to nothing; nothing of the schema was read
    expect(JSON.stringify({ ...scoped.snapshot, schemaFilters: undefined, scope: undefined })).not.toContain('tenant_secret');
    expect(Object.entries(scoped.snapshot.scope!.relations).filter(([name]) => name.includes('orders'))).toEqual(
      expect.arrayContaining([
        [expect.stringContaining('tenant_1'), 'tenant_1.orders'],
        [expect.stringContaining('tenant_secret'), null],
      ]),
    );

    // other filters: the stored snapshot is not reused
    await api(`/connections/${connectionId}`, { method: 'PATCH', json: { includeSchemas: [], excludeSchemas: ['tenant_2'] } });
    const again = await currentSnapshot(server.services, envId, { maxAgeMs: 60_000 });
    expect(again.id).not.toBe(scoped.id);
    expect(schemasIn(again.snapshot.relations)).toEqual(['audit', 'other', 'public', 'tenant_1', 'tenant_secret']);
  });
});
