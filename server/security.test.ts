// The API's edges, attacked over real HTTP with paths sent byte for byte (fetch would normalise
// them first): the bearer token on every spelling of a path, the Host allow-list against DNS
// rebinding, path parameters matched as the literal segment they were sent as, and what an
// unexpected failure shows and logs. On PGlite and on a real PostgreSQL server.
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { readConfig } from './config';

afterAll(stopTestPostgres);

interface Answer {
  status: number;
  text: string;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/** One request with the path and headers exactly as given (no URL normalisation on our side). */
function send(
  server: TestServer,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; json?: unknown; body?: string } = {},
): Promise<Answer> {
  const { port } = new URL(server.url);
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), method, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, text, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TOKEN = 'tok-edges-7d1';
const bearer = { authorization: `Bearer ${TOKEN}` };
const SECRET_URL = 'postgres://app_user:s3cret-Pa55@db.internal:5432/payments';
const NO_STACK = /\bat .+:\d+:\d+|stack/i;

function expectOneErrorShape(answer: Answer, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toEqual({ error: { code, message: expect.any(String), ...(answer.body?.error?.issues ? { issues: expect.any(Array) } : {}) } });
  expect(answer.text).not.toMatch(NO_STACK);
}

/** An environment with a connection, a repo link and a catalog entry; returns what to look for. */
async function seedEnvironment(server: TestServer, slug: string, headers: Record<string, string> = {}) {
  const created = await send(server, 'POST', '/api/env', { headers, json: { name: `Env ${slug}`, slug } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const connection = await send(server, 'POST', `/api/env/${id}/connections`, { headers, json: { label: 'Primary', connectionString: SECRET_URL } });
  expect(connection.status).toBe(201);
  expect((await send(server, 'POST', `/api/env/${id}/repos`, { headers, json: { repo: `acme/${slug}` } })).status).toBe(201);
  await server.services.store.db
    .execute(sql`insert into catalog_queries (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source, ci_run_count)
      values (${`q_${slug}`}, ${id}, 'a1b2c3d4e5f60718', 'select 1', 'SELECT 1', now(), now(), 'manual', 0)`);
  return { id, connectionId: connection.body.id as string, repo: `acme/${slug}` };
}

/** Counts rows of an environment in each table, straight from the store. */
async function rowsOf(server: TestServer, id: string) {
  const { db } = server.services.store;
  const count = async (table: string, column: string) =>
    Number(((await db.execute(sql.raw(`select count(*) as n from ${table} where ${column} = '${id}'`))).rows[0] as { n: unknown }).n);
  return {
    environments: await count('environments', 'id'),
    connections: await count('connections', 'environment_id'),
    repoLinks: await count('repo_links', 'environment_id'),
    catalog: await count('catalog_queries', 'environment_id'),
  };
}

describe.each(BACKENDS)('bearer token on every spelling of a path (%s)', (backend) => {
  let server: TestServer;
  let env: Awaited<ReturnType<typeof seedEnvironment>>;
  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { apiToken: TOKEN }));
    env = await seedEnvironment(server, 'locked', bearer);
  });
  afterAll(() => server?.close());

  // Each of these reached the environments without the token, or could reach them through a layer
  // that resolves dot segments, backslashes or case differently from the token check.
  const DOT_SPELLINGS = [
    '/api/docs/%2e%2e/env',
    '/api/docs/%2E%2E/env',
    '/api/docs/.%2e/env',
    '/api/docs/../env',
    '/api/openapi.json/../env',
    '/api/openapi.json/%2e%2e/env',
    '/api/docs/..%2fenv',
    '/api/docs/%252e%252e/env',
    '/api/docs/..\\env',
    '/api/docs\\..\\env',
    '/api/docs/assets/../../env',
    '/api/docs/assets/%2e%2e/%2e%2e/env',
    '/api/docs/./../env',
    '/foo/%2e%2e/api/env',
    '//api/env',
    '/trpc/docs/%2e%2e/env.list',
    '/trpc/docs/../env.list',
  ];
  const OTHER_SPELLINGS = [
    '/api/env',
    '/API/env',
    '/Api/Env',
    '/api/env/',
    '/api/env;',
    '/api/env?x=1',
    '/api;/env',
    '/api%2Fenv',
    '/api/docs/assets/index.html',
    '/api/docs/assets/package.json',
  ];

  it('answers 401 without the token, never the data', async () => {
    const trpcInput = encodeURIComponent(JSON.stringify({ 0: {}, 1: { id: env.id } }));
    const targets = [
      ...DOT_SPELLINGS,
      ...OTHER_SPELLINGS,
      `/api/docs/%2e%2e/env/${env.id}`,
      `/trpc/env.list,env.get?batch=1&input=${trpcInput}`,
      `/trpc/docs/%2e%2e/env.list,env.get?batch=1&input=${trpcInput}`,
      `/trpc/env.get?input=${encodeURIComponent(JSON.stringify({ id: env.id }))}`,
      `/TRPC/env.list`,
    ];
    for (const target of targets) {
      const answer = await send(server, 'GET', target);
      expectOneErrorShape(answer, 401, 'unauthorized');
      expect(answer.headers['www-authenticate'], target).toBe('Bearer');
      expect(answer.text, target).not.toContain(env.id);
    }
    // writes too: nothing deleted, renamed or created
    for (const [method, target, json] of [
      ['DELETE', `/api/docs/%2e%2e/env/${env.id}`],
      ['DELETE', `/api/openapi.json/../env/${env.id}`],
      ['PATCH', `/api/docs/%2e%2e/env/${env.id}`, { name: 'taken' }],
      ['POST', '/api/openapi.json/%2e%2e/env', { name: 'Planted', slug: 'planted' }],
      ['POST', '/trpc/docs/%2e%2e/env.create', { name: 'Planted', slug: 'planted' }],
      ['POST', '/api/openapi.json', { name: 'Planted', slug: 'planted' }],
    ] as const) {
      expectOneErrorShape(await send(server, method, target, { json }), 401, 'unauthorized');
    }
    expect(await rowsOf(server, env.id)).toEqual({ environments: 1, connections: 1, repoLinks: 1, catalog: 1 });
    const list = await send(server, 'GET', '/api/env', { headers: bearer });
    expect(list.body.map((e: { name: string }) => e.name)).toEqual(['Env locked']);
  });

  it('refuses dot segments, backslashes and double encoding with 400 even with the token', async () => {
    for (const target of DOT_SPELLINGS) {
      const answer = await send(server, 'GET', target, { headers: bearer });
      expectOneErrorShape(answer, 400, 'validation_failed');
      expect(answer.text, target).not.toContain(env.id);
    }
    // the plain spellings still work for a client that holds the token
    expect((await send(server, 'GET', '/api/env/', { headers: bearer })).status).toBe(200);
    expect((await send(server, 'GET', '/api/env', { headers: bearer })).body).toHaveLength(1);
  });

  it('keeps the API reference readable without the token: exactly the document, the page and its two files', async () => {
    const doc = await send(server, 'GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    expect((await send(server, 'HEAD', '/api/openapi.json')).status).toBe(200);
    expect((await send(server, 'GET', '/api/docs')).status).toBe(301);
    const page = await send(server, 'GET', '/api/docs/');
    expect(page.status).toBe(200);
    // the page's own references are what is public
    const assets = [...page.text.matchAll(/(?:href|src)="(assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.sort()).toEqual(['assets/swagger-ui-bundle.js', 'assets/swagger-ui.css']);
    for (const asset of assets) expect((await send(server, 'GET', `/api/docs/${asset}`)).status, asset).toBe(200);
    // the rest of swagger-ui-dist is not served at all, with or without the token
    for (const file of ['index.html', 'package.json', 'swagger-initializer.js', 'oauth2-redirect.html', 'swagger-ui-bundle.js.map']) {
      expect((await send(server, 'GET', `/api/docs/assets/${file}`)).status, file).toBe(401);
      expect((await send(server, 'GET', `/api/docs/assets/${file}`, { headers: bearer })).status, file).toBe(404);
    }
  });
});

describe.each(BACKENDS)('Host allow-list against DNS rebinding (%s)', (backend) => {
  let server: TestServer;
  let port: string;
  const clientDir = mkdtempSync(path.join(tmpdir(), 'qt-spa-'));
  beforeAll(async () => {
    mkdirSync(path.join(clientDir, 'assets'));
    writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>querytrail</title>');
    writeFileSync(path.join(clientDir, 'assets', 'app.js'), 'console.log("spa")');
    server = await startTestServer(await openTestServices(backend), { clientDir });
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(clientDir, { recursive: true, force: true });
  });

  const FOREIGN = [
    'rebind.attacker.example:3000',
    'rebind.attacker.example',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    'localhost.',
    '10.0.0.1',
    '[::2]',
    'user@localhost',
    'localhost:3000:1',
  ];

  it('answers 421 to a foreign Host on /api, /trpc and the SPA, and creates nothing', async () => {
    const before = await send(server, 'GET', '/api/env');
    for (const host of FOREIGN) {
      const headers = { host };
      expectOneErrorShape(await send(server, 'POST', '/api/env', { headers, json: { name: 'Rebound', slug: 'rebound' } }), 421, 'host_not_allowed');
      expectOneErrorShape(await send(server, 'POST', '/trpc/env.create', { headers, json: { name: 'Rebound', slug: 'rebound' } }), 421, 'host_not_allowed');
      expectOneErrorShape(await send(server, 'GET', '/api/env', { headers }), 421, 'host_not_allowed');
      expectOneErrorShape(await send(server, 'GET', '/', { headers: { ...headers, accept: 'text/html' } }), 421, 'host_not_allowed');
      expectOneErrorShape(await send(server, 'GET', '/assets/app.js', { headers }), 421, 'host_not_allowed');
    }
    const after = await send(server, 'GET', '/api/env');
    expect(after.body).toEqual(before.body);
    const stored = await server.services.store.db.execute(sql`select count(*) as n from environments where slug = 'rebound'`);
    expect(Number((stored.rows[0] as { n: unknown }).n)).toBe(0);
  });

  it('answers 421 to a request without Host (HTTP/1.0)', async () => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    await new Promise<void>((resolve) => socket.on('end', resolve).write('GET /api/env HTTP/1.0\r\n\r\n'));
    expect(reply).toMatch(/^HTTP\/1\.1 421 /);
    expect(reply).toContain('"code":"host_not_allowed"');
  });

  it('answers loopback names on any port: localhost, *.localhost, 127.0.0.0/8 and [::1]', async () => {
    for (const host of [`localhost:${port}`, 'LOCALHOST', `127.0.0.1:${port}`, '127.8.9.10', `[::1]:${port}`, `app.localhost:${port}`, 'localhost:5173']) {
      expect((await send(server, 'GET', '/api/env', { headers: { host } })).status, host).toBe(200);
      expect((await send(server, 'GET', '/assets/app.js', { headers: { host } })).status, host).toBe(200);
    }
    const created = await send(server, 'POST', '/api/env', { headers: { host: `localhost:${port}` }, json: { name: 'Local', slug: 'local' } });
    expect(created.status).toBe(201);
  });
});

