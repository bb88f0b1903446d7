// Tokenless CI over real HTTP: a CI job's ID token, minted by a local stand-in for GitHub Actions'
// OIDC issuer, posts runs of the one repository its claims name and reads their verdicts, nothing
// else; every forged, foreign, stale or misdirected token is refused with 401 and writes nothing.
// On PGlite and on a real PostgreSQL server.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../catalog/sql';
import { readConfig, type Config } from '../config';
import { requestJson } from '../../test/support/api';
import { foreignKey, startOidcIssuer, type GithubClaims, type OidcIssuerStandIn } from '../../test/support/oidc-issuer';
import { freePort } from '../../test/support/postgres';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { branchAllowed, verifyCiIdToken } from './ci-oidc';
import { CredentialsUnverifiable } from './principal';

const ADMIN = 'admin-secret';
const REPO = 'acme/app';

/** Found through its discovery document. */
let github: OidcIssuerStandIn;
/** Configured with CI_OIDC_JWKS_URLS: its keys' address given, no discovery. */
let enterprise: OidcIssuerStandIn;
/** Not configured at all. */
let stranger: OidcIssuerStandIn;
/** Someone else's private key. */
let forger: Awaited<ReturnType<typeof foreignKey>>;

beforeAll(async () => {
  [github, enterprise, stranger, forger] = await Promise.all([startOidcIssuer(), startOidcIssuer(), startOidcIssuer(), foreignKey()]);
});
afterAll(async () => {
  await Promise.all([github?.close(), enterprise?.close(), stranger?.close()]);
  await stopTestPostgres();
});

/** The server's settings as its environment would give them. */
const serverConfig = (env: Record<string, string> = {}): Partial<Config> => ({
  apiToken: ADMIN,
  auth: readConfig({
    CI_OIDC_ISSUERS: `${github.url}, ${enterprise.url}`,
    CI_OIDC_JWKS_URLS: `${enterprise.url}=${enterprise.jwksUrl}`,
    ...env,
  }).auth,
});

/** A token GitHub would mint for a job of acme/app asking for querytrail's audience. */
const valid = (claims: Partial<GithubClaims> = {}, issuer = github) => issuer.mint({ aud: 'querytrail', ...claims });

let runNumber = 0;
const runOf = (repo = REPO) => ({ repo, runId: `oidc-${++runNumber}`, branch: 'main', queries: [{ query: 'SELECT id, email FROM users WHERE id = 1' }] });

