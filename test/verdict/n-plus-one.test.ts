// The N+1 regression, end to end: a small shop application (./orders-app/app.ts) runs its test
// suite against a real CI database with pg_stat_statements, on main and after a pull request whose
// "refactor" drops the eager load of the orders page's customers. The real `querytrail ci-report`
// reports both runs to the real server (production: a real PostgreSQL), and GitHub's REST API is
// the local stand-in that records the pull request's comment.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '../../shared/policy';
import { fingerprintOf, loadParser } from '../../shared/sql-fingerprint';
import { closeWarmShadows } from '../../server/verdict/shadows';
import { requestJson } from '../support/api';
import { runCli } from '../support/cli';
import { startGithubStandIn, type GithubStandIn } from '../support/github-stand-in';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../support/services';
import { MIGRATIONS, runTestSuite, seedStatements, SOURCE, type Version } from './orders-app/app';

const REPO = 'acme/orders';
const PR = 12;
const CUSTOMER_BY_ID = 'SELECT id, name, email FROM customers WHERE id = $1';
/** The eager load of main: libpg_query's fingerprint does not tell `= $1` from `= ANY($1)`, so it is the same catalog query. */
const CUSTOMERS_BY_IDS = 'SELECT id, name, email FROM customers WHERE id = ANY($1)';

let server: TestServer;
let production: PostgresServer;
let ci: PostgresServer;
let github: GithubStandIn;
let work: string;
let envId = '';
const db: Record<Version, string> = { main: '', refactor: '' };
const shown: Record<Version, string[]> = { main: [], refactor: [] };

