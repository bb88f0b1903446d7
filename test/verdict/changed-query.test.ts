// Changed, not new, end to end: production is a real PostgreSQL; a main run and a pull request's
// run are posted to the real HTTP API as `ci-report` posts them (texts with their sqlcommenter
// comments), and the pull request edits some of main's queries. Every assertion is on what
// GET /api/ci/runs/{id}/verdict answers and on the PR comment the real formatter writes from it.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verdictMarkdown, verdictText } from '../../cli/verdict-format';
import type { Verdict } from '../../shared/policy';
import { fingerprintOf, loadParser } from '../../shared/sql-fingerprint';
import { closeWarmShadows } from '../../server/verdict/shadows';
import { waitForRunVerdict } from '../../server/verdict/jobs';
import { requestJson } from '../support/api';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../support/services';

const REPO = 'acme/shop';

/** main's query, and the pull request's edit of it: its WHERE clause gained a column. */
const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = $1';
const BY_CUSTOMER_AND_STATUS = 'SELECT id, total_cents FROM orders WHERE customer_id = $1 AND status = $2';
/** A near miss: same table, same columns, but looked up by another column: a new query, not an edit. */
const BY_ID = 'SELECT id, status FROM orders WHERE id = $1';
const BY_WAREHOUSE = 'SELECT id, status FROM orders WHERE warehouse_id = $1';
/** The same line of code issuing another statement: paired by its call site, however far apart the texts. */
const REPORT_SITE = "/*file='app%2Freports%2Fdaily.rb:10',controller='reports',action='daily'*/";
const REPORT_BEFORE = `${REPORT_SITE} SELECT id FROM orders WHERE customer_id = $1 LIMIT 10`;
const REPORT_AFTER = `${REPORT_SITE} SELECT id, total_cents FROM orders WHERE total_cents > $1 ORDER BY created_at`;

let server: TestServer;
let production: PostgresServer;
let envId = '';

const api = <T = any>(method: string, route: string, json?: unknown) => requestJson<T>(`${server.url}/api${route}`, { method, json });

