// The environments API through real HTTP, on PGlite and on a real PostgreSQL server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';

afterAll(stopTestPostgres);

const SECRET_URL = 'postgres://app_user:s3cret-Pa55@db.internal:5432/payments';

describe.each(BACKENDS)('environments API over REST (%s)', (backend) => {
  let server: TestServer;
  let api: (path: string, init?: RequestInit & { json?: unknown }) => Promise<{ status: number; body: any; text: string; headers: Headers }>;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { maxBodyBytes: 64 * 1024 }));
    api = async (path, init = {}) => {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(`${server.url}/api${path}`, { ...init, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text, headers: res.headers };
    };
  });
  afterAll(() => server?.close());

  const createEnv = async (name: string, slug: string) => {
    const res = await api('/env', { method: 'POST', json: { name, slug } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('creates, lists, reads, renames and deletes an environment', async () => {
    const id = await createEnv('Payments', 'payments');
    expect(typeof id).toBe('string');

    const list = await api('/env');
    expect(list.status).toBe(200);
    const listed = list.body.find((e: { id: string }) => e.id === id);
    expect(listed).toMatchObject({ id, name: 'Payments', slug: 'payments' });
    expect(new Date(listed.createdAt).toISOString()).toBe(listed.createdAt);

    const detail = await api(`/env/${id}`);
    expect(detail.body).toEqual({ ...listed, snapshotIntervalSeconds: null, effectiveSnapshotIntervalSeconds: 600, connections: [], repos: [] });

    const renamed = await api(`/env/${id}`, { method: 'PATCH', json: { name: '  Payments API  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Payments API', slug: 'payments' });
    const reslugged = await api(`/env/${id}`, { method: 'PATCH', json: { slug: 'payments-api' } });
    expect(reslugged.body).toMatchObject({ name: 'Payments API', slug: 'payments-api' });

    const del = await api(`/env/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(`/env/${id}`)).status).toBe(404);
    expect((await api(`/env/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('rejects bad slugs and names with 400 naming the field, and duplicate slugs with 409', async () => {
    for (const slug of ['Bad Slug', 'UPPER', 'under_score', '', 'x'.repeat(65)]) {
      const res = await api('/env', { method: 'POST', json: { name: 'X', slug } });
      expect(res.status, slug).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain('slug');
    }
    const blank = await api('/env', { method: 'POST', json: { name: '   ', slug: 'ok' } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.issues[0].path).toBe('name');
    const missing = await api('/env', { method: 'POST', json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(['name', 'slug']);

    const first = await createEnv('Orders', 'orders');
    const dup = await api('/env', { method: 'POST', json: { name: 'Orders again', slug: 'orders' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'conflict' });
    expect(dup.body.error.message).toContain('orders');

    const other = await createEnv('Shipping', 'shipping');
    const patchDup = await api(`/env/${other}`, { method: 'PATCH', json: { slug: 'orders', name: 'Changed' } });
    expect(patchDup.status).toBe(409);
    // nothing changed: not even the name that came with the conflicting slug
    expect((await api(`/env/${other}`)).body).toMatchObject({ name: 'Shipping', slug: 'shipping' });
    const patchBad = await api(`/env/${first}`, { method: 'PATCH', json: { slug: 'NO' } });
    expect(patchBad.status).toBe(400);
    expect((await api(`/env/${first}`)).body.slug).toBe('orders');
  });

  it('keeps connection strings secret: masked on read, encrypted at rest, default role other', async () => {
    const env = await createEnv('Secrets', 'secrets');
    const added = await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'Primary', connectionString: SECRET_URL } });
    expect(added.status).toBe(201);
    const prod = await api(`/env/${env}/connections`, {
      method: 'POST',
      json: { label: 'Prod', role: 'production', connectionString: 'postgresql://ro@replica.internal/payments' },
    });
    expect(prod.status).toBe(201);

    const detail = await api(`/env/${env}`);
    expect(detail.body.connections).toHaveLength(2);
    expect(detail.body.connections[0]).toMatchObject({
      id: added.body.id,
      label: 'Primary',
      role: 'other',
      maskedConnectionString: 'postgres://app_user:****@db.internal:5432/payments',
    });
    expect(detail.body.connections[1]).toMatchObject({ label: 'Prod', role: 'production' });
    expect(detail.text).not.toContain('s3cret-Pa55');
    expect(detail.body.connections[0]).not.toHaveProperty('connectionString');

    const rows = await server.services.store.db.execute(sql`select * from connections`);
    const stored = JSON.stringify(rows.rows);
    expect(stored).not.toContain('s3cret-Pa55');
    const sealed = (rows.rows as { id: string; connection_string_encrypted: string }[]).find((r) => r.id === added.body.id)!;
    expect(server.services.secrets.decrypt(sealed.connection_string_encrypted)).toBe(SECRET_URL);

    const removed = await api(`/env/${env}/connections/${added.body.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect((await api(`/env/${env}/connections/${added.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api(`/env/${env}`)).body.connections.map((c: { label: string }) => c.label)).toEqual(['Prod']);
  });

  it('rejects bad connections with 400 and leaves the environment as it was', async () => {
    const env = await createEnv('Bad conns', 'bad-conns');
    const cases: [unknown, string][] = [
      [{ label: 'x', connectionString: 'mysql://u:p@h/db' }, 'connectionString'],
      [{ label: 'x', connectionString: 'postgres://u:p@h:5432' }, 'connectionString'],
      [{ label: 'x', connectionString: 'postgres:///db' }, 'connectionString'],
      [{ label: 'x', role: 'prod', connectionString: SECRET_URL }, 'role'],
      [{ label: '', connectionString: SECRET_URL }, 'label'],
    ];
    for (const [json, field] of cases) {
      const res = await api(`/env/${env}/connections`, { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
      expect(res.text).not.toContain('s3cret-Pa55');
    }
    expect((await api(`/env/${env}`)).body.connections).toEqual([]);
    const unknown = await api('/env/env_nope/connections', { method: 'POST', json: { label: 'x', connectionString: SECRET_URL } });
    expect(unknown.status).toBe(404);
  });

  it('links and unlinks repos; a repo belongs to one environment', async () => {
    const a = await createEnv('Repo A', 'repo-a');
    const b = await createEnv('Repo B', 'repo-b');
    const linked = await api(`/env/${a}/repos`, { method: 'POST', json: { repo: 'acme/web.app' } });
    expect(linked.status).toBe(201);

    const again = await api(`/env/${a}/repos`, { method: 'POST', json: { repo: 'acme/web.app' } });
    expect(again.status).toBe(409);
    const elsewhere = await api(`/env/${b}/repos`, { method: 'POST', json: { repo: 'ACME/Web.App' } });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.message).toContain('Repo A');
    expect((await api(`/env/${b}`)).body.repos).toEqual([]);

    // neither GitHub's <org>/<repo> nor a GitLab project path
    const subgroups = Array.from({ length: 21 }, (_, i) => `g${i}`).join('/');
    for (const repo of [
      'acme',
      '-acme/web',
      'acme/..',
      'acme/we b',
      'acme/web/',
      'acme//web',
      'acme/sub/web.git',
      'acme./web/app',
      `${subgroups}/app`,
      `acme/${'x'.repeat(251)}`,
    ]) {
      const res = await api(`/env/${a}/repos`, { method: 'POST', json: { repo } });
      expect(res.status, repo).toBe(400);
      expect(res.body.error.issues[0].path).toBe('repo');
    }

    const detail = await api(`/env/${a}`);
    expect(detail.body.repos).toEqual([{ id: linked.body.id, repo: 'acme/web.app', createdAt: expect.any(String) }]);

    // GitLab project paths, subgroups and all (and group names GitHub would not take), linked and unlinked like any other
    for (const repo of ['acme/platform/web-app', 'my_group/sub.group/deeper/app', `${subgroups.split('/').slice(1).join('/')}/app`]) {
      expect((await api(`/env/${b}/repos`, { method: 'POST', json: { repo } })).status, repo).toBe(201);
      expect((await api(`/env/${b}/repos/${encodeURIComponent(repo)}`, { method: 'DELETE' })).status, repo).toBe(204);
    }
    expect((await api(`/env/${b}`)).body.repos).toEqual([]);

    const unlinked = await api(`/env/${a}/repos/acme%2Fweb.app`, { method: 'DELETE' });
    expect(unlinked.status).toBe(204);
    expect((await api(`/env/${a}/repos/acme%2Fweb.app`, { method: 'DELETE' })).status).toBe(404);
    // now free to move
    expect((await api(`/env/${b}/repos`, { method: 'POST', json: { repo: 'acme/web.app' } })).status).toBe(201);
  });

  it('deleting an environment removes its connections, repo links and catalog', async () => {
    const env = await createEnv('Doomed', 'doomed');
    await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'db', connectionString: SECRET_URL } });
    await api(`/env/${env}/repos`, { method: 'POST', json: { repo: 'acme/doomed' } });
    const { db } = server.services.store;
    await db.execute(sql`insert into catalog_queries (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source, ci_run_count)
      values ('q1', ${env}, 'abc', 'select 1', 'SELECT 1', now(), now(), 'manual', 0)`);
    expect((await api(`/env/${env}/queries`)).body).toHaveLength(1);

    expect((await api(`/env/${env}`, { method: 'DELETE' })).status).toBe(204);
    const count = async (table: string) =>
      Number(((await db.execute(sql.raw(`select count(*) as n from ${table} where environment_id = '${env}'`))).rows[0] as { n: unknown }).n);
    expect(await count('connections')).toBe(0);
    expect(await count('repo_links')).toBe(0);
    expect(await count('catalog_queries')).toBe(0);
    expect((await api(`/env/${env}/queries`)).status).toBe(404);
  });

  it('serves an empty catalog and 404 for unknown queries', async () => {
    const env = await createEnv('Catalog', 'catalog');
    const list = await api(`/env/${env}/queries`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers.get('x-total-count')).toBe('0');
    expect((await api(`/env/${env}/queries/00000000deadbeef`)).status).toBe(404);
    expect((await api('/env/nope/queries')).status).toBe(404);
  });

  it('answers malformed JSON with 400, oversized bodies with 413, unknown routes with 404, never a stack trace', async () => {
    const malformed = await api('/env', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "x", ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('malformed_json');

    const huge = await api('/env', { method: 'POST', json: { name: 'x'.repeat(100_000), slug: 'huge' } });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    expect((await api('/env')).body.some((e: { slug: string }) => e.slug === 'huge')).toBe(false);

    const nowhere = await api('/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.error.code).toBe('not_found');

    for (const res of [malformed, huge, nowhere]) {
      expect(res.text).not.toMatch(/\bat .+:\d+:\d+|stack/i);
    }
  });

  it('publishes an OpenAPI 3.1 document with every path and its statuses, and a reference page', async () => {
    const doc = await api('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    const paths = doc.body.paths;
    expect(Object.keys(paths['/env'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/env/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(paths['/env']['post'].responses).toHaveProperty('201');
    expect(paths['/env/{id}']['delete'].responses).toHaveProperty('204');
    expect(paths['/env/{id}/connections']['post'].responses).toHaveProperty('201');
    expect(paths['/env/{id}/connections/{connectionId}']['delete'].responses).toHaveProperty('204');
    expect(paths['/env/{id}/repos']['post'].responses).toHaveProperty('201');
    expect(paths['/env/{id}/repos/{repo}']['delete'].responses).toHaveProperty('204');
    expect(paths['/env/{id}/queries']['get'].responses).toHaveProperty('200');
    expect(paths['/env/{id}/queries/{hash}']['get'].responses).toHaveProperty('200');

    const docs = await fetch(`${server.url}/api/docs/`);
    expect(docs.status).toBe(200);
    const html = await docs.text();
    expect(html).toContain('swagger-ui');
    const asset = await fetch(`${server.url}/api/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
  });
});

describe('bearer token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(await openTestServices('pglite', { apiToken: 'tok-123' }));
  });
  afterAll(() => server?.close());

  it('requires Authorization: Bearer <API_TOKEN> on /api and /trpc when API_TOKEN is set', async () => {
    const none = await fetch(`${server.url}/api/env`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await fetch(`${server.url}/api/env`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const created = await fetch(`${server.url}/api/env`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok-123', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A', slug: 'a' }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${server.url}/trpc/env.list`)).status).toBe(401);
    const trpc = await fetch(`${server.url}/trpc/env.list`, { headers: { authorization: 'Bearer tok-123' } });
    expect(trpc.status).toBe(200);
    expect(((await trpc.json()) as { result: { data: unknown[] } }).result.data).toHaveLength(1);
    // the reference stays readable so people can learn how to authenticate
    expect((await fetch(`${server.url}/api/openapi.json`)).status).toBe(200);
  });
});
