// The CI verdict end to end, as a team meets it: production is a real PostgreSQL with a million
// orders; each CI run is a real CI database (its migrations applied, its test suite's queries in
// pg_stat_statements) reported by the real `querytrail ci-report` command, which sends the queries
// and the CI database's schema to the real HTTP API. Every assertion is on what
// GET /api/ci/runs/{id}/verdict answers, polled until the background analysis is done.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '../../shared/policy';
import { fingerprintOf, loadParser } from '../../shared/sql-fingerprint';
import { closeWarmShadows } from '../../server/verdict/shadows';
import { runCli } from '../support/cli';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../support/services';

const REPO = 'acme/shop';
const VERDICT_WAIT_MS = 120_000;
const STEP_TIMEOUT_MS = 150_000;

// What the application runs, as pg_stat_statements reports it ($n parameters).
const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = $1';
const BY_ID = 'SELECT * FROM orders WHERE id = $1';
/** A pull request's new query: warehouse_id has no index in production. */
const BY_WAREHOUSE = 'SELECT id, status FROM orders WHERE warehouse_id = $1';
/** Another pull request's new query, on total_cents (no index either). */
const BY_TOTAL = 'SELECT id, created_at FROM orders WHERE total_cents = $1';

const ORDERS_TABLE = `CREATE TABLE orders (
  id bigint PRIMARY KEY,
  customer_id int NOT NULL,
  warehouse_id int NOT NULL,
  total_cents int NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL)`;
const CUSTOMER_INDEX = 'CREATE INDEX orders_customer_id_idx ON orders (customer_id)';
const WAREHOUSE_INDEX = 'CREATE INDEX orders_warehouse_id_idx ON orders (warehouse_id)';

/** Rows first..last of the orders table: 20,000 customers, 1,000 warehouses, 10,000 distinct totals. */
const orderRows = (first: number, last: number) =>
  `INSERT INTO orders
   SELECT g, g % 20000, (g::bigint * 7919 % 1000)::int, g % 10000,
          CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END,
          timestamptz '2026-01-01' - g * interval '1 minute'
   FROM generate_series(${first}, ${last}) g`;

let server: TestServer;
let production: PostgresServer;
let ci: PostgresServer;
let envId = '';
const hash: Record<'byCustomer' | 'byId' | 'byWarehouse' | 'byTotal', string> = { byCustomer: '', byId: '', byWarehouse: '', byTotal: '' };
/** CI databases by what the pull request's migrations left. */
const ciDb: Record<'main' | 'newQuery' | 'newQueryWithIndex' | 'dropsIndex' | 'totals', string> = {
  main: '',
  newQuery: '',
  newQueryWithIndex: '',
  dropsIndex: '',
  totals: '',
};
/** The second run on main: the baseline of every later pull request. */
let mainRun = '';

async function api<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}/api${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A CI database after a pull request's migrations and test suite: the schema, then the queries run
 * with parameters (so pg_stat_statements keeps them as `$1`), as `querytrail ci-report --db` reads it.
 */
async function createCiDatabase(name: string, migrations: string[], workload: string[]): Promise<string> {
  const url = await ci.createDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION pg_stat_statements');
    for (const statement of migrations) await client.query(statement);
    for (const sql of workload) {
      for (const value of [1, 2, 3]) await client.query(sql, [value]);
    }
  } finally {
    await client.end();
  }
  return url;
}

