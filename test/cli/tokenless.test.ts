// Tokenless CI, end to end: the real ci-report (the committed bundle, as `npx querytrail` and the
// action run it) in a GitHub Actions job with `permissions: id-token: write`, i.e. with
// ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN pointing at a stand-in of GitHub's token service, against
// a server that trusts the stand-in issuer. And the other way: an environment's CI token as
// QUERYTRAIL_TOKEN.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config';
import { requestJson } from '../support/api';
import { BUNDLE, runCli, runNode } from '../support/cli';
import { startOidcIssuer, type OidcIssuerStandIn } from '../support/oidc-issuer';
import { openTestServices, startTestServer, type TestServer } from '../support/services';

const ADMIN = 'admin-secret';
const REPO = 'acme/app';

let issuer: OidcIssuerStandIn;
let server: TestServer;
let work: string;
let statements: string;
let envId: string;
let runNumber = 0;

const admin = (method: string, route: string, json?: unknown) =>
  requestJson(`${server.url}/api${route}`, { method, json, headers: { authorization: `Bearer ${ADMIN}` } });

/** What GitHub gives a job of acme/app on main; with `permissions: id-token: write`, the token request variables too. */
function job(extra: Record<string, string> = {}, idToken = true): Record<string, string> {
  const runId = `tokenless-${++runNumber}`;
  const summary = path.join(work, `summary-${runId}.md`);
  writeFileSync(summary, '');
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: REPO,
    GITHUB_RUN_ID: runId,
    GITHUB_SHA: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_NAME: 'main',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_STEP_SUMMARY: summary,
    ...(idToken ? { ACTIONS_ID_TOKEN_REQUEST_URL: issuer.tokenRequest.url, ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.tokenRequest.token } : {}),
    ...extra,
  };
}