describe.each(BACKENDS)('CI ID tokens on %s', (backend) => {
  let server: TestServer;
  let envId: string;
  let otherRunId: string;

  const api = (method: string, path: string, bearer: string, json?: unknown) =>
    requestJson(`${server.url}/api${path}`, { method, json, headers: { authorization: `Bearer ${bearer}` } });
  const storedRuns = async (on = server) => (await rowsOf<{ n: number }>(on.services.store.db, sql`SELECT count(*)::int AS n FROM ci_runs`))[0]!.n;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, serverConfig()));
    // the admin (here the break-glass API_TOKEN) links the repositories once
    const created = await api('POST', '/env', ADMIN, { name: 'App', slug: 'app' });
    expect(created.status).toBe(201);
    envId = created.body.id;
    expect((await api('POST', `/env/${envId}/repos`, ADMIN, { repo: REPO })).status).toBe(201);
    const other = await api('POST', '/env', ADMIN, { name: 'Other', slug: 'other' });
    expect((await api('POST', `/env/${other.body.id}/repos`, ADMIN, { repo: 'acme/other' })).status).toBe(201);
    const otherRun = await api('POST', '/ci/runs', ADMIN, runOf('acme/other'));
    expect(otherRun.status).toBe(201);
    otherRunId = otherRun.body.id;
  });
  afterAll(() => server?.close());

  it("posts a run of the token's repository (201) and reads its verdict (200)", async () => {
    const token = await valid();
    const posted = await api('POST', '/ci/runs', token, runOf());
    expect(posted.status, posted.text).toBe(201);
    expect(posted.body).toMatchObject({ id: expect.stringMatching(/^run_/), environmentId: envId, queryCount: 1 });

    const verdict = await api('GET', `/ci/runs/${posted.body.id}/verdict`, token);
    expect(verdict.status, verdict.text).toBe(200);
    expect(verdict.body.status).toEqual(expect.any(String));
    const detail = await api('GET', `/ci/runs/${posted.body.id}`, token);
    expect(detail.status, detail.text).toBe(200);

    // its keys were found through the discovery document, as GitHub's are
    const paths = github.requests.map((r) => r.url);
    expect(paths).toContain('/.well-known/openid-configuration');
    expect(paths).toContain('/.well-known/jwks');
  });

  it("accepts a configured issuer's tokens with the keys' address given (CI_OIDC_JWKS_URLS), with no discovery", async () => {
    const posted = await api('POST', '/ci/runs', await valid({}, enterprise), runOf());
    expect(posted.status, posted.text).toBe(201);
    expect(enterprise.requests.map((r) => r.url)).not.toContain('/.well-known/openid-configuration');
  });

  it('refuses with 401 every token it must not believe, and stores nothing', async () => {
    const before = await storedRuns();
    const now = Math.floor(Date.now() / 1000);
    const cases: [what: string, token: string, reason: RegExp][] = [
      ['a forged signature (another key, the same kid)', await github.mint({ aud: 'querytrail' }, { key: forger }), /signature is not valid/],
      ['alg none', await github.mint({ aud: 'querytrail' }, { unsigned: true }), /not signed with an accepted algorithm/],
      ['an unknown kid', await github.mint({ aud: 'querytrail' }, { kid: 'rotated-away' }), /key its issuer does not publish/],
      ["GitHub's default audience (the owner's URL)", await github.mint(), /audience is not "querytrail"/],
      ['another audience', await valid({ aud: 'https://pypi.org' }), /audience is not "querytrail"/],
      ['an issuer not configured', await valid({}, stranger), /issuer is not one this server accepts/],
      ["a configured issuer's name, signed by another issuer's key", await valid({ iss: github.url }, enterprise), /key its issuer does not publish/],
      [
        "a configured issuer's name and kid, signed by another issuer's key",
        await enterprise.mint({ aud: 'querytrail', iss: github.url }, { kid: github.kid }),
        /signature is not valid/,
      ],
      ['an expired token', await valid({ iat: now - 900, nbf: now - 900, exp: now - 120 }), /expired/],
      ['a token not valid yet', await valid({ nbf: now + 120, exp: now + 600 }), /not valid yet/],
      ['a token without a repository claim', await github.mint({ aud: 'querytrail' }, { omit: ['repository'] }), /no "repository" claim/],
      ['a token without exp', await github.mint({ aud: 'querytrail' }, { omit: ['exp'] }), /no "exp" claim/],
      ['a token of a malformed repository', await valid({ repository: 'acme' }), /"repository" claim is not owner\/name/],
      ['a signature cut off', (await valid()).replace(/\.[^.]+$/, '.'), /not signed with an accepted algorithm|signature is not valid/],
    ];
    for (const [what, token, reason] of cases) {
      const answer = await api('POST', '/ci/runs', token, runOf());
      expect(answer.status, `${what}: ${answer.text}`).toBe(401);
      expect(answer.body.error, what).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(reason) });
      expect(answer.headers.get('www-authenticate'), what).toBe('Bearer');
      expect(answer.text, what).not.toContain(token.split('.')[1]);
      expect((await api('GET', `/ci/runs/${otherRunId}/verdict`, token)).status, what).toBe(401);
    }
    expect(await storedRuns()).toBe(before);
  });

  it('refuses with 403 a run of an unlinked repository or of another repository than the token is for', async () => {
    const before = await storedRuns();
    const unlinked = await api('POST', '/ci/runs', await valid({ repository: 'acme/unlinked' }), runOf('acme/unlinked'));
    expect(unlinked.status, unlinked.text).toBe(403);
    expect(unlinked.body.error.message).toMatch(/acme\/unlinked is not linked/);

    const elsewhere = await api('POST', '/ci/runs', await valid(), runOf('acme/other'));
    expect(elsewhere.status, elsewhere.text).toBe(403);
    expect(elsewhere.body.error.message).toMatch(/for acme\/app; it cannot post runs of acme\/other/);
    expect(await storedRuns()).toBe(before);
  });

  it('refuses with 403 every other route, and hides the runs of other repositories (404)', async () => {
    const token = await valid();
    expect((await api('GET', '/env', token)).status).toBe(403);
    expect((await api('GET', `/env/${envId}/queries`, token)).status).toBe(403);
    expect((await api('GET', `/env/${envId}/ci-tokens`, token)).status).toBe(403);
    expect((await api('POST', `/env/${envId}/ci-tokens`, token, { name: 'mine now' })).status).toBe(403);
    expect((await api('DELETE', `/env/${envId}`, token)).status).toBe(403);
    expect((await api('GET', `/env/${envId}`, ADMIN)).status).toBe(200);

    const hidden = await api('GET', `/ci/runs/${otherRunId}/verdict`, token);
    expect(hidden.status, hidden.text).toBe(404);
    expect((await api('GET', `/ci/runs/${otherRunId}`, token)).status).toBe(404);
  });

  it('refuses a repository of the same name with another id (deleted and made again by someone else) until it is linked again', async () => {
    expect((await api('POST', '/ci/runs', await valid(), { ...runOf(), runId: 'id-first' })).status).toBe(201);
    const before = await storedRuns();
    const squatter = await api('POST', '/ci/runs', await valid({ repository_id: '987654321' }), { ...runOf(), runId: 'id-squat' });
    expect(squatter.status, squatter.text).toBe(403);
    expect(squatter.body.error.message).toMatch(/another repository named acme\/app/);
    expect(await storedRuns()).toBe(before);
    // an admin who knows the repository moved links it again: the new id is the one kept
    expect((await api('DELETE', `/env/${envId}/repos/${encodeURIComponent(REPO)}`, ADMIN)).status).toBe(204);
    expect((await api('POST', `/env/${envId}/repos`, ADMIN, { repo: REPO })).status).toBe(201);
    expect((await api('POST', '/ci/runs', await valid({ repository_id: '987654321' }), { ...runOf(), runId: 'id-moved' })).status).toBe(201);
    expect((await api('POST', '/ci/runs', await valid(), { ...runOf(), runId: 'id-old' })).status).toBe(403);
    expect((await api('DELETE', `/env/${envId}/repos/${encodeURIComponent(REPO)}`, ADMIN)).status).toBe(204);
    expect((await api('POST', `/env/${envId}/repos`, ADMIN, { repo: REPO })).status).toBe(201);
  });

  describe('with CI_OIDC_BRANCHES=main,release/1.x', () => {
    let restricted: TestServer;
    beforeAll(async () => {
      restricted = await startTestServer(await openTestServices(backend, serverConfig({ CI_OIDC_BRANCHES: 'main, release/1.x' })));
      const created = await requestJson(`${restricted.url}/api/env`, {
        method: 'POST',
        json: { name: 'App', slug: 'app' },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      await requestJson(`${restricted.url}/api/env/${created.body.id}/repos`, {
        method: 'POST',
        json: { repo: REPO },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
    });
    afterAll(() => restricted?.close());

    const post = async (claims: Partial<GithubClaims>) =>
      requestJson(`${restricted.url}/api/ci/runs`, { method: 'POST', json: runOf(), headers: { authorization: `Bearer ${await valid(claims)}` } });

    it('accepts pushes to the branches listed and pull requests into them', async () => {
      expect((await post({ ref: 'refs/heads/main' })).status).toBe(201);
      expect((await post({ ref: 'refs/heads/release/1.x' })).status).toBe(201);
      expect((await post({ ref: 'refs/pull/7/merge', base_ref: 'main', head_ref: 'feature/login' })).status).toBe(201);
    });

    it('refuses other branches, tags, pull requests into other branches and tokens without a ref, storing nothing', async () => {
      const before = await storedRuns(restricted);
      for (const claims of [
        { ref: 'refs/heads/feature/login' },
        { ref: 'refs/heads/main-old' },
        { ref: 'refs/tags/main' },
        { ref: 'refs/pull/8/merge', base_ref: 'develop', head_ref: 'main' },
        { ref: 'refs/heads/feature/x', base_ref: 'main' },
      ] satisfies Partial<GithubClaims>[]) {
        const answer = await post(claims);
        expect(answer.status, `${claims.ref}: ${answer.text}`).toBe(401);
        expect(answer.body.error.message).toMatch(/ref is not one of the branches this server accepts \(CI_OIDC_BRANCHES: main, release\/1\.x\)/);
      }
      const noRef = await requestJson(`${restricted.url}/api/ci/runs`, {
        method: 'POST',
        json: runOf(),
        headers: { authorization: `Bearer ${await github.mint({ aud: 'querytrail' }, { omit: ['ref'] })}` },
      });
      expect(noRef.status).toBe(401);
      expect(await storedRuns(restricted)).toBe(before);
    });
  });
});

describe('verifyCiIdToken', () => {
  const auth = (issuers: string[]) => ({ ...readConfig({}).auth, ciIssuers: issuers });

  it('returns the principal of the claims', async () => {
    const token = await valid({ repository: 'acme/app', ref: 'refs/pull/3/merge', base_ref: 'main' });
    await expect(verifyCiIdToken(auth([github.url]), token)).resolves.toEqual({
      kind: 'ci-oidc',
      issuer: github.url,
      repository: 'acme/app',
      repositoryId: '123456789',
      ref: 'refs/pull/3/merge',
      subject: 'repo:acme/app:pull_request',
    });
  });

  it('refuses, without hanging, the tokens of a configured issuer whose discovery does not answer', async () => {
    const gone = `http://127.0.0.1:${await freePort()}`;
    const token = await valid({ iss: gone }, stranger);
    await expect(verifyCiIdToken(auth([gone]), token)).rejects.toThrow(
      /keys of http:\/\/127\.0\.0\.1:\d+ could not be found: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/openid-configuration did not answer \(ECONNREFUSED\)/,
    );
    // and again from the remembered failure, without asking
    await expect(verifyCiIdToken(auth([gone]), token)).rejects.toThrow(/could not be found/);
    // not a wrong token but one that cannot be checked now: 503, which CI reads as querytrail unavailable
    await expect(verifyCiIdToken(auth([gone]), token)).rejects.toBeInstanceOf(CredentialsUnverifiable);
  });

  it("takes an issuer's `iss` with a trailing slash for the issuer configured without it", async () => {
    await expect(verifyCiIdToken(auth([github.url]), await valid({ iss: `${github.url}/` }))).resolves.toMatchObject({ issuer: github.url });
  });

  it("reads a GitLab CI job's token by its project_path, subgroups and all, its project id kept with its issuer", async () => {
    await expect(verifyCiIdToken(auth([github.url]), await github.mintGitlab())).resolves.toEqual({
      kind: 'ci-oidc',
      issuer: github.url,
      repository: 'acme/platform/app',
      repositoryId: `gitlab:4242@${github.url}`,
      ref: 'refs/heads/main',
      subject: 'project_path:acme/platform/app:ref_type:branch:ref:main',
    });
    await expect(verifyCiIdToken(auth([github.url]), await github.mintGitlab({ project_path: 'acme/app' }))).resolves.toMatchObject({ repository: 'acme/app' });
  });

  it('refuses GitLab tokens of a malformed project path, without a project, of another audience, or forged', async () => {
    const issuers = auth([github.url]);
    await expect(verifyCiIdToken(issuers, await github.mintGitlab({ project_path: 'acme/../app' }))).rejects.toThrow(
      /"project_path" claim is not a project path/,
    );
    await expect(verifyCiIdToken(issuers, await github.mintGitlab({}, { omit: ['project_path'] }))).rejects.toThrow(
      /no "repository" claim \(GitHub\) nor "project_path" claim \(GitLab\)/,
    );
    await expect(verifyCiIdToken(issuers, await github.mintGitlab({ aud: 'https://gitlab.com' }))).rejects.toThrow(/audience is not "querytrail"/);
    await expect(verifyCiIdToken(issuers, await github.mintGitlab({}, { key: forger }))).rejects.toThrow(/signature is not valid/);
    await expect(verifyCiIdToken(auth([enterprise.url]), await github.mintGitlab())).rejects.toThrow(/issuer is not one this server accepts/);
  });

  it("applies CI_OIDC_BRANCHES to a GitLab token's ref and ref_type", async () => {
    const branches = { ...auth([github.url]), ciBranches: ['main'] };
    await expect(verifyCiIdToken(branches, await github.mintGitlab({ ref: 'main' }))).resolves.toMatchObject({ ref: 'refs/heads/main' });
    for (const claims of [{ ref: 'feature/x' }, { ref: 'main', ref_type: 'tag' as const }]) {
      await expect(verifyCiIdToken(branches, await github.mintGitlab(claims))).rejects.toThrow(/not one of the branches this server accepts/);
    }
  });

  it('refuses what is not a JWT', async () => {
    await expect(verifyCiIdToken(auth([github.url]), 'a.b.c')).rejects.toThrow(/not a well-formed JWT/);
  });
});

describe('the branch rule', () => {
  it('allows any ref when no branch is listed, and otherwise listed branches and pull requests into them', () => {
    expect(branchAllowed([], undefined, undefined)).toBe(true);
    expect(branchAllowed(['main'], 'refs/heads/main', undefined)).toBe(true);
    expect(branchAllowed(['main'], 'refs/pull/1/merge', 'main')).toBe(true);
    expect(branchAllowed(['main'], 'refs/pull/1/merge', 'dev')).toBe(false);
    expect(branchAllowed(['main'], 'refs/heads/dev', 'main')).toBe(false);
    expect(branchAllowed(['main'], 'refs/tags/main', undefined)).toBe(false);
    expect(branchAllowed(['main'], undefined, 'main')).toBe(false);
  });
});