/** A CI job's database: the migrations, the fixtures, then the application's test suite. */
async function ciDatabase(version: Version): Promise<string> {
  const url = await ci.createDatabase(`ci_${version}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION pg_stat_statements');
    for (const statement of [...MIGRATIONS, ...seedStatements(50, 500)]) await client.query(statement);
    shown[version] = await runTestSuite(client, version);
  } finally {
    await client.end();
  }
  return url;
}

function actionsEnv(runId: string, pr: number | undefined): Record<string, string> {
  const env: Record<string, string> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: REPO,
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: 'f00dfacef00dfacef00dfacef00dfacef00dface',
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: 'ghs_standin_token',
    GITHUB_STEP_SUMMARY: path.join(work, `summary-${runId}.md`),
  };
  writeFileSync(env.GITHUB_STEP_SUMMARY!, '');
  if (pr) {
    const event = path.join(work, `event-${runId}.json`);
    writeFileSync(event, JSON.stringify({ action: 'opened', number: pr, pull_request: { number: pr, head: { ref: 'refactor/orders-page' } } }));
    Object.assign(env, {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REF: `refs/pull/${pr}/merge`,
      GITHUB_HEAD_REF: 'refactor/orders-page',
    });
  } else {
    Object.assign(env, { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' });
  }
  return env;
}

/** `querytrail ci-report` as the CI job runs it; waits for the verdict. */
async function report(database: string, runId: string, pr: number | undefined) {
  const result = await runCli(['ci-report', '--db', database, '--api', `${server.url}/api`, '--wait', '120'], actionsEnv(runId, pr));
  expect(result.stderr).toBe('');
  const id = /as (run_[\w-]+)/.exec(result.stdout)?.[1];
  expect(id, result.stdout).toBeDefined();
  return { ...result, id: id! };
}

const verdictOf = async (id: string) => (await requestJson(`${server.url}/api/ci/runs/${id}/verdict`, { method: 'GET' })).body as Verdict;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'qt-n-plus-one-'));
  const [services, prod, ciServer, standIn] = await Promise.all([
    openTestServices('pglite'),
    startPostgres({ statStatements: false }),
    startPostgres({ statStatements: true }),
    startGithubStandIn(),
    loadParser(),
  ]);
  [production, ci, github] = [prod, ciServer, standIn];
  server = await startTestServer(services);

  const productionUrl = await production.createDatabase('orders');
  await production.query([...MIGRATIONS, ...seedStatements(20_000, 200_000), 'ANALYZE'].join(';\n'), [], 'orders');
  db.main = await ciDatabase('main');
  db.refactor = await ciDatabase('refactor');

  const api = (method: string, route: string, json?: unknown) => requestJson(`${server.url}/api${route}`, { method, json });
  envId = (await api('POST', '/env', { name: 'Orders', slug: 'orders' })).body.id as string;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await github?.close();
  await closeWarmShadows();
  await Promise.all([production?.stop(), ci?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("an ORM refactor that loads each order's customer on its own (N+1)", () => {
  let mainStatements = 0;

  it('the application shows the same pages either way; only the number of statements differs', async () => {
    expect(shown.refactor).toEqual(shown.main);
    expect(shown.main).toHaveLength(200 + 3);
    const calls = async (database: string) =>
      (
        await ci.query<{ calls: string }>(
          `SELECT calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND starts_with(query, $1)`,
          [`${CUSTOMER_BY_ID} /*`],
          database,
        )
      ).rows.map((r) => Number(r.calls));
    // three customer pages, and one more per order of the two orders pages
    expect(await calls('ci_main')).toEqual([3]);
    expect(await calls('ci_refactor')).toEqual([203]);
    expect(fingerprintOf(CUSTOMERS_BY_IDS)).toBe(fingerprintOf(CUSTOMER_BY_ID));
  });

  it('main passes, with the statements its tests executed', async () => {
    const result = await report(db.main, '500', undefined);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/verdict PASS for run 500/);
    const verdict = await verdictOf(result.id);
    expect(verdict.status).toBe('pass');
    expect(verdict.statements.baseline).toBeNull();
    expect(verdict.statements.run).toBeGreaterThanOrEqual(7);
    mainStatements = verdict.statements.run!;
    expect(result.stdout).toContain(`  statements executed: ${mainStatements}`);
  }, 180_000);

  it('the pull request warns: call_count_regression on the customer query, 5 -> 203 calls, and the PR comment says so', async () => {
    const result = await report(db.refactor, '501', PR);
    // a warning does not fail the job (the policy's default for this kind is warn)
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/verdict WARN for run 501: 1 warning \(\d+ queries, \d+ new, compared with run 500 on main\)/);
    expect(result.stdout).toMatch(/^ {2}warn {2}more calls \(N\+1\?\) {2}calls 5 -> 203 \(x41\) {2}SELECT id, name, email FROM customers WHERE id = \$1$/m);
    // where it comes from: the first text pg_stat_statements kept is the orders page's
    expect(result.stdout).toMatch(/^ {4}from app\/models\/customer\.ts:41, orders#index$/m);
    // 200 lookups by id replace the two eager loads
    expect(result.stdout).toContain(`  statements executed: ${mainStatements} -> ${mainStatements + 198}`);

    const verdict = await verdictOf(result.id);
    expect(verdict.status).toBe('warn');
    expect(verdict.findings.map((f) => `${f.kind}:${f.hash}`)).toEqual([`call_count_regression:${fingerprintOf(CUSTOMER_BY_ID)}`]);
    // main: three customer pages and two eager loads (the same fingerprint); the refactor: 3 + 200
    expect(verdict.findings[0]).toMatchObject({ severity: 'warn', calls: 203, baselineCalls: 5, acknowledged: false });
    expect(verdict.findings[0]!.callSites).toEqual([
      {
        file: 'app/models/customer.ts',
        line: 41,
        controller: 'orders',
        action: 'index',
        tags: { action: 'index', controller: 'orders', file: SOURCE.customerFind },
      },
    ]);
    // same plan, same cost per call: only the count moved
    expect(verdict.findings[0]!.cost).toBe(verdict.findings[0]!.baselineCost);
    expect(verdict.statements).toEqual({ run: mainStatements + 198, baseline: mainStatements });
    expect(verdict.policy).toMatchObject({ callRatio: 3, minCalls: 50, conditions: { call_count_regression: 'warn' } });

    const annotation = result.stdout.split('\n').find((line) => line.startsWith('::warning'));
    expect(annotation).toBe(
      `::warning title=querytrail%3A query called many more times (N+1?)::${CUSTOMER_BY_ID}%0Acalls 5 -> 203 (x41)%0Afrom app/models/customer.ts:41, orders#index%0A${/details: (\S+)/.exec(result.stdout)![1]}`,
    );
    const comments = github.comments(REPO, PR);
    expect(comments).toHaveLength(1);
    const body = comments[0]!.body;
    expect(body).toContain('### ⚠️ querytrail: passes with warnings');
    expect(body).toContain(`Statements executed by the tests: ${mainStatements} → ${mainStatements + 198}.`);
    expect(body).toContain(`| ⚠️ warn | more calls (N+1?) | calls 5 → 203 (x41) | \`${CUSTOMER_BY_ID}\`<br>from app/models/customer.ts:41, orders\\#index |`);
    expect(readFileSync(path.join(work, 'summary-501.md'), 'utf8')).toContain('calls 5 → 203 (x41)');

    // the catalog's single form: the call sites of both runs, the latest run's first. ci-report sends
    // one text per fingerprint (the most called one), so main's eager load (2 calls, its own
    // comment) is not among them: main's text is the customer page's (3 calls).
    const entry = await requestJson(`${server.url}/api/env/${envId}/queries/${fingerprintOf(CUSTOMER_BY_ID)}`, { method: 'GET' });
    expect(entry.status).toBe(200);
    const sites = (entry.body.callSites as { file: string; line: number; controller: string; action: string }[]).map(
      (s) => `${s.file}:${s.line} ${s.controller}#${s.action}`,
    );
    expect(sites[0]).toBe('app/models/customer.ts:41 orders#index');
    expect(sites).toEqual(['app/models/customer.ts:41 orders#index', 'app/models/customer.ts:41 customers#show']);
  }, 180_000);
});
