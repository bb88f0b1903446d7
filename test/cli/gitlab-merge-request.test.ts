// A GitLab merge request, end to end: the real `querytrail ci-report` (bin/querytrail.mjs, which
// runs the committed bundle) in a GitLab CI job as GitLab's predefined variables describe it,
// authenticating tokenless with the job's ID token (`id_tokens`, minted by a stand-in issuer the
// server trusts), against the real server whose production is a real PostgreSQL. GitLab's REST API
// is a local stand-in that speaks its documented shapes and records what it receives. One merge
// request goes from failing to fixed under ONE note; the Code Quality report is checked against
// GitLab's documented format; the exit code follows --fail-on whatever GitLab answers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config';
import { requestJson } from '../support/api';
import { runCli, type CliResult } from '../support/cli';
import { startGitlabStandIn, type GitlabStandIn } from '../support/gitlab-stand-in';
import { startOidcIssuer, type GitlabClaims, type OidcIssuerStandIn } from '../support/oidc-issuer';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../support/services';

const ADMIN = 'admin-secret';
/** A project in a subgroup, as GitLab names it. */
const PROJECT = 'acme/platform/shop';
const PROJECT_ID = 4242;
const MR = 12;
const NOTES = `/api/v4/projects/${PROJECT_ID}/merge_requests/${MR}/notes`;

const ORDERS = `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, warehouse_id int NOT NULL,
  total_cents int NOT NULL, status text NOT NULL)`;
const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = 3';
const BY_ID = 'SELECT * FROM orders WHERE id = 5';
/** The merge request's new lookup, tagged by the application's ORM (sqlcommenter) with where it is issued; warehouse_id has no index. */
const BY_WAREHOUSE = "SELECT id, status FROM orders WHERE warehouse_id = 7 /*controller='orders',file='app%2Fmodels%2Forder.rb%3A42'*/";
/** ... and a report query without any tag: total_cents has no index either. */
const BY_TOTAL = 'SELECT id FROM orders WHERE total_cents = 5';
/** The fix: the lookup by customer, which production indexes. */
const BY_CUSTOMER_STATUS = "SELECT id, status FROM orders WHERE customer_id = 7 /*controller='orders',file='app%2Fmodels%2Forder.rb%3A42'*/";

let server: TestServer;
let production: PostgresServer;
let gitlab: GitlabStandIn;
let issuer: OidcIssuerStandIn;
let work: string;
const files = { main: '', failing: '', fixed: '' };
let jobs = 0;
let envId = '';

const admin = (method: string, route: string, json?: unknown) =>
  requestJson(`${server.url}/api${route}`, { method, json, headers: { authorization: `Bearer ${ADMIN}` } });

/** What GitLab sets for a job (a merge request pipeline's when `mr` is given, else a push's), with the job's querytrail ID token. */
async function pipeline(
  branch: string,
  mr: number | undefined,
  extra: Record<string, string> = {},
  claims: Partial<GitlabClaims> = {},
): Promise<Record<string, string>> {
  const job = ++jobs;
  const idToken = await issuer.mintGitlab({ project_path: PROJECT, project_id: String(PROJECT_ID), ref: branch, ...claims });
  const env: Record<string, string> = {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_SERVER_URL: gitlab.url,
    CI_API_V4_URL: `${gitlab.url}/api/v4`,
    CI_PROJECT_ID: String(PROJECT_ID),
    CI_PROJECT_PATH: PROJECT,
    CI_PROJECT_DIR: work,
    CI_PIPELINE_ID: String(900 + job),
    CI_JOB_ID: String(7000 + job),
    CI_COMMIT_SHA: 'b1c2d3e4f5a60718293a4b5c6d7e8f9012345678',
    CI_COMMIT_REF_NAME: branch,
    CI_JOB_TOKEN: gitlab.jobToken,
    QUERYTRAIL_GITLAB_TOKEN: gitlab.projectToken,
    QUERYTRAIL_ID_TOKEN: idToken,
  };
  if (mr) {
    Object.assign(env, {
      CI_PIPELINE_SOURCE: 'merge_request_event',
      CI_MERGE_REQUEST_IID: String(mr),
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: branch,
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    });
  } else {
    Object.assign(env, { CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: branch });
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === '') delete env[name];
    else env[name] = value;
  }
  return env;
}

