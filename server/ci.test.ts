// The CI and catalog-write routes through real HTTP: status codes, bodies, gzip, limits, errors.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { CI_LIMITS } from '../shared/ci';
import { requestJson } from '../test/support/api';

afterAll(() => stopTestPostgres());

describe.each(BACKENDS)('CI runs and catalog writes over HTTP on %s', (backend) => {
  let server: TestServer;
  let envId: string;
  const repo = 'acme/http-app';

  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    requestJson(`${server.url}/api${path}`, { method, headers, ...(Buffer.isBuffer(body) ? { raw: new Uint8Array(body) } : { json: body }) });

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { maxBodyBytes: 256 * 1024 }));
    envId = (await api('POST', '/env', { name: 'HTTP app', slug: 'http-app' })).body.id;
    await api('POST', `/env/${envId}/repos`, { repo });
  });
  afterAll(() => server.close());

  it('ingests a run with 201, and answers a repeat with 200 and the same body', async () => {
    const run = { repo, runId: '1001', branch: 'feature/x', commitSha: 'deadbeef', pullRequest: 7, queries: [{ query: 'SELECT * FROM users WHERE id = 1' }] };
    const first = await api('POST', '/ci/runs', run);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.stringMatching(/^run_/), environmentId: envId, queryCount: 1, newQueryCount: 1, rejected: [] });
    const again = await api('POST', '/ci/runs', run);
    expect(again).toMatchObject({ status: 200, body: first.body });
  });

  it('accepts a gzip body', async () => {
    const run = { repo, runId: 'gz', queries: [{ query: 'SELECT name FROM products WHERE sku = $1', calls: 2, meanTimeMs: 1.5 }] };
    const response = await api('POST', '/ci/runs', gzipSync(JSON.stringify(run)), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(201);
    expect(response.body.queryCount).toBe(1);
  });

  it('rejects bad runs with 400 naming the field, oversized bodies with 413, and stores nothing', async () => {
    const before = (await api('GET', '/ci/runs')).headers.get('x-total-count');
    const noRepo = await api('POST', '/ci/runs', { runId: 'x', queries: [] });
    expect(noRepo.status).toBe(400);
    expect(noRepo.body.error.issues[0].path).toBe('repo');

    const tooLong = await api('POST', '/ci/runs', { repo, runId: 'long', queries: [{ query: `SELECT '${'x'.repeat(CI_LIMITS.maxQueryLength)}'` }] });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.issues[0]).toMatchObject({ path: 'queries.0.query', message: expect.stringContaining('longer than') });

    const tooMany = gzipSync(
      JSON.stringify({ repo, runId: 'many', queries: Array.from({ length: CI_LIMITS.maxQueriesPerRun + 1 }, () => ({ query: 'SELECT 1' })) }),
    );
    const many = await api('POST', '/ci/runs', tooMany, { 'content-encoding': 'gzip' });
    expect(many.status).toBe(400);
    expect(many.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'queries', message: expect.stringContaining('at most') }] });

    // 256 KiB cap of this server, measured after inflation
    const huge = { repo, runId: 'huge', queries: Array.from({ length: 300 }, (_, i) => ({ query: `SELECT ${i}, '${'y'.repeat(1000)}'` })) };
    const tooLarge = await api('POST', '/ci/runs', gzipSync(JSON.stringify(huge)), { 'content-encoding': 'gzip' });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');

    const malformed = await api('POST', '/ci/runs', Buffer.from('{"repo": '));
    expect(malformed.status).toBe(400);
    expect((await api('GET', '/ci/runs')).headers.get('x-total-count')).toBe(before);
  });

  it('lists runs newest first with the environment badge and the total, and reads one run', async () => {
    const loose = await api('POST', '/ci/runs', { repo: 'someone/else', runId: '1', queries: [{ query: 'SELECT 1 FROM t' }] });
    const list = await api('GET', '/ci/runs?limit=2');
    expect(list.status).toBe(200);
    expect(Number(list.headers.get('x-total-count'))).toBeGreaterThanOrEqual(3);
    expect(list.body[0]).toMatchObject({ id: loose.body.id, repo: 'someone/else', environment: null });
    expect(list.body[1].environment).toEqual({ id: envId, name: 'HTTP app', slug: 'http-app' });

    const detail = await api('GET', `/ci/runs/${list.body[1].id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.queries[0]).toMatchObject({ hash: expect.any(String), formattedQuery: expect.stringContaining('$1') });

    const byEnv = await api('GET', `/ci/runs?environmentId=${envId}`);
    expect(byEnv.body.every((r: { environment: { id: string } | null }) => r.environment?.id === envId)).toBe(true);

    expect((await api('GET', '/ci/runs/run_nope')).status).toBe(404);
  });

  it('adds a query by hand (201), refreshes it (200), and rejects SQL that does not parse (400)', async () => {
    const added = await api('POST', `/env/${envId}/queries`, { query: 'SELECT email FROM users WHERE id = 3' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ lastSeenSource: 'manual', ciRunCount: 0, query: 'SELECT email FROM users WHERE id = 3', productionCalls: null });
    const refreshed = await api('POST', `/env/${envId}/queries`, { query: 'select email from users where id = 4' });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ hash: added.body.hash, query: 'select email from users where id = 4', firstSeenAt: added.body.firstSeenAt });

    const manualOnly = await api('GET', `/env/${envId}/queries?source=manual`);
    expect(manualOnly.body.map((q: { hash: string }) => q.hash)).toEqual([added.body.hash]);

    const broken = await api('POST', `/env/${envId}/queries`, { query: 'SELEC oops' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'query', message: expect.stringContaining('syntax error') }] });
    expect((await api('POST', '/env/env_nope/queries', { query: 'SELECT 1' })).status).toBe(404);
  });

  it('refuses production sync without a production connection (409) and reports one that cannot be reached (502)', async () => {
    const none = await api('POST', `/env/${envId}/queries/sync-production`);
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/no connection with role production/);

    const password = 'sup3r-secret';
    await api('POST', `/env/${envId}/connections`, { label: 'primary', role: 'production', connectionString: `postgres://app:${password}@127.0.0.1:9/app` });
    const down = await api('POST', `/env/${envId}/queries/sync-production`);
    expect(down.status).toBe(502);
    expect(down.body.error).toMatchObject({ code: 'upstream_unavailable', message: expect.stringContaining('primary') });
    expect(JSON.stringify(down.body)).not.toContain(password);
    expect((await api('POST', '/env/env_nope/queries/sync-production')).status).toBe(404);
  });

  it('documents the new routes in the OpenAPI document', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/ci/runs'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.paths['/ci/runs'].post.responses['201']).toBeDefined();
    expect(doc.paths['/ci/runs/{id}'].get).toBeDefined();
    expect(doc.paths['/env/{id}/queries'].post.responses['201']).toBeDefined();
    expect(doc.paths['/env/{id}/queries/sync-production'].post).toBeDefined();
  });
});