const report = (env: Record<string, string>, flags: string[] = []) => runCli(['ci-report', '--file', statements, '--api', `${server.url}/api`, ...flags], env);
const runIdOf = (stdout: string) => /as (run_\w+):/.exec(stdout)?.[1];
const tokenRequests = () => issuer.requests.filter((r) => r.url.startsWith('/_apis/idtoken'));

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'qt-tokenless-'));
  statements = path.join(work, 'statements.sql');
  writeFileSync(statements, 'SELECT id, email FROM users WHERE id = 1;\nSELECT count(*) FROM orders WHERE user_id = 2;\n');
  issuer = await startOidcIssuer();
  issuer.job = { repository: REPO, ref: 'refs/heads/main' };
  server = await startTestServer(await openTestServices('pglite', { apiToken: ADMIN, auth: readConfig({ CI_OIDC_ISSUERS: issuer.url }).auth }));
  envId = (await admin('POST', '/env', { name: 'App', slug: 'app' })).body.id;
  expect((await admin('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
});

afterAll(async () => {
  await server?.close();
  await issuer?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("ci-report with the job's ID token (no QUERYTRAIL_TOKEN)", () => {
  it('fetches the ID token for the querytrail audience, posts the run with it and reads its verdict', async () => {
    const env = job();
    const result = await report(env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('querytrail: authenticating with this job\'s GitHub Actions ID token (audience "querytrail")');
    expect(result.stdout).toMatch(/reported run tokenless-\d+ of acme\/app as run_\w+: 2 queries, 2 new, environment env_/);
    // no secret in the log: neither the request token nor an ID token (a JWT's header starts eyJ)
    expect(result.stdout).not.toContain(issuer.tokenRequest.token);
    expect(result.stdout).not.toMatch(/eyJ[\w-]+\./);

    // asked as GitHub's toolkit asks: the runner's URL with &audience=, the request token as bearer
    const [asked] = tokenRequests().slice(-1);
    expect(asked).toEqual({ method: 'GET', url: '/_apis/idtoken?api-version=2.0&audience=querytrail', authorization: `Bearer ${issuer.tokenRequest.token}` });

    // the run arrived, in the linked environment
    const id = runIdOf(result.stdout)!;
    const stored = await admin('GET', `/ci/runs/${id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ repo: REPO, runId: env.GITHUB_RUN_ID, environment: { id: envId } });
    // the verdict was read with the same token: it is in the log and the job summary
    const verdict = await admin('GET', `/ci/runs/${id}/verdict`);
    expect(verdict.status).toBe(200);
    expect(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('querytrail');
    expect(result.stdout).toContain(`/ci/${id}`);
  });

  it("runs as the action runs it: no `token` input, the job's ID token instead", async () => {
    const env: Record<string, string> = {
      ...job(),
      'INPUT_API-URL': `${server.url}/api`,
      INPUT_FILE: statements,
      INPUT_TOKEN: '',
      INPUT_AUDIENCE: '',
      INPUT_WAIT: '0',
    };
    const before = tokenRequests().length;
    const result = await runNode(BUNDLE, [], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/authenticating with this job's GitHub Actions ID token[\s\S]*reported run tokenless-\d+ of acme\/app/);
    expect(tokenRequests()).toHaveLength(before + 1);
    expect((await admin('GET', `/ci/runs/${runIdOf(result.stdout)}`)).body.runId).toBe(env.GITHUB_RUN_ID);
  });

  it('asks for the audience given (QUERYTRAIL_AUDIENCE, --audience); one the server does not accept is a 401 naming both ways', async () => {
    const result = await report(job({ QUERYTRAIL_AUDIENCE: 'https://github.com/acme' }), ['--wait', '0']);
    expect(result.code).toBe(1);
    expect(tokenRequests().at(-1)!.url).toBe('/_apis/idtoken?api-version=2.0&audience=https%3A%2F%2Fgithub.com%2Facme');
    expect(result.stderr).toMatch(/the querytrail API answered 401: CI ID token refused: its audience is not "querytrail" \(CI_OIDC_AUDIENCE\)/);
    expect(result.stderr).toMatch(
      /it was asked for the audience "https:\/\/github\.com\/acme" \(--audience, QUERYTRAIL_AUDIENCE\)\. Either set QUERYTRAIL_TOKEN .*id-token: write/,
    );

    const flag = await report(job({ QUERYTRAIL_AUDIENCE: 'https://github.com/acme' }), ['--wait', '0', '--audience', 'querytrail']);
    expect(flag.stderr).toBe('');
    expect(flag.code).toBe(0);
    expect(tokenRequests().at(-1)!.url).toBe('/_apis/idtoken?api-version=2.0&audience=querytrail');
  });

  it("refuses with 403 (naming both ways) a job whose token is another repository's", async () => {
    issuer.job = { repository: 'acme/other', ref: 'refs/heads/main' };
    try {
      const result = await report(job(), ['--wait', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /answered 403: This CI ID token is for acme\/other; it cannot post runs of acme\/app \(the job's ID token may not post runs of acme\/app: .*\. Either set QUERYTRAIL_TOKEN .*id-token: write/,
      );
    } finally {
      issuer.job = { repository: REPO, ref: 'refs/heads/main' };
    }
  });

  it('fails clearly, without the request token in the log, when GitHub will not give the ID token', async () => {
    const before = Number((await admin('GET', '/ci/runs')).headers.get('x-total-count'));
    const result = await report(job({ ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'not-the-job-token' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `querytrail: cannot get the job's ID token: GitHub Actions' token service (ACTIONS_ID_TOKEN_REQUEST_URL at ${issuer.url}) answered 401: Unauthorized: the request token is not valid for this job`,
    );
    expect(result.stderr + result.stdout).not.toContain('not-the-job-token');
    expect(Number((await admin('GET', '/ci/runs')).headers.get('x-total-count'))).toBe(before);
  });

  it('without any credential, the 401 names both ways', async () => {
    const result = await report(job({}, false), ['--wait', '0']);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('authenticating with');
    expect(result.stderr).toMatch(
      /answered 401: .*\(no credentials were sent\. Either set QUERYTRAIL_TOKEN .* to a CI token .*, or give the GitHub Actions job `permissions: id-token: write`/,
    );
  });
});

describe('ci-report with a CI token as QUERYTRAIL_TOKEN', () => {
  it("posts the environment's runs and reads their verdicts, and is preferred to the job's ID token", async () => {
    const created = await admin('POST', `/env/${envId}/ci-tokens`, { name: 'GitHub Actions' });
    expect(created.status).toBe(201);
    const ciToken = created.body.token as string;
    const before = tokenRequests().length;

    const env = job({ QUERYTRAIL_TOKEN: ciToken });
    const result = await report(env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('querytrail: authenticating with QUERYTRAIL_TOKEN');
    expect(result.stdout).not.toContain(ciToken);
    expect(result.stdout).toMatch(/reported run tokenless-\d+ of acme\/app as run_\w+: 2 queries, 0 new, environment env_/);
    expect(tokenRequests()).toHaveLength(before);
    const id = runIdOf(result.stdout)!;
    expect((await admin('GET', `/ci/runs/${id}`)).body).toMatchObject({ runId: env.GITHUB_RUN_ID, environment: { id: envId } });
    expect(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('querytrail');

    // revoked, it is refused with the hint
    expect((await admin('DELETE', `/env/${envId}/ci-tokens/${created.body.id}`)).status).toBe(204);
    const revoked = await report(job({ QUERYTRAIL_TOKEN: ciToken }), ['--wait', '0']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(/answered 401: .*\(QUERYTRAIL_TOKEN was refused\. Either set QUERYTRAIL_TOKEN .*id-token: write/);
  });
});
