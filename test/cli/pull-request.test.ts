// The verdict where developers look, end to end: the bundled `querytrail ci-report` (what the
// action runs) reports real CI databases (PostgreSQL with pg_stat_statements) to the real server,
// whose production is a real PostgreSQL; GitHub's REST API is a local stand-in that records what
// it receives. One pull request goes from failing to fixed under ONE comment; querytrail or GitHub
// being away never blocks the merge.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, runCli, runNode, type CliResult } from '../support/cli';
import { startGithubStandIn, type GithubStandIn } from '../support/github-stand-in';
import { freePort, startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../support/services';
import { requestJson } from '../support/api';

const REPO = 'acme/shop';
const PR = 7;

const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = $1';
const BY_ID = 'SELECT * FROM orders WHERE id = $1';
/** The pull request's new query: warehouse_id has no index in production. */
const BY_WAREHOUSE = 'SELECT id, status FROM orders WHERE warehouse_id = $1';
const ORDERS = `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, warehouse_id int NOT NULL,
  total_cents int NOT NULL, status text NOT NULL)`;
const CUSTOMER_INDEX = 'CREATE INDEX orders_customer_id_idx ON orders (customer_id)';
const WAREHOUSE_INDEX = 'CREATE INDEX orders_warehouse_id_idx ON orders (warehouse_id)';

let server: TestServer;
let production: PostgresServer;
let ci: PostgresServer;
let github: GithubStandIn;
let work: string;
/** CI databases by what the branch's migrations and tests left in them. */
const db = { main: '', failing: '', fixed: '' };

async function createCiDatabase(name: string, migrations: string[], workload: string[]): Promise<string> {
  const url = await ci.createDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION pg_stat_statements');
    for (const statement of migrations) await client.query(statement);
    for (const sql of workload) for (const value of [1, 2, 3]) await client.query(sql, [value]);
  } finally {
    await client.end();
  }
  return url;
}

/** What GitHub Actions sets for a job of a pull_request workflow (plus where GitHub's API is). */
function actionsEnv(runId: string, pr: number | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: REPO,
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: 'ghs_standin_token',
    GITHUB_STEP_SUMMARY: path.join(work, `summary-${runId}.md`),
    ...extra,
  };
  writeFileSync(env.GITHUB_STEP_SUMMARY!, '');
  if (pr) {
    const event = path.join(work, `event-${runId}.json`);
    // a pull_request event's payload, as much of it as is read
    writeFileSync(event, JSON.stringify({ action: 'synchronize', number: pr, pull_request: { number: pr, head: { ref: 'feature/warehouses' } } }));
    Object.assign(env, {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REF: `refs/pull/${pr}/merge`,
      GITHUB_HEAD_REF: 'feature/warehouses',
    });
  } else {
    Object.assign(env, { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' });
  }
  return env;
}

const report = (database: string, runId: string, pr: number | undefined, flags: string[] = [], extra: Record<string, string> = {}) =>
  runCli(['ci-report', '--db', database, '--api', `${server.url}/api`, ...flags], actionsEnv(runId, pr, extra));

const requestsSince = (from: number) => github.requests.slice(from).map((r) => `${r.method} ${r.url}`);
const lines = (result: CliResult, prefix: string) => result.stdout.split('\n').filter((line) => line.startsWith(prefix));

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'qt-pr-'));
  const [services, prod, ciServer, standIn] = await Promise.all([
    openTestServices('pglite'),
    startPostgres({ statStatements: false }),
    startPostgres({ statStatements: true }),
    startGithubStandIn(),
  ]);
  [production, ci, github] = [prod, ciServer, standIn];
  server = await startTestServer(services);

  const productionUrl = await production.createDatabase('shop');
  const schema = [ORDERS, CUSTOMER_INDEX];
  [db.main, db.failing, db.fixed] = await Promise.all([
    createCiDatabase('ci_main', schema, [BY_CUSTOMER, BY_ID]),
    // the pull request as first pushed: a query on an unindexed column, and a migration that drops an index
    createCiDatabase('ci_failing', [...schema, 'DROP INDEX orders_customer_id_idx'], [BY_CUSTOMER, BY_ID, BY_WAREHOUSE]),
    // ... and as fixed: the index its query needs, the other one kept
    createCiDatabase('ci_fixed', [...schema, WAREHOUSE_INDEX], [BY_CUSTOMER, BY_ID, BY_WAREHOUSE]),
    production.query(
      `${ORDERS};
       INSERT INTO orders SELECT g, g % 5000, (g::bigint * 7919 % 500)::int, g % 10000, CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END
       FROM generate_series(1, 100000) g;
       ${CUSTOMER_INDEX}; ANALYZE orders`,
      [],
      'shop',
    ),
  ]);

  const api = (method: string, route: string, json?: unknown) => requestJson(`${server.url}/api${route}`, { method, json });
  const envId = (await api('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id as string;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
  // this team fails on missing indexes, warns on regressions, and does not flag new queries as such
  expect((await api('PUT', `/env/${envId}/policy`, { conditions: { cost_regression: 'warn', new_query: 'off' } })).status).toBe(200);

  // the conversation already has a page of reviewers' comments: ours will be on the second page
  for (let i = 1; i <= 100; i++) github.seed(REPO, PR, `Review comment ${i}`);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await github?.close();
  await Promise.all([production?.stop(), ci?.stop()]);
});

