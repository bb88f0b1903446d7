// A managed service read with a monitoring role: pg_monitor, no SELECT on the application's tables,
// on a real PostgreSQL 18. pg_stats hides the columns of those tables from the role, so the shadow
// plans `customer_id = $1` with the planner's defaults (1,000 rows of 200,000) where the owner's
// connection plans 40: the analysis says so, per table and per query. With the administrator's
// helper (docs/monitoring-role.sql, run as written) the role plans exactly as the owner does.
// Then the helper is attacked: functions of the right name that are not it must never be called.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeResponseSchema, type AnalyzeResponse } from '../../shared/analysis';
import { remoteSyncResponseSchema } from '../../shared/analyzer-schema';
import { hiddenStatisticsWarning } from '../../shared/statistics-warnings';
import { readSnapshot } from '../../snapshot/read';
import { columnStatsHelperUsable, openGateway, readThroughColumnStatsHelper } from '../../gateway/index';
import { postJson, postSync, startTestAnalyzer } from '../support/analyzer';
import { requestJson } from '../support/api';
import { openTestServices, startTestServer, type TestServer } from '../support/services';
import { waitForAnalysis } from '../../server/analysis/jobs';
import { waitForRunVerdict } from '../../server/verdict/jobs';
import { verdictSchema } from '../../shared/policy';
import { verdictMarkdown } from '../../cli/verdict-format';
import { startPostgres, type PostgresServer } from '../support/postgres';

const HELPER_SQL = readFileSync(path.join(import.meta.dirname, '../../docs/monitoring-role.sql'), 'utf8');
const QUERY = 'SELECT id, total_cents FROM shop.orders WHERE customer_id = $1';
const FRESH_QUERY = 'SELECT id FROM shop.fresh WHERE customer_id = $1';

const SETUP = `
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id bigint PRIMARY KEY, customer_id int NOT NULL, total_cents int NOT NULL);
INSERT INTO shop.orders SELECT g, g % 5000, g % 9000 FROM generate_series(1, 200000) g;
ANALYZE shop.orders;
CREATE TABLE shop.fresh (id int, customer_id int);
CREATE ROLE querytrail_monitor LOGIN PASSWORD 'monitor' IN ROLE pg_monitor;`;