const report = (file: string, env: Record<string, string>, flags: string[] = []) =>
  runCli(['ci-report', '--file', file, '--api', `${server.url}/api`, ...flags], env, work);
const requestsSince = (from: number) => gitlab.requests.slice(from).map((r) => `${r.method} ${r.url}`);
const ours = () => gitlab.notes(MR).filter((n) => n.body.includes('<!-- querytrail:ci-verdict'));
const log = (result: CliResult) => result.stdout + result.stderr;

// GitLab's documented report format (fixture), checked by a JSON Schema validator
const validCodeQuality = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'gitlab-code-quality.schema.json'), 'utf8')) as object,
);
function codeQuality(file: string) {
  const issues: unknown = JSON.parse(readFileSync(path.join(work, file), 'utf8'));
  expect(validCodeQuality(issues), JSON.stringify(validCodeQuality.errors)).toBe(true);
  return issues as { description: string; check_name: string; fingerprint: string; severity: string; location: { path: string; lines: { begin: number } } }[];
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'qt-gitlab-'));
  const statements = (name: keyof typeof files, queries: string[]) => {
    files[name] = path.join(work, `${name}.sql`);
    writeFileSync(files[name], `${queries.join(';\n')};\n`);
  };
  statements('main', [BY_CUSTOMER, BY_ID]);
  statements('failing', [BY_CUSTOMER, BY_ID, BY_WAREHOUSE, BY_TOTAL]);
  statements('fixed', [BY_CUSTOMER, BY_ID, BY_CUSTOMER_STATUS]);

  [issuer, gitlab, production] = await Promise.all([
    startOidcIssuer(),
    startGitlabStandIn({ id: PROJECT_ID, path: PROJECT, mergeRequests: [MR] }),
    startPostgres({ statStatements: false }),
  ]);
  server = await startTestServer(await openTestServices('pglite', { apiToken: ADMIN, auth: readConfig({ CI_OIDC_ISSUERS: issuer.url }).auth }));

  const productionUrl = await production.createDatabase('shop');
  await production.query(
    `${ORDERS};
     INSERT INTO orders SELECT g, g % 5000, (g::bigint * 7919 % 500)::int, g % 10000, CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END
     FROM generate_series(1, 100000) g;
     CREATE INDEX orders_customer_id_idx ON orders (customer_id); ANALYZE orders`,
    [],
    'shop',
  );
  envId = (await admin('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id as string;
  expect((await admin('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await admin('POST', `/env/${envId}/repos`, { repo: PROJECT })).status).toBe(201);
  expect((await admin('PUT', `/env/${envId}/policy`, { conditions: { new_query: 'off' } })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([gitlab?.close(), issuer?.close(), production?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a GitLab merge request from failing to fixed, under one note', () => {
  let noteId = 0;

  it('a push to main, tokenless, passes: an empty Code Quality report, no note', async () => {
    const before = gitlab.requests.length;
    const env = await pipeline('main', undefined);
    const result = await report(files.main, env);
    expect(result.stderr).toBe('');
    expect(result.code, log(result)).toBe(0);
    expect(result.stdout).toContain("querytrail: authenticating with this job's ID token (QUERYTRAIL_ID_TOKEN)");
    expect(result.stdout).not.toContain(env.QUERYTRAIL_ID_TOKEN!);
    expect(result.stdout).toMatch(
      new RegExp(`reported run ${env.CI_PIPELINE_ID}-${env.CI_JOB_ID} of acme/platform/shop as run_\\w+: 2 queries, 2 new, environment env_`),
    );
    expect(result.stdout).toMatch(/verdict PASS/);
    expect(result.stdout).toContain('wrote 0 Code Quality issues to gl-code-quality-report.json');
    expect(codeQuality('gl-code-quality-report.json')).toEqual([]);
    expect(gitlab.requests.length).toBe(before);
  });

  it('the first failing pipeline: exit 1, ONE new note with the marker, and Code Quality issues where the queries come from', async () => {
    const before = gitlab.requests.length;
    const result = await report(files.failing, await pipeline('feature/warehouses', MR));
    expect(result.stderr).toBe('');
    expect(result.code, log(result)).toBe(1);
    expect(result.stdout).toMatch(/verdict FAIL for run \d+-\d+: 2 failing \(4 queries, 2 new, compared with run \d+-\d+ on main\)/);
    expect(result.stdout).toContain(`created the note on ${PROJECT}!${MR} (with QUERYTRAIL_GITLAB_TOKEN)`);

    // the conversation read (empty), then one note written, with the project access token
    expect(requestsSince(before)).toEqual([`GET ${NOTES}?per_page=100&page=1`, `POST ${NOTES}`]);
    for (const request of gitlab.requests.slice(before)) expect(request).toMatchObject({ privateToken: gitlab.projectToken, jobToken: undefined });
    expect(ours()).toHaveLength(1);
    const body = ours()[0]!.body;
    expect(body.split('\n')[0]).toBe('<!-- querytrail:ci-verdict status=fail -->');
    expect(body).toContain('### ❌ querytrail: fails the query policy');
    expect(body).toMatch(
      /\| ❌ fail \| new query needs an index \| new → [\d,.]+ \([\d,.]+ with the index\) \| `SELECT id, status FROM orders WHERE warehouse_id = \$1`<br>from app\/models\/order\.rb:42, orders \|/,
    );
    expect(body).toMatch(/```sql\nCREATE INDEX .*orders \((warehouse_id|total_cents)\);\nCREATE INDEX .*orders \((warehouse_id|total_cents)\);\n```/);
    noteId = ours()[0]!.id;

    const issues = codeQuality('gl-code-quality-report.json');
    expect(issues).toHaveLength(2);
    const byPath = Object.fromEntries(issues.map((issue) => [issue.location.path, issue]));
    expect(byPath['app/models/order.rb']).toMatchObject({
      check_name: 'querytrail/new_query_needs_index',
      severity: 'critical',
      location: { lines: { begin: 42 } },
    });
    expect(byPath['app/models/order.rb']!.description).toMatch(
      /^querytrail: new query needs an index: SELECT id, status FROM orders WHERE warehouse_id = \$1 \(new -> .*\)\. Create: CREATE INDEX .*\(warehouse_id\); Details: http:\/\/127\.0\.0\.1:\d+\/ci\/run_\w+$/,
    );
    // no call site: placed on the CI configuration
    expect(byPath['.gitlab-ci.yml']).toMatchObject({ check_name: 'querytrail/new_query_needs_index', severity: 'critical', location: { lines: { begin: 1 } } });
    expect(new Set(issues.map((issue) => issue.fingerprint)).size).toBe(2);
  });

  it('the next pipeline, addressed by the project path, finds the note on page 2 and edits it in place (--fail-on never exits 0, --codequality)', async () => {
    // the review goes on: 100 newer notes push ours to the second page (GitLab lists newest first)
    for (let i = 1; i <= 100; i++) gitlab.seed(MR, `Review note ${i}`);
    const firstIssues = codeQuality('gl-code-quality-report.json');
    const before = gitlab.requests.length;
    const result = await report(files.failing, await pipeline('feature/warehouses', MR, { CI_PROJECT_ID: '' }), [
      '--fail-on',
      'never',
      '--codequality',
      'quality.json',
    ]);
    expect(result.code, log(result)).toBe(0);
    expect(result.stdout).toMatch(/verdict FAIL/);
    const byPath = `/api/v4/projects/${encodeURIComponent(PROJECT)}/merge_requests/${MR}/notes`;
    expect(requestsSince(before)).toEqual([`GET ${byPath}?per_page=100&page=1`, `GET ${byPath}?per_page=100&page=2`, `PUT ${byPath}/${noteId}`]);
    expect(gitlab.notes(MR)).toHaveLength(101);
    expect(ours()).toHaveLength(1);
    expect(result.stdout).toContain(`updated the note on ${PROJECT}!${MR}`);
    // the same findings keep their fingerprints, so GitLab sees nothing new
    expect(
      codeQuality('quality.json')
        .map((issue) => issue.fingerprint)
        .sort(),
    ).toEqual(firstIssues.map((issue) => issue.fingerprint).sort());
  });

  it("GitLab refusing the note (CI_JOB_TOKEN; a project it does not know): a warning naming what to fix, and the exit code is the verdict's", async () => {
    const before = gitlab.requests.length;
    const job = await report(files.failing, await pipeline('feature/warehouses', MR, { QUERYTRAIL_GITLAB_TOKEN: '' }));
    expect(job.code, log(job)).toBe(1);
    expect(gitlab.requests.slice(before).map((r) => [r.jobToken, r.privateToken])).toEqual([[gitlab.jobToken, undefined]]);
    expect(job.stderr).toMatch(
      /warning: the merge request note was not written: GitLab answered 401 \(401 Unauthorized\): CI_JOB_TOKEN may not write merge request notes here .*set QUERYTRAIL_GITLAB_TOKEN .* project access token with the `api` scope/,
    );

    const elsewhere = await report(files.failing, await pipeline('feature/warehouses', MR, { CI_PROJECT_ID: '999' }), ['--fail-on', 'never']);
    expect(elsewhere.code, log(elsewhere)).toBe(0);
    expect(elsewhere.stderr).toMatch(
      /GitLab answered 404 \(404 Project Not Found\): merge request !12 of 999 is not visible to QUERYTRAIL_GITLAB_TOKEN \(CI_PROJECT_ID or CI_PROJECT_PATH and CI_MERGE_REQUEST_IID name it/,
    );
    expect(log(job) + log(elsewhere)).not.toContain(gitlab.jobToken);
    expect(log(job) + log(elsewhere)).not.toContain(gitlab.projectToken);
    expect(ours()).toHaveLength(1);
  });

  it('the fixed pipeline passes: exit 0, the same note says it passes now, and the Code Quality report is empty', async () => {
    const before = gitlab.requests.length;
    const result = await report(files.fixed, await pipeline('feature/warehouses', MR));
    expect(result.stderr).toBe('');
    expect(result.code, log(result)).toBe(0);
    expect(result.stdout).toMatch(/verdict PASS/);
    expect(requestsSince(before).filter((r) => !r.startsWith('GET'))).toEqual([`PUT ${NOTES}/${noteId}`]);
    expect(ours()).toHaveLength(1);
    const body = ours()[0]!.body;
    expect(body.split('\n')[0]).toBe('<!-- querytrail:ci-verdict status=pass -->');
    expect(body).toContain('### ✅ querytrail: passes now');
    expect(body).toContain('The findings reported earlier on this merge request are resolved.');
    expect(body).not.toContain('| ❌ fail |');
    expect(codeQuality('gl-code-quality-report.json')).toEqual([]);
  });
});

describe('tokenless GitLab: the ID token names the project', () => {
  it("refuses another project's token with 403 naming GitLab's ways to authenticate, and a project of the same path with another id", async () => {
    const other = await report(files.main, await pipeline('main', undefined, {}, { project_path: 'acme/platform/other' }), ['--wait', '0']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /answered 403: This CI ID token is for acme\/platform\/other; it cannot post runs of acme\/platform\/shop \(the job's ID token may not post runs .*Either set QUERYTRAIL_TOKEN .*or give the job `id_tokens: QUERYTRAIL_ID_TOKEN: aud: querytrail`/,
    );
    // the link keeps the project id of the first token (with its issuer): a project made again under the same path is refused
    const squatter = await report(files.main, await pipeline('main', undefined, {}, { project_id: '999' }), ['--wait', '0']);
    expect(squatter.code).toBe(1);
    expect(squatter.stderr).toMatch(/answered 403: This CI ID token is for another repository named acme\/platform\/shop than the one linked/);
  });

  it('lists the runs of the subgroup path, and links and unlinks it through the REST API (its slashes encoded)', async () => {
    const runs = await admin('GET', `/ci/runs?repo=${encodeURIComponent(PROJECT.toUpperCase())}`);
    expect(runs.status).toBe(200);
    expect(runs.body.length).toBeGreaterThanOrEqual(6);
    expect(new Set(runs.body.map((run: { repo: string }) => run.repo))).toEqual(new Set([PROJECT]));
    expect((await admin('DELETE', `/env/${envId}/repos/${encodeURIComponent(PROJECT)}`)).status).toBe(204);
    expect((await admin('GET', `/env/${envId}`)).body.repos).toEqual([]);
    expect((await admin('POST', `/env/${envId}/repos`, { repo: PROJECT })).status).toBe(201);
  });
});