describe('a pull request from failing to fixed, under one comment', () => {
  let commentId = 0;

  it('a push to main passes, with its job summary, and comments on nothing', async () => {
    const before = github.requests.length;
    const result = await report(db.main, '100', undefined);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/verdict PASS for run 100: no findings \(2 queries, 0 new, no baseline\)/);
    expect(result.stdout).toMatch(/details: http:\/\/127\.0\.0\.1:\d+\/ci\/run_\w+$/m);
    expect(lines(result, '::')).toEqual([]);
    expect(readFileSync(path.join(work, 'summary-100.md'), 'utf8')).toMatch(/^### ✅ querytrail: passes/);
    expect(github.requests.length).toBe(before);
  });

  it('the first failing run, as the action runs it: exit 1, annotations, the job summary, and ONE new comment', async () => {
    const before = github.requests.length;
    // the action: `node dist/querytrail.mjs` with its inputs as INPUT_* variables
    const result = await runNode(BUNDLE, [], {
      ...actionsEnv('200', PR, { GITHUB_TOKEN: '' }),
      'INPUT_API-URL': `${server.url}/api`,
      'INPUT_DATABASE-URL': db.failing,
      'INPUT_GITHUB-TOKEN': 'ghs_from_the_input',
      INPUT_WAIT: '120',
      'INPUT_FAIL-ON': 'fail',
      INPUT_COMMENT: 'on-findings',
      INPUT_STRICT: 'false',
      INPUT_SCHEMA: 'true',
    });
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/verdict FAIL for run 200: 2 failing, 1 warning \(3 queries, 1 new, compared with run 100 on main\)/);
    expect(result.stdout).toMatch(
      /^ {2}fail {2}new query needs an index {2}new -> [\d,.]+ \([\d,.]+ with the index\)\s+SELECT id, status FROM orders WHERE warehouse_id = \$1$/m,
    );
    expect(result.stdout).toMatch(/^ {2}fail {2}lost index\s+[\d.]+ -> [\d,.]+ \(\+[\d,]+%\)\s+SELECT id, total_cents FROM orders WHERE customer_id = \$1$/m);
    expect(result.stdout).toMatch(/^ {2}warn {2}cost regression\s+[\d.]+ -> [\d,.]+ \(\+[\d,]+%\)/m);
    // what to create: the index the new query needs, the one the migration dropped (each once)
    const indexes = result.stdout
      .split('indexes to create:\n')[1]!
      .split('\n')
      .filter((line) => line.startsWith('    CREATE INDEX'));
    expect(indexes).toHaveLength(2);
    expect(indexes.join('\n')).toMatch(/orders \(warehouse_id\);/);
    expect(indexes.join('\n')).toMatch(/orders \(customer_id\);/);

    // one annotation per finding, escaped as workflow commands: the ':' of the title is %3A
    const annotations = lines(result, '::');
    expect(annotations).toHaveLength(3);
    expect(
      annotations.filter((l) =>
        l.startsWith('::error title=querytrail%3A new query needs an index::SELECT id, status FROM orders WHERE warehouse_id = $1%0Acost new -> '),
      ),
    ).toHaveLength(1);
    expect(annotations.filter((l) => l.startsWith('::error title=querytrail%3A index lost by this run::SELECT id, total_cents'))).toHaveLength(1);
    expect(annotations.filter((l) => l.startsWith('::warning title=querytrail%3A query cost regression::'))).toHaveLength(1);
    for (const line of annotations) expect(line).not.toMatch(/\n|\r/);

    const summary = readFileSync(path.join(work, 'summary-200.md'), 'utf8');
    expect(summary).toMatch(/^### ❌ querytrail: fails the query policy/);
    expect(summary).toContain('| | Finding | Before → after | Query |');
    expect(summary).toMatch(
      /\| ❌ fail \| new query needs an index \| new → [\d,.]+ \([\d,.]+ with the index\) \| `SELECT id, status FROM orders WHERE warehouse_id = \$1` \|/,
    );
    expect(summary).toMatch(/```sql\nCREATE INDEX .*orders \((warehouse|customer)_id\);\nCREATE INDEX .*orders \((warehouse|customer)_id\);\n```/);
    expect(summary).toMatch(/\[Open the run in querytrail\]\(http:\/\/127\.0\.0\.1:\d+\/ci\/run_\w+\)/);

    // one page of comments read (100 reviewers'), no comment of ours on it: one POST
    expect(requestsSince(before)).toEqual([`GET /repos/${REPO}/issues/${PR}/comments?per_page=100`, `POST /repos/${REPO}/issues/${PR}/comments`]);
    expect(github.requests.at(-1)!.authorization).toBe('token ghs_from_the_input');
    const ours = github.comments(REPO, PR).filter((c) => c.user.type === 'Bot');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain('<!-- querytrail:ci-verdict status=fail -->');
    expect(ours[0]!.body).toContain('### ❌ querytrail: fails the query policy');
    // why, folded: the dropped index as the cause, the scan that replaced the index scan; and where both were planned
    const why = ours[0]!.body.match(
      /<details><summary>Why: lost index of `SELECT id, total_cents FROM orders WHERE customer_id = \$1`<\/summary>\n\n([\s\S]*?)<\/details>/,
    );
    expect(why, ours[0]!.body).not.toBeNull();
    expect(why![1]).toContain("- **schema**: index public.orders\\_customer\\_id\\_idx is dropped in this run; the baseline's plan reads it");
    expect(why![1]).toMatch(
      /```text\n(Bitmap Heap|Index) Scan using orders_customer_id_idx on orders -> .*Scan on orders \(rows [\d.kM]+\)\n[\s\S]*Cost moved most at .*on orders: [\d,.]+ -> [\d,.]+\n```/,
    );
    expect(ours[0]!.body).toMatch(/<sub>Both planned on production as of \d{4}\\-\d\d\\-\d\dT[\d:.]+Z\.<\/sub>/);
    expect(summary).toContain('<details><summary>Why: lost index of');
    commentId = ours[0]!.id;
    expect(result.stdout).toContain(`created the comment on ${REPO}#${PR}`);
  });

  it('the next failing run of the same pull request edits that comment (found on page 2): a PATCH, no second POST', async () => {
    const before = github.requests.length;
    const result = await report(db.failing, '201', PR);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(requestsSince(before)).toEqual([
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `PATCH /repos/${REPO}/issues/comments/${commentId}`,
    ]);
    expect(github.comments(REPO, PR)).toHaveLength(101);
    expect(github.comments(REPO, PR).at(-1)!.body).toMatch(/Run `201` of acme\/shop at `a1b2c3d`: \*\*2 failing, 1 warning\*\*/);
  });

  it('the fixed run passes: exit 0, and the same comment now says it passes', async () => {
    const before = github.requests.length;
    const result = await report(db.fixed, '202', PR);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/verdict PASS for run 202/);
    expect(lines(result, '::')).toEqual([]);
    expect(requestsSince(before).filter((r) => !r.startsWith('GET'))).toEqual([`PATCH /repos/${REPO}/issues/comments/${commentId}`]);
    const comments = github.comments(REPO, PR);
    expect(comments).toHaveLength(101);
    const body = comments.at(-1)!.body;
    expect(body).toContain('<!-- querytrail:ci-verdict status=pass -->');
    expect(body).toContain('### ✅ querytrail: passes now');
    expect(body).toContain('The findings reported earlier on this pull request are resolved.');
    expect(body).not.toContain('| ❌ fail |');
    expect(result.stdout).toContain(`updated the comment on ${REPO}#${PR}`);
  });

  it('a pull request that passes from its first run gets no comment (on-findings); --comment always writes one', async () => {
    const before = github.requests.length;
    const quiet = await report(db.fixed, '300', 8);
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('no pull request comment: the verdict is pass and no comment was needed before');
    expect(requestsSince(before)).toEqual([`GET /repos/${REPO}/issues/8/comments?per_page=100`]);

    const always = await report(db.fixed, '301', 8, ['--comment', 'always']);
    expect(always.code, always.stdout + always.stderr).toBe(0);
    expect(github.comments(REPO, 8).map((c) => c.body.split('\n')[1])).toEqual(['### ✅ querytrail: passes']);
  });

  it("GitHub answering 403: a warning naming pull-requests: write, and the exit code is the verdict's alone", async () => {
    github.failWith(403);
    try {
      const failing = await report(db.failing, '400', PR);
      expect(failing.code, failing.stdout + failing.stderr).toBe(1);
      expect(failing.stderr).toMatch(
        /warning: the pull request comment was not written: GitHub answered 403 \(Resource not accessible by integration.*\).*`permissions: pull-requests: write`/,
      );
      const passing = await report(db.fixed, '401', PR);
      expect(passing.code, passing.stdout + passing.stderr).toBe(0);
      expect(passing.stderr).toMatch(/pull-requests: write/);
    } finally {
      github.failWith(undefined);
    }
  });

  it('--format json prints the verdict as the API returns it (and --fail-on never exits 0); --format markdown prints the summary', async () => {
    const json = await report(db.failing, '500', 9, ['--format', 'json', '--fail-on', 'never', '--comment', 'never']);
    expect(json.code, json.stdout + json.stderr).toBe(0);
    const id = /as (run_\w+)/.exec(json.stderr)?.[1];
    const fromApi = await requestJson(`${server.url}/api/ci/runs/${id}/verdict`);
    expect(JSON.parse(json.stdout)).toEqual(fromApi.body);
    expect(fromApi.body.status).toBe('fail');

    const markdown = await report(db.failing, '501', 9, ['--format', 'markdown', '--comment', 'never']);
    expect(markdown.code, markdown.stdout + markdown.stderr).toBe(1);
    expect(markdown.stdout).toMatch(/^### ❌ querytrail: fails the query policy/);
    expect(markdown.stdout).not.toContain('reported run');
    expect(github.comments(REPO, 9)).toEqual([]);
  });
});