describe('statistics under a monitoring role, PostgreSQL 18', () => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let app: TestServer;
  let owner: string;
  let monitor: string;

  const analyze = async (db: string, queries: string[]): Promise<AnalyzeResponse> => {
    const answer = await postJson(analyzer.url, '/postgres/analyze', { db, queries: queries.map((query) => ({ query })) });
    expect(answer.status).toBe(200);
    return analyzeResponseSchema.parse(answer.json);
  };
  const customerIdStats = async () => {
    const sync = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db: monitor })).json);
    if (sync.schema.type !== 'ok') throw new Error(sync.schema.error);
    const orders = sync.schema.value.tables.find((t) => t.schema === 'shop' && t.name === 'orders');
    return orders?.columns.find((c) => c.name === 'customer_id')?.stats;
  };
  const planOf = (body: AnalyzeResponse) => ({ rows: body.queries[0]!.plan?.['Plan Rows'], cost: body.queries[0]!.cost });

  beforeAll(async () => {
    [server, analyzer, app] = await Promise.all([
      startPostgres({ major: 18, statStatements: false }),
      startTestAnalyzer(),
      openTestServices('pglite').then((services) => startTestServer(services)),
    ]);
    owner = await server.createDatabase('shop');
    await server.query(SETUP, [], 'shop');
    monitor = owner.replace('postgres:postgres@', 'querytrail_monitor:monitor@');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await analyzer?.close();
    await server?.stop();
  });

  let asOwner: AnalyzeResponse;

  it("plans with production's statistics on the owner's connection, without a warning", async () => {
    asOwner = await analyze(owner, [QUERY]);
    expect(planOf(asOwner).rows).toBeGreaterThanOrEqual(30);
    expect(planOf(asOwner).rows).toBeLessThanOrEqual(55);
    expect(asOwner.warnings).toEqual([]);
    expect(asOwner.queries[0]!.warnings).toBeUndefined();
  });

  it('warns, per table and per query, when pg_stats hides the columns from the role, and not for a table never analyzed', async () => {
    const sync = remoteSyncResponseSchema.parse((await postSync(analyzer.url, { db: monitor })).json);
    if (sync.meta.type !== 'ok') throw new Error(sync.meta.error);
    expect(sync.meta.value.visibility.tablesWithoutSelect).toEqual([
      { schema: 'shop', name: 'fresh' },
      { schema: 'shop', name: 'orders' },
    ]);
    expect(sync.meta.value.visibility.notes.join('\n')).toMatch(/querytrail\.column_stats\(\) helper \(docs\/monitoring-role\.md\)/);
    expect(await customerIdStats()).toBeNull();
    const snapshot = await readSnapshot(monitor);
    expect(snapshot.hiddenStatistics).toEqual([
      { schema: 'shop', table: 'fresh', columns: ['id', 'customer_id'], statistics: 'never_analyzed' },
      { schema: 'shop', table: 'orders', columns: ['id', 'customer_id', 'total_cents'], statistics: 'hidden' },
    ]);

    const body = await analyze(monitor, [QUERY, FRESH_QUERY]);
    const [orders, fresh] = [QUERY, FRESH_QUERY].map((query) => body.queries.find((q) => q.query === query)!);
    // the planner's default selectivity of an equality: 0.5%
    expect(orders!.plan?.['Plan Rows']).toBe(1000);
    expect(body.warnings).toEqual([hiddenStatisticsWarning('shop.orders')]);
    expect(body.warnings[0]).toMatch(
      /^planned without production column statistics for shop\.orders: .*Grant it SELECT on shop\.orders, or .*docs\/monitoring-role\.md/,
    );
    expect(orders!.warnings).toEqual([hiddenStatisticsWarning('shop.orders')]);
    // production plans a table never analyzed with the defaults too: nothing is lost
    expect(fresh!.warnings).toBeUndefined();
  });

  it("says so in the environment's Analyze and in a CI run's verdict", async () => {
    {
      const api = (route: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${app.url}/api${route}`, init);
      const env = (await api('/env', { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id as string;
      await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'Monitoring', role: 'production', connectionString: monitor } });
      await api(`/env/${env}/repos`, { method: 'POST', json: { repo: 'acme/shop' } });
      await api(`/env/${env}/queries`, { method: 'POST', json: { query: QUERY } });
      const started = await api(`/env/${env}/analyze`, { method: 'POST' });
      await waitForAnalysis(started.body.id);
      expect((await api(`/env/${env}/analyze`)).body).toMatchObject({ status: 'done', warnings: [hiddenStatisticsWarning('shop.orders')] });
      // and on the query's own analysis, as its page shows it
      const hash = ((await api(`/env/${env}/queries`)).body as { hash: string }[])[0]!.hash;
      expect((await api(`/env/${env}/queries/${hash}/analysis`)).body).toMatchObject({ warnings: [hiddenStatisticsWarning('shop.orders')] });

      const run = (await api('/ci/runs', { method: 'POST', json: { repo: 'acme/shop', runId: '1', branch: 'main', queries: [{ query: QUERY }] } })).body
        .id as string;
      await waitForRunVerdict(run);
      const verdict = verdictSchema.parse((await api(`/ci/runs/${run}/verdict`)).body);
      expect(verdict.warnings).toEqual([hiddenStatisticsWarning('shop.orders')]);
      expect(verdictMarkdown(verdict, { id: run, repo: 'acme/shop', runId: '1' })).toContain('Planned without production column statistics for shop.orders');
    }
  });

  it("plans exactly as the owner does through the administrator's helper, without a warning", async () => {
    await server.query(HELPER_SQL, [], 'shop');
    const asMonitor = await analyze(monitor, [QUERY]);
    expect(planOf(asMonitor)).toEqual(planOf(asOwner));
    expect(asMonitor.queries[0]!.plan).toEqual(asOwner.queries[0]!.plan);
    expect(asMonitor.warnings).toEqual([]);
    expect(asMonitor.queries[0]!.warnings).toBeUndefined();
    const snapshot = await readSnapshot(monitor);
    expect(snapshot.hiddenStatistics).toEqual([{ schema: 'shop', table: 'fresh', columns: ['id', 'customer_id'], statistics: 'never_analyzed' }]);
    // the schema browser's statistics come through it too
    expect((await customerIdStats())?.nDistinct).toBeGreaterThan(4000);
  });

  describe('functions that are not the helper are never called', () => {
    let attack: string;
    let attackAsMonitor: string;
    // Each stand-in would, if called, claim every customer_id is unique: plans would estimate 1 row.
    const FAKE_BODY = `SELECT s.schemaname, s.tablename, s.attname, s.inherited, s.null_frac, s.avg_width, -1::real, s.most_common_vals,
      s.most_common_freqs, s.histogram_bounds, s.correlation, s.most_common_elems, s.most_common_elem_freqs, s.elem_count_histogram,
      s.range_length_histogram, s.range_empty_frac, s.range_bounds_histogram FROM pg_catalog.pg_stats s`;
    const usable = async () => {
      const gateway = openGateway(attackAsMonitor);
      try {
        return await gateway.transaction((tx) => columnStatsHelperUsable(tx));
      } finally {
        await gateway.close();
      }
    };

    beforeAll(async () => {
      attack = await server.createDatabase('attack');
      attackAsMonitor = attack.replace('postgres:postgres@', 'querytrail_monitor:monitor@');
      await server.query(
        `CREATE SCHEMA shop;
         CREATE TABLE shop.orders (id bigint PRIMARY KEY, customer_id int NOT NULL, total_cents int NOT NULL);
         INSERT INTO shop.orders SELECT g, g % 50, g FROM generate_series(1, 5000) g;
         ANALYZE shop.orders;
         CREATE ROLE stand_in_owner NOLOGIN;
         GRANT USAGE ON SCHEMA shop TO stand_in_owner;
         GRANT SELECT ON shop.orders TO stand_in_owner;
         CREATE SCHEMA querytrail;
         CREATE SCHEMA elsewhere;
         GRANT USAGE ON SCHEMA querytrail, elsewhere TO PUBLIC;`,
        [],
        'attack',
      );
    });

    it('is used as documented, and a stand-in of the same shape elsewhere is not', async () => {
      await server.query(
        `CREATE FUNCTION elsewhere.column_stats() RETURNS SETOF pg_catalog.pg_stats LANGUAGE sql SECURITY DEFINER AS $$ ${FAKE_BODY} $$;
         ALTER FUNCTION elsewhere.column_stats() OWNER TO stand_in_owner;`,
        [],
        'attack',
      );
      expect(await usable()).toBe(false);
      // the positive control: the documented shape is taken
      await server.query(
        `CREATE FUNCTION querytrail.column_stats() RETURNS SETOF pg_catalog.pg_stats LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$ ${FAKE_BODY} $$;
         ALTER FUNCTION querytrail.column_stats() OWNER TO stand_in_owner;`,
        [],
        'attack',
      );
      expect(await usable()).toBe(true);
      const snapshot = await readSnapshot(attackAsMonitor);
      expect(snapshot.stats.find((s) => s.column === 'customer_id')?.values.n_distinct).toBe(-1);
    });

    it('is not used with another signature, another return type, beside an overload, as SECURITY INVOKER or owned by the role itself', async () => {
      const variants = [
        // runs as the caller: its body would run with our privileges
        `ALTER FUNCTION querytrail.column_stats() SECURITY INVOKER`,
        // owned by the connecting role: a definer that is us
        `ALTER FUNCTION querytrail.column_stats() OWNER TO querytrail_monitor`,
        `DROP FUNCTION querytrail.column_stats();
         CREATE FUNCTION querytrail.column_stats(relation regclass DEFAULT NULL) RETURNS SETOF pg_catalog.pg_stats LANGUAGE sql SECURITY DEFINER AS $$ ${FAKE_BODY} $$;
         ALTER FUNCTION querytrail.column_stats(regclass) OWNER TO stand_in_owner`,
        `DROP FUNCTION querytrail.column_stats();
         CREATE FUNCTION querytrail.column_stats() RETURNS SETOF record LANGUAGE sql SECURITY DEFINER AS $$ ${FAKE_BODY} $$;
         ALTER FUNCTION querytrail.column_stats() OWNER TO stand_in_owner`,
        // the right one, beside an overload a call could resolve to instead
        `CREATE FUNCTION querytrail.column_stats(VARIADIC text[]) RETURNS SETOF pg_catalog.pg_stats LANGUAGE sql AS $$ ${FAKE_BODY} $$`,
      ];
      for (const variant of variants) {
        await server.query(
          `DROP FUNCTION IF EXISTS querytrail.column_stats(); CREATE FUNCTION querytrail.column_stats() RETURNS SETOF pg_catalog.pg_stats LANGUAGE sql SECURITY DEFINER AS $$ ${FAKE_BODY} $$;
           ALTER FUNCTION querytrail.column_stats() OWNER TO stand_in_owner; ${variant}`,
          [],
          'attack',
        );
        expect(await usable(), variant).toBe(false);
        const snapshot = await readSnapshot(attackAsMonitor);
        expect(snapshot.stats, variant).toEqual([]);
        expect(
          snapshot.hiddenStatistics?.map((h) => h.statistics),
          variant,
        ).toEqual(['hidden']);
        await server.query(
          `DROP FUNCTION IF EXISTS querytrail.column_stats(VARIADIC text[]); DROP FUNCTION IF EXISTS querytrail.column_stats(regclass);`,
          [],
          'attack',
        );
      }
    });

    it("undoes what the helper's body changes in our transaction before the next statement", async () => {
      await server.query(
        `DROP FUNCTION IF EXISTS querytrail.column_stats();
         CREATE FUNCTION querytrail.column_stats() RETURNS SETOF pg_catalog.pg_stats LANGUAGE plpgsql SECURITY DEFINER AS $$
         BEGIN
           PERFORM pg_catalog.set_config('search_path', 'elsewhere, pg_catalog', true);
           PERFORM pg_catalog.set_config('row_security', 'on', true);
           PERFORM pg_catalog.set_config('statement_timeout', '0', true);
           RETURN QUERY ${FAKE_BODY};
         END $$;
         ALTER FUNCTION querytrail.column_stats() OWNER TO stand_in_owner;`,
        [],
        'attack',
      );
      const gateway = openGateway(attackAsMonitor);
      try {
        const after = await gateway.transaction(async (tx) => {
          const rows = await readThroughColumnStatsHelper<{ attname: string }>(tx, (from) => `SELECT s.attname FROM ${from} s WHERE s.schemaname = 'shop'`);
          const [settings] = await tx.rows<Record<string, string>>(
            `SELECT current_setting('search_path') AS search_path, current_setting('row_security') AS row_security, current_setting('statement_timeout') AS statement_timeout`,
          );
          return { rows: rows?.length, settings };
        });
        expect(after.rows).toBe(3);
        expect(after.settings).toEqual({ search_path: 'pg_catalog, pg_temp', row_security: 'off', statement_timeout: '30s' });
      } finally {
        await gateway.close();
      }
    });
  });
});