describe('ALLOWED_HOSTS and HOST', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { allowedHosts } = readConfig({ ALLOWED_HOSTS: ' QueryTrail.Example.com , ci.internal:8443,' });
    expect(allowedHosts).toEqual(['querytrail.example.com', 'ci.internal:8443']);
    server = await startTestServer(await openTestServices('pglite', { allowedHosts, host: 'qt-box.lan' }));
  });
  afterAll(() => server?.close());

  it('adds the listed names and the name the server binds to, and nothing else', async () => {
    for (const host of ['querytrail.example.com', 'querytrail.example.com:443', 'ci.internal', 'ci.internal:9000', 'qt-box.lan:3000', 'localhost']) {
      expect((await send(server, 'GET', '/api/env', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['example.com', 'x.querytrail.example.com', 'querytrail.example.com.attacker.example', 'internal']) {
      expect((await send(server, 'GET', '/api/env', { headers: { host } })).status, host).toBe(421);
    }
  });
});

describe.each(BACKENDS)('path parameters are the literal segment they were sent as (%s)', (backend) => {
  let server: TestServer;
  let env: Awaited<ReturnType<typeof seedEnvironment>>;
  const logged: string[] = [];
  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    env = await seedEnvironment(server, 'target');
  });
  afterAll(() => server?.close());

  const captureLog = () => {
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    onTestFinished(() => spy.mockRestore());
  };

  it('answers 400 to control characters in any path parameter, logs nothing, changes nothing', async () => {
    captureLog();
    const controls = ['%00', 'a%00b', '%01', '%0a', '%0D', '%1b', '%7f', '%C2%85', '%c2%9f'];
    for (const c of controls) {
      const targets: [string, string, unknown?][] = [
        ['GET', `/api/env/${c}`],
        ['PATCH', `/api/env/${c}`, { name: 'x' }],
        ['DELETE', `/api/env/${c}`],
        ['GET', `/api/env/${env.id}/queries/${c}`],
        ['GET', `/api/env/${c}/queries`],
        ['GET', `/api/ci/runs/${c}`],
        ['DELETE', `/api/env/${env.id}/connections/${c}`],
        ['DELETE', `/api/env/${env.id}/repos/acme%2F${c}`],
        ['POST', `/api/env/${c}/repos`, { repo: 'acme/other' }],
      ];
      for (const [method, target, json] of targets) {
        const answer = await send(server, method, target, { json });
        expectOneErrorShape(answer, 400, 'validation_failed');
      }
    }
    expect(logged).toEqual([]);
    expect(await rowsOf(server, env.id)).toEqual({ environments: 1, connections: 1, repoLinks: 1, catalog: 1 });
  });

  it('refuses . and .. in any encoding as ids, repos and hashes: the environment is neither deleted nor renamed', async () => {
    captureLog();
    const dots = ['%2e%2e', '%2E%2E', '.%2e', '%2e.', '..', '%2e', '.', '%252e%252e', 'acme%2F..', '..%2F..'];
    for (const dot of dots) {
      const targets: [string, string, unknown?][] = [
        ['DELETE', `/api/env/${env.id}/repos/${dot}`],
        ['DELETE', `/api/env/${env.id}/connections/${dot}`],
        ['PATCH', `/api/env/${env.id}/repos/${dot}`, { name: 'x' }],
        ['PATCH', `/api/env/${env.id}/connections/${dot}`, { name: 'x' }],
        ['GET', `/api/env/${env.id}/queries/${dot}`],
        ['POST', `/api/env/${env.id}/queries/${dot}`, { query: 'select 2' }],
        ['GET', `/api/env/${dot}`],
        ['DELETE', `/api/env/${env.id}/queries/${dot}/analysis`],
      ];
      for (const [method, target, json] of targets) {
        expectOneErrorShape(await send(server, method, target, { json }), 400, 'validation_failed');
      }
    }
    expect(await rowsOf(server, env.id)).toEqual({ environments: 1, connections: 1, repoLinks: 1, catalog: 1 });
    const detail = await send(server, 'GET', `/api/env/${env.id}`);
    expect(detail.body).toMatchObject({ name: 'Env target', slug: 'target' });
    expect(detail.body.connections.map((c: { id: string }) => c.id)).toEqual([env.connectionId]);
    expect(detail.body.repos.map((r: { repo: string }) => r.repo)).toEqual([env.repo]);
    expect(logged).toEqual([]);
  });

  it('refuses malformed percent-encoding with 400', async () => {
    for (const bad of ['%zz', '%e0%a4%a', '%', '%ED%A0%80', '%c3']) {
      expectOneErrorShape(await send(server, 'GET', `/api/env/${bad}`), 400, 'validation_failed');
    }
  });

  it('still takes an encoded slash inside a repo parameter (org%2Frepo) and a trailing slash', async () => {
    const other = await seedEnvironment(server, 'web-app');
    expect((await send(server, 'GET', `/api/env/${other.id}/`)).status).toBe(200);
    const unlinked = await send(server, 'DELETE', `/api/env/${other.id}/repos/acme%2Fweb-app`);
    expect(unlinked.status, unlinked.text).toBe(204);
    expect(await rowsOf(server, other.id)).toEqual({ environments: 1, connections: 1, repoLinks: 0, catalog: 1 });
    expect((await send(server, 'DELETE', `/api/env/${other.id}/repos/acme%2fweb-app`)).status).toBe(404);
  });
});