describe('querytrail away never blocks the merge', () => {
  it('querytrail stopped: a warning and exit 0; with --strict exit 1', async () => {
    const port = await freePort();
    const api = `http://127.0.0.1:${port}/api`;
    const away = await runCli(['ci-report', '--db', db.main, '--api', api], actionsEnv('600', PR));
    expect(away.code, away.stdout + away.stderr).toBe(0);
    expect(away.stderr).toContain(
      `querytrail: warning: cannot reach the querytrail API at ${api}/ci/runs: ECONNREFUSED; the run is not reported and has no verdict; exiting 0`,
    );
    const strict = await runCli(['ci-report', '--db', db.main, '--api', api, '--strict'], actionsEnv('600', PR));
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    expect(strict.stderr).toContain('failing because of --strict');
  });

  it('querytrail answering 502 behind its proxy: a warning and exit 0; with --strict exit 1', async () => {
    const proxy = net.createServer((socket) =>
      socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<html>bad gateway</html>'),
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}/api`;
    try {
      const result = await runCli(['ci-report', '--db', db.main, '--api', api], actionsEnv('601', PR));
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stderr).toMatch(/warning: the querytrail API answered 502: <html>bad gateway<\/html>; the run is not reported/);
      expect((await runCli(['ci-report', '--db', db.main, '--api', api, '--strict'], actionsEnv('601', PR))).code).toBe(1);
    } finally {
      proxy.close();
    }
  });

  it('a verdict still pending when the wait ends: a warning and exit 0; with --strict exit 1', async () => {
    // production that accepts connections and never answers: the analysis waits on it
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const api = (method: string, route: string, json?: unknown) => requestJson(`${server.url}/api${route}`, { method, json });
    const envId = (await api('POST', '/env', { name: 'Slow', slug: 'slow' })).body.id as string;
    await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: `postgres://app:pw@127.0.0.1:${port}/slow` });
    await api('POST', `/env/${envId}/repos`, { repo: 'acme/slow' });
    try {
      const env = { ...actionsEnv('700', undefined), GITHUB_REPOSITORY: 'acme/slow' };
      const result = await runCli(['ci-report', '--db', db.main, '--api', server.url, '--wait', '2'], env);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('waiting up to 2 s for the verdict');
      expect(result.stderr).toMatch(/warning: no verdict after \d s, still pending \(.+\); it will be on http:\/\/127\.0\.0\.1:\d+\/ci\/run_\w+ .*; exiting 0/);
      const strict = await runCli(['ci-report', '--db', db.main, '--api', server.url, '--wait', '1', '--strict', '--run-id', '701'], env);
      expect(strict.code, strict.stdout + strict.stderr).toBe(1);
      expect(strict.stderr).toMatch(/no verdict after \d s, still pending.*failing because of --strict/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