/** A run as `ci-report` posts it; its verdict once the analysis is done. */
async function post(runId: string, branch: string, queries: string[]): Promise<Verdict> {
  const res = await api<{ id: string }>('POST', '/ci/runs', { repo: REPO, runId, branch, queries: queries.map((query) => ({ query, calls: 3 })) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await waitForRunVerdict(res.body.id);
  const verdict = await api<Verdict>('GET', `/ci/runs/${res.body.id}/verdict`);
  expect(verdict.body.status, JSON.stringify(verdict.body)).not.toBe('pending');
  return verdict.body;
}

const byHash = (verdict: Verdict, query: string) => verdict.findings.filter((f) => f.hash === fingerprintOf(query));

beforeAll(async () => {
  const [services, prod] = await Promise.all([openTestServices('pglite'), startPostgres({ statStatements: false }), loadParser()]);
  production = prod;
  server = await startTestServer(services);
  const url = await production.createDatabase('shop');
  await production.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, warehouse_id int NOT NULL, total_cents int NOT NULL,
                          status text NOT NULL, created_at timestamptz NOT NULL);
     INSERT INTO orders SELECT g, g % 5000, g % 300, g % 10000, CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END,
                               timestamptz '2026-01-01' - g * interval '1 minute'
     FROM generate_series(1, 100000) g;
     CREATE INDEX orders_customer_id_idx ON orders (customer_id);
     ANALYZE orders`,
    [],
    'shop',
  );
  envId = (await api('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: url })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await closeWarmShadows();
  await production?.stop();
});

describe('a pull request that edits queries', () => {
  let verdict: Verdict;

  beforeAll(async () => {
    expect((await post('1', 'main', [BY_CUSTOMER, BY_ID, REPORT_BEFORE])).status).toBe('pass');
    verdict = await post('2', 'feature/refunds', [BY_CUSTOMER_AND_STATUS, BY_WAREHOUSE, REPORT_AFTER]);
  }, 120_000);

  it('a query whose WHERE clause gained a column is one changed_query, with both texts and both costs', () => {
    const [changed, ...others] = byHash(verdict, BY_CUSTOMER_AND_STATUS);
    expect(others).toEqual([]);
    expect(changed).toMatchObject({ kind: 'changed_query', severity: 'warn', pairedWith: { hash: fingerprintOf(BY_CUSTOMER) } });
    expect(changed!.formattedQuery).toMatch(/status = \$2/);
    expect(changed!.pairedWith!.formattedQuery).toMatch(/customer_id = \$1/);
    expect(changed!.pairedWith!.formattedQuery).not.toMatch(/status/);
    // the vanished query was planned too, on the same snapshot, through the same index
    expect(changed!.baselineCost).toBeGreaterThan(0);
    expect(changed!.cost).toBeGreaterThan(0);
    expect(JSON.stringify(changed!.baselinePlan)).toContain('orders_customer_id_idx');
    expect(changed!.causes).toEqual([
      {
        kind: 'query_changed',
        detail: expect.stringMatching(
          new RegExp(
            `^the query's text changed: its parse tree is close to baseline query ${fingerprintOf(BY_CUSTOMER)}'s, .*same relations \\(orders\\), 1 edit apart: WHERE conditions: 1 added; it costs`,
          ),
        ),
      },
    ]);
  });

  it('a near miss (same table and columns, looked up by another column) stays new; the query it resembles is not claimed', () => {
    expect(byHash(verdict, BY_WAREHOUSE).map((f) => [f.kind, f.pairedWith])).toEqual([['new_query_needs_index', null]]);
    expect(verdict.findings.some((f) => f.pairedWith?.hash === fingerprintOf(BY_ID))).toBe(false);
    expect(verdict.summary).toMatchObject({ queries: 3, newQueries: 1 });
  });

  it('a statement rewritten at the same call site is paired by it; costing far more, it is a cost regression caused by the edit', () => {
    const [regression, ...others] = byHash(verdict, REPORT_AFTER);
    expect(others).toEqual([]);
    expect(regression).toMatchObject({ kind: 'cost_regression', severity: 'fail', pairedWith: { hash: fingerprintOf(REPORT_BEFORE) } });
    expect(regression!.cost).toBeGreaterThan(regression!.baselineCost! * 10);
    expect(regression!.causes).toEqual([
      {
        kind: 'query_changed',
        detail: expect.stringContaining(`shares its call site (app/reports/daily.rb:10, reports#daily) with baseline query ${fingerprintOf(REPORT_BEFORE)}`),
      },
    ]);
    expect(regression!.planDiff!.summary.join('\n')).toMatch(/-> .*Scan on orders/);
    expect(verdict.status).toBe('fail');
  });

  it('the PR comment and the CI log show both texts of each edited query', () => {
    const context = { id: 'run_x', runId: '2', repo: REPO, link: 'https://querytrail.example/ci/runs/run_x' };
    const markdown = verdictMarkdown(verdict, context);
    const row = markdown.split('\n').find((line) => line.includes('| changed query |'));
    expect(row).toMatch(
      /\| changed query \| .* → .* \| `SELECT id, total_cents FROM orders WHERE customer_id = \$1 AND status = \$2`<br>was `SELECT id, total_cents FROM orders WHERE customer_id = \$1` \|/,
    );
    expect(markdown).toContain('- **query_changed**: the query');
    const text = verdictText(verdict, context).join('\n');
    expect(text).toMatch(/changed query .*status = \$2\n {4}was SELECT id, total_cents FROM orders WHERE customer_id = \$1\n/);
    // docs/verdicts.md shows this comment: QT_VERDICT_EXAMPLE=<file> writes it out
    if (process.env.QT_VERDICT_EXAMPLE) writeFileSync(process.env.QT_VERDICT_EXAMPLE, markdown);
  });
});