/** `querytrail ci-report --db` as a CI job runs it; returns the stored run's id. */
async function report(db: string, runId: string, branch: string, repo = REPO): Promise<string> {
  // --wait 0: these tests read the verdict from the API themselves
  const result = await runCli(['ci-report', '--db', db, '--api', server.url, '--repo', repo, '--run-id', runId, '--branch', branch, '--wait', '0']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("with the CI database's schema");
  const id = /as (run_[\w-]+)/.exec(result.stdout)?.[1];
  expect(id, result.stdout).toBeDefined();
  return id!;
}

/** Polls the verdict until the analysis is done (bounded). A pending verdict says what it waits for. */
async function verdictOf(runId: string): Promise<Verdict> {
  const deadline = Date.now() + VERDICT_WAIT_MS;
  for (;;) {
    const res = await api<Verdict>('GET', `/ci/runs/${runId}/verdict`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (res.body.status !== 'pending') return res.body;
    expect(res.body.reason).toEqual(expect.any(String));
    if (Date.now() > deadline) throw new Error(`the verdict of ${runId} was still pending after ${VERDICT_WAIT_MS / 1000} s: ${res.body.reason}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const kinds = (verdict: Verdict) => verdict.findings.map((f) => `${f.kind}:${f.hash}`).sort();

beforeAll(async () => {
  const [services, prod, ciServer] = await Promise.all([
    openTestServices('pglite'),
    startPostgres({ statStatements: false }),
    startPostgres({ statStatements: true }),
    loadParser(),
  ]);
  production = prod;
  ci = ciServer;
  server = await startTestServer(services);
  for (const [key, sql] of [
    ['byCustomer', BY_CUSTOMER],
    ['byId', BY_ID],
    ['byWarehouse', BY_WAREHOUSE],
    ['byTotal', BY_TOTAL],
  ] as const) {
    hash[key] = fingerprintOf(sql);
  }

  const productionUrl = await production.createDatabase('shop');
  const fillProduction = production.query(`${ORDERS_TABLE}; ${orderRows(1, 1_000_000)}; ${CUSTOMER_INDEX}; ANALYZE orders`, [], 'shop');
  const schema = [ORDERS_TABLE, CUSTOMER_INDEX];
  [ciDb.main, ciDb.newQuery, ciDb.newQueryWithIndex, ciDb.dropsIndex, ciDb.totals] = await Promise.all([
    createCiDatabase('ci_main', schema, [BY_CUSTOMER, BY_ID]),
    createCiDatabase('ci_new_query', schema, [BY_CUSTOMER, BY_ID, BY_WAREHOUSE]),
    createCiDatabase('ci_new_query_with_index', [...schema, WAREHOUSE_INDEX], [BY_CUSTOMER, BY_ID, BY_WAREHOUSE]),
    // the migration drops the index an earlier migration created
    createCiDatabase('ci_drops_index', [...schema, 'DROP INDEX orders_customer_id_idx'], [BY_CUSTOMER, BY_ID]),
    createCiDatabase('ci_totals', schema, [BY_CUSTOMER, BY_ID, BY_TOTAL]),
    fillProduction,
  ]);

  envId = (await api('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await closeWarmShadows();
  await Promise.all([production?.stop(), ci?.stop()]);
});

describe('the verdict of every CI run, on a production of a million rows', () => {
  it(
    'runs on main whose queries production indexes serve pass; the second compares with the first',
    async () => {
      const first = await report(ciDb.main, '100', 'main');
      const firstVerdict = await verdictOf(first);
      expect(firstVerdict.status).toBe('pass');
      expect(firstVerdict.baseline).toBeNull();
      expect(firstVerdict.reason).toMatch(/No earlier run of branch "main"/);
      expect(firstVerdict.findings).toEqual([]);
      expect(firstVerdict.summary).toEqual({ queries: 2, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
      expect(firstVerdict.snapshotAt).toEqual(expect.any(String));
      expect(firstVerdict.analyzedAt).toEqual(expect.any(String));

      mainRun = await report(ciDb.main, '101', 'main');
      const verdict = await verdictOf(mainRun);
      expect(verdict).toMatchObject({ status: 'pass', reason: null, findings: [] });
      expect(verdict.baseline).toMatchObject({ id: first, runId: '100', branch: 'main' });
      expect(verdict.summary).toEqual({ queries: 2, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
      expect(verdict.policy).toMatchObject({ comparisonBranch: 'main', costRegressionPct: 10, minCost: 100, minSavedPct: 30 });
    },
    STEP_TIMEOUT_MS,
  );

  let unindexedCost = 0;
  let costWithIndex = 0;
  it(
    'a pull request with a new query on an unindexed column fails, with the CREATE INDEX it needs',
    async () => {
      const run = await report(ciDb.newQuery, '200', 'feature/warehouse-picking');
      const verdict = await verdictOf(run);
      expect(verdict.status).toBe('fail');
      expect(verdict.baseline).toMatchObject({ id: mainRun, runId: '101', branch: 'main' });
      expect(verdict.summary).toEqual({ queries: 3, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 });
      expect(kinds(verdict)).toEqual([`new_query_needs_index:${hash.byWarehouse}`]);
      const [finding] = verdict.findings;
      expect(finding).toMatchObject({ severity: 'fail', baselineCost: null, changePct: null, acknowledged: false });
      expect(finding!.formattedQuery).toMatch(/warehouse_id = \$1/);
      expect(finding!.recommendations[0]!.createIndex).toMatch(/^CREATE INDEX .*orders \(warehouse_id\)$/);
      expect(finding!.recommendations[0]!.savedPct).toBeGreaterThanOrEqual(30);
      expect(finding!.recommendations[0]!.costAfter).toBeLessThan(finding!.cost!);
      // a sequential scan of a million rows
      expect(finding!.cost).toBeGreaterThan(10_000);
      unindexedCost = finding!.cost!;
      costWithIndex = finding!.recommendations[0]!.costAfter;
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the same pull request with the index in its migration no longer needs one: only "new query" (a warning), and a pass once new queries are not flagged',
    async () => {
      const run = await report(ciDb.newQueryWithIndex, '201', 'feature/warehouse-picking');
      const verdict = await verdictOf(run);
      // compared with main, not with the branch's own failing run
      expect(verdict.baseline).toMatchObject({ id: mainRun, branch: 'main' });
      expect(verdict.summary).toEqual({ queries: 3, newQueries: 1, regressions: 0, needIndex: 0, lostIndex: 0 });
      expect(kinds(verdict)).toEqual([`new_query:${hash.byWarehouse}`]);
      expect(verdict.status).toBe('warn');
      const [finding] = verdict.findings;
      // planned with the run's index, sized on production's million rows like the one recommended above
      expect(finding!.cost).toBeLessThan(unindexedCost / 2);
      expect(Math.abs(finding!.cost! - costWithIndex)).toBeLessThanOrEqual(costWithIndex * 0.01);
      expect(finding!.schemaNotes).toEqual([expect.stringMatching(/orders_warehouse_id_idx/)]);
      expect(finding!.recommendations.filter((r) => r.savedPct >= 30)).toEqual([]);

      // The policy decides what a new query does: with it off the run passes.
      const updated = await api('PUT', `/env/${envId}/policy`, { conditions: { new_query: 'off' } });
      expect(updated.status).toBe(200);
      expect(updated.body.conditions).toMatchObject({ new_query: 'off', new_query_needs_index: 'fail' });
      const passing = await verdictOf(run);
      expect(passing).toMatchObject({ status: 'pass', findings: [] });
      expect(passing.summary).toEqual({ queries: 3, newQueries: 1, regressions: 0, needIndex: 0, lostIndex: 0 });
      expect((await api('PUT', `/env/${envId}/policy`, { conditions: { new_query: 'warn' } })).status).toBe(200);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'a pull request whose migration drops an index production queries use fails with lost_index naming them',
    async () => {
      const run = await report(ciDb.dropsIndex, '300', 'chore/drop-customer-index');
      const verdict = await verdictOf(run);
      expect(verdict.status).toBe('fail');
      expect(verdict.baseline).toMatchObject({ id: mainRun, branch: 'main' });
      const lost = verdict.findings.filter((f) => f.kind === 'lost_index');
      expect(lost.map((f) => f.hash)).toEqual([hash.byCustomer]);
      expect(lost[0]).toMatchObject({ severity: 'fail', acknowledged: false });
      expect(lost[0]!.formattedQuery).toMatch(/customer_id = \$1/);
      expect(lost[0]!.schemaNotes).toEqual([expect.stringMatching(/orders_customer_id_idx/)]);
      // what to put back
      expect(lost[0]!.recommendations[0]!.createIndex).toMatch(/^CREATE INDEX .*orders \(customer_id\)$/);
      // without its index the query scans the table: a regression of the same query
      expect(kinds(verdict)).toEqual([`cost_regression:${hash.byCustomer}`, `lost_index:${hash.byCustomer}`].sort());
      expect(lost[0]!.cost).toBeGreaterThan(lost[0]!.baselineCost! * 10);
      expect(verdict.summary).toEqual({ queries: 2, newQueries: 0, regressions: 1, needIndex: 0, lostIndex: 1 });
      // why: both plans on the same snapshot, the dropped index named as the cause, the scan that replaced it
      expect(verdict.plannedOn).toBe(`both planned on production as of ${verdict.snapshotAt}`);
      for (const finding of verdict.findings) {
        expect(finding.causes).toEqual([
          {
            kind: 'schema',
            object: 'public.orders_customer_id_idx',
            detail: "index public.orders_customer_id_idx is dropped in this run; the baseline's plan reads it",
          },
        ]);
        expect(JSON.stringify(finding.baselinePlan)).toContain('"Index Name":"orders_customer_id_idx"');
        expect(JSON.stringify(finding.plan)).not.toContain('orders_customer_id_idx');
        expect(finding.planDiff!.summary.join('\n')).toMatch(/(Bitmap Heap|Index) Scan using orders_customer_id_idx on orders -> .*Scan on orders/);
        expect(finding.planDiff!.summary.at(-1)).toMatch(/^Cost moved most at .*on orders: /);
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'acknowledging the failing finding passes the run; a later run where its cost jumps fails again',
    async () => {
      const first = await report(ciDb.totals, '400', 'feature/totals-report');
      const failing = await verdictOf(first);
      expect(failing.status).toBe('fail');
      expect(kinds(failing)).toEqual([`new_query_needs_index:${hash.byTotal}`]);
      const cost = failing.findings[0]!.cost!;

      const ack = await api('POST', `/env/${envId}/queries/${hash.byTotal}/acknowledge`, { note: 'Nightly report, runs once a day' });
      expect(ack.status).toBe(201);
      expect(ack.body).toMatchObject({ hash: hash.byTotal, note: 'Nightly report, runs once a day' });
      expect(ack.body.cost).toBeCloseTo(cost, 6);
      const listed = await api('GET', `/env/${envId}/acknowledgements`);
      expect(listed.body.map((a: { hash: string }) => a.hash)).toEqual([hash.byTotal]);

      const acknowledged = await verdictOf(first);
      expect(acknowledged.status).toBe('pass');
      // still listed, marked, and counted in the summary
      expect(kinds(acknowledged)).toEqual([`new_query_needs_index:${hash.byTotal}`]);
      expect(acknowledged.findings[0]).toMatchObject({ acknowledged: true, cost });
      expect(acknowledged.summary.needIndex).toBe(1);

      // Production grows by half; the snapshot is read again, and the next run plans on it.
      await production.query(`${orderRows(1_000_001, 1_500_000)}; ANALYZE orders`, [], 'shop');
      expect((await api('POST', `/env/${envId}/snapshot`)).status).toBe(202);
      const later = await report(ciDb.totals, '401', 'feature/totals-report');
      const reopened = await verdictOf(later);
      expect(Date.parse(reopened.snapshotAt!)).toBeGreaterThan(Date.parse(failing.snapshotAt!));
      expect(reopened.status).toBe('fail');
      expect(kinds(reopened)).toEqual([`new_query_needs_index:${hash.byTotal}`]);
      expect(reopened.findings[0]!.acknowledged).toBe(false);
      expect(reopened.findings[0]!.cost).toBeGreaterThan(cost * 1.1);

      // the acknowledged run keeps its verdict; undoing the acknowledgement fails it again
      expect((await verdictOf(first)).status).toBe('pass');
      expect((await api('DELETE', `/env/${envId}/queries/${hash.byTotal}/acknowledge`)).status).toBe(204);
      expect((await verdictOf(first)).status).toBe('fail');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'a run of an environment without a production connection, or of an unlinked repository, is unavailable with the reason',
    async () => {
      const reports = (await api('POST', '/env', { name: 'Reports', slug: 'reports' })).body.id as string;
      // a CI connection is not a production one
      expect((await api('POST', `/env/${reports}/connections`, { label: 'CI', role: 'ci', connectionString: ciDb.main })).status).toBe(201);
      expect((await api('POST', `/env/${reports}/repos`, { repo: 'acme/reports' })).status).toBe(201);
      const run = await report(ciDb.main, '600', 'main', 'acme/reports');
      const verdict = await verdictOf(run);
      expect(verdict.status).toBe('unavailable');
      expect(verdict.reason).toMatch(/"Reports".*production/);
      expect(verdict.findings).toEqual([]);

      const unlinked = await report(ciDb.main, '601', 'main', 'acme/unlinked');
      const unlinkedVerdict = await verdictOf(unlinked);
      expect(unlinkedVerdict.status).toBe('unavailable');
      expect(unlinkedVerdict.reason).toMatch(/not linked/i);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'two runs reported at once each get their own verdict',
    async () => {
      const [needsIndex, clean] = await Promise.all([report(ciDb.newQuery, '700', 'feature/warehouse-api'), report(ciDb.main, '701', 'feature/refactor')]);
      const [a, b] = await Promise.all([verdictOf(needsIndex), verdictOf(clean)]);
      expect(a.status).toBe('fail');
      expect(kinds(a)).toEqual([`new_query_needs_index:${hash.byWarehouse}`]);
      expect(a.findings[0]!.recommendations[0]!.createIndex).toMatch(/orders \(warehouse_id\)$/);
      expect(a.summary).toEqual({ queries: 3, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 });
      expect(b).toMatchObject({ status: 'pass', findings: [] });
      expect(b.summary).toEqual({ queries: 2, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
      for (const verdict of [a, b]) expect(verdict.baseline).toMatchObject({ id: mainRun, branch: 'main' });

      // the runs list shows each verdict beside its run
      const runs = await api<{ id: string; verdictStatus: string }[]>('GET', `/ci/runs?environmentId=${envId}&limit=100`);
      const status = new Map(runs.body.map((r) => [r.id, r.verdictStatus]));
      expect([status.get(needsIndex), status.get(clean)]).toEqual(['fail', 'pass']);
    },
    STEP_TIMEOUT_MS,
  );
  it(
    'a table not yet in production whose index the pull request drops: the index is named as the cause, and the missing statistics beside it',
    async () => {
      // another repository of the environment, so its main run is the baseline of its pull request alone
      const repo = 'acme/notes';
      expect((await api('POST', `/env/${envId}/repos`, { repo })).status).toBe(201);
      // planner defaults make costs small: every regression counts here
      expect((await api('PUT', `/env/${envId}/policy`, { minCost: 0 })).status).toBe(200);
      const NOTES = 'CREATE TABLE order_notes (id bigint PRIMARY KEY, order_id int NOT NULL, note text NOT NULL)';
      const NOTES_INDEX = 'CREATE INDEX order_notes_order_id_idx ON order_notes (order_id)';
      const BY_ORDER = 'SELECT note FROM order_notes WHERE order_id = $1';
      const [mainDb, prDb] = await Promise.all([
        createCiDatabase('ci_notes_main', [ORDERS_TABLE, CUSTOMER_INDEX, NOTES, NOTES_INDEX], [BY_ORDER]),
        createCiDatabase('ci_notes_pr', [ORDERS_TABLE, CUSTOMER_INDEX, NOTES, NOTES_INDEX, 'DROP INDEX order_notes_order_id_idx'], [BY_ORDER]),
      ]);
      expect((await verdictOf(await report(mainDb, '800', 'main', repo))).status).toBe('pass');
      const verdict = await verdictOf(await report(prDb, '801', 'chore/notes-without-index', repo));
      const regression = verdict.findings.find((f) => f.kind === 'cost_regression' && f.hash === fingerprintOf(BY_ORDER));
      expect(regression, JSON.stringify(verdict)).toBeDefined();
      // production never had the index: no lost_index, but the schema cause names it
      expect(verdict.findings.filter((f) => f.kind === 'lost_index')).toEqual([]);
      expect(regression!.causes).toEqual([
        {
          kind: 'schema',
          object: 'public.order_notes_order_id_idx',
          detail: "index public.order_notes_order_id_idx is dropped in this run; the baseline's plan reads it",
        },
        {
          kind: 'no_statistics',
          object: 'public.order_notes',
          detail: "public.order_notes is new in this run: no production statistics: planned with the planner's default estimates",
        },
      ]);
      expect(regression!.planDiff!.summary.join('\n')).toMatch(/order_notes_order_id_idx on order_notes -> Seq Scan on order_notes/);
    },
    STEP_TIMEOUT_MS,
  );
});