describe.each(BACKENDS)('unexpected failures (%s)', (backend) => {
  let server: TestServer;
  const logged: string[] = [];
  beforeAll(async () => {
    const services = await openTestServices(backend);
    // a store that went away: every query fails inside the procedure
    await services.store.close();
    services.store = { ...services.store, close: async () => undefined };
    server = await startTestServer(services);
  });
  afterAll(() => server?.close());

  it('answer 500 in the one error shape and log what failed, without the request data', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    onTestFinished(() => spy.mockRestore());
    const rest = await send(server, 'POST', '/api/env', { json: { name: 'Sensitive Name 8812', slug: 'sensitive-slug-8812' } });
    expectOneErrorShape(rest, 500, 'internal_error');
    expect(rest.body.error.message).toBe('Internal server error');
    const trpc = await send(server, 'POST', '/trpc/env.create', { json: { name: 'Sensitive Name 8812', slug: 'sensitive-slug-8812' } });
    expect(trpc.status).toBe(500);
    expect(trpc.text).not.toMatch(NO_STACK);
    expect(trpc.text).not.toContain('8812');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    const log = logged.join('\n');
    expect(log).toContain('env.create');
    expect(log).not.toContain('8812');
    expect(log).not.toMatch(/params:/);

    // a body the parser refuses is a 400 that is not logged at all, so its text never reaches the log
    logged.length = 0;
    const malformed = await send(server, 'POST', '/api/env', { headers: { 'content-type': 'application/json' }, body: '{"name": "Body Secret 5531", ' });
    expectOneErrorShape(malformed, 400, 'malformed_json');
    expect(logged).toEqual([]);
  });
});
