// The analyzer over real HTTP: who may call it (Host, Origin, preflight), what a bad request gets,
// and a distinct, prompt answer for each way a connection can fail. Errors never depend on the
// PostgreSQL version, so one server (18) serves the whole file.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthSchema } from '../shared/analyzer-schema';
import { errorBodySchema } from '../shared/errors';
import { freePort, startPostgres, type PostgresServer } from '../test/support/postgres';
import { postSync, request, startTestAnalyzer, type HttpAnswer } from '../test/support/analyzer';

/** querytrail's one error body; a refused request body also names each refused field in issues. */
function expectError(answer: HttpAnswer, status: number, code: string): string {
  expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status, code });
  const body = errorBodySchema.parse(answer.json);
  expect(Object.keys(answer.json)).toEqual(['error']);
  expect(Object.keys(answer.json.error).sort()).toEqual(code === 'validation_failed' ? ['code', 'issues', 'message'] : ['code', 'message']);
  expect(answer.text).not.toMatch(/\n\s+at /); // no stack trace
  return body.error.message;
}

describe('analyzer HTTP interface', () => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let silent: net.Server;
  let silentPort: number;
  let silentConnections = 0;

  beforeAll(async () => {
    // A server that accepts connections and never answers: the connect timeout must end the wait.
    silent = net.createServer((socket) => {
      silentConnections++;
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as net.AddressInfo).port;
    [server, analyzer] = await Promise.all([startPostgres({ major: 18 }), startTestAnalyzer({ limits: { connectTimeoutMs: 1000 } })]);
    await server.createDatabase('app');
  }, 60_000);

  afterAll(async () => {
    await analyzer?.close();
    await server?.stop();
    silent?.close();
  });

  it('answers GET /health with status ok', async () => {
    const answer = await request(analyzer.url, { path: '/health' });
    expect(answer.status).toBe(200);
    expect(healthSchema.parse(answer.json)).toEqual({ status: 'ok' });
  });

  describe('who may call it', () => {
    it('accepts the loopback host names and refuses any other Host (DNS rebinding)', async () => {
      const port = new URL(analyzer.url).port;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
        expect((await request(analyzer.url, { path: '/health', headers: { host } })).status).toBe(200);
      }
      for (const host of [`evil.example:${port}`, 'localhost.evil.example', '127.0.0.1.nip.io']) {
        expectError(await request(analyzer.url, { path: '/health', headers: { host } }), 403, 'host_not_allowed');
      }
    });

    it('gives the web app it runs beside CORS, and refuses other origins before touching a database', async () => {
      for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000']) {
        const answer = await request(analyzer.url, { path: '/health', headers: { origin } });
        expect(answer.status).toBe(200);
        expect(answer.headers['access-control-allow-origin']).toBe(origin);
        expect(answer.headers.vary).toMatch(/Origin/);
      }
      const evil = await request(analyzer.url, { path: '/health', headers: { origin: 'https://evil.example' } });
      expectError(evil, 403, 'origin_not_allowed');
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
      // A "simple" cross-site POST needs no preflight; it must still not reach the database.
      const before = silentConnections;
      const forged = await request(analyzer.url, {
        method: 'POST',
        path: '/postgres',
        headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
        body: JSON.stringify({ db: `postgres://u:p@127.0.0.1:${silentPort}/db` }),
      });
      expectError(forged, 403, 'origin_not_allowed');
      expect(silentConnections).toBe(before);
    });

    it('answers the CORS and Private Network Access preflight for allowed origins only', async () => {
      const preflight = (origin: string) =>
        request(analyzer.url, {
          method: 'OPTIONS',
          path: '/postgres',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
            'access-control-request-private-network': 'true',
          },
        });
      const allowed = await preflight('http://localhost:3000');
      expect(allowed.status).toBe(204);
      expect(allowed.headers).toMatchObject({
        'access-control-allow-origin': 'http://localhost:3000',
        'access-control-allow-private-network': 'true',
        'access-control-allow-methods': expect.stringContaining('POST'),
        'access-control-allow-headers': expect.stringMatching(/content-type/i),
      });
      const refused = await preflight('https://evil.example');
      expect(refused.status).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      expect(refused.headers['access-control-allow-private-network']).toBeUndefined();
    });

    it('takes its origins from the web port and ANALYZER_ALLOWED_ORIGINS, and extra hosts from ANALYZER_ALLOWED_HOSTS', async () => {
      const configured = await startTestAnalyzer({
        webPort: undefined,
        env: { PORT: '4000', ANALYZER_ALLOWED_ORIGINS: 'https://app.example.com/, http://localhost:5173', ANALYZER_ALLOWED_HOSTS: 'analyzer.internal' },
      });
      try {
        const status = async (headers: Record<string, string>) => (await request(configured.url, { path: '/health', headers })).status;
        expect(await status({ origin: 'http://localhost:4000' })).toBe(200);
        expect(await status({ origin: 'https://app.example.com' })).toBe(200);
        expect(await status({ origin: 'http://localhost:5173' })).toBe(200);
        expect(await status({ origin: 'http://localhost:3000' })).toBe(403);
        expect(await status({ host: 'analyzer.internal:2345' })).toBe(200);
        expect(await status({ host: 'other.internal:2345' })).toBe(403);
      } finally {
        await configured.close();
      }
    });
  });

  describe('bad requests', () => {
    it('answers malformed JSON with 400 malformed_json', async () => {
      const answer = await request(analyzer.url, { method: 'POST', path: '/postgres', headers: { 'content-type': 'application/json' }, body: '{"db": ' });
      expectError(answer, 400, 'malformed_json');
    });

    it.each([
      [{}, /db/],
      [{ db: 42 }, /db/],
      [{ db: '' }, /must not be empty/],
      [{ db: 'mysql://root@localhost/app' }, /postgres:\/\/ or postgresql:\/\//],
      [{ db: 'postgres://localhost' }, /name a database/],
      [{ db: 'postgres://u:p@localhost:99999/app' }, /could not be parsed|port/i],
      [{ db: 'postgres://u:p@localhost/app', sampleRows: 101 }, /sampleRows/],
      [{ db: 'postgres://u:p@localhost/app', sampleRows: -1 }, /sampleRows/],
      [{ db: 'postgres://u:p@localhost/app', sampleRows: 2.5 }, /sampleRows/],
      [{ db: 'postgres://u:p@localhost/app', queryLimit: 0 }, /queryLimit/],
      [[], /object/i],
    ])('answers %j with 400 validation_failed', async (body, message) => {
      expect(expectError(await postSync(analyzer.url, body), 400, 'validation_failed')).toMatch(message);
    });

    it('wants JSON, and answers unknown paths with 404', async () => {
      const text = await request(analyzer.url, { method: 'POST', path: '/postgres', headers: { 'content-type': 'text/plain' }, body: '{}' });
      expectError(text, 415, 'unsupported_media_type');
      expectError(await request(analyzer.url, { path: '/nope' }), 404, 'not_found');
      expectError(await request(analyzer.url, { method: 'GET', path: '/postgres' }), 404, 'not_found');
    });
  });

  describe('connection failures: a distinct code each, never a hang', () => {
    it('connection refused', async () => {
      const port = await freePort();
      expectError(await postSync(analyzer.url, { db: `postgres://u:p@127.0.0.1:${port}/app` }), 502, 'connection_refused');
    });

    it('unknown host', async () => {
      expectError(await postSync(analyzer.url, { db: 'postgres://u:p@no-such-host.invalid:5432/app' }), 502, 'host_not_found');
    });

    it('TLS required but the server does not speak it', async () => {
      const message = expectError(await postSync(analyzer.url, { db: `${server.url('app')}?uselibpqcompat=true&sslmode=require` }), 502, 'tls_error');
      expect(message).toMatch(/SSL/);
    });

    it('wrong password, with the server message, and the password never logged', async () => {
      const url = server.url('app').replace('postgres:postgres@', 'postgres:S3cret-Pa55@');
      const message = expectError(await postSync(analyzer.url, { db: url }), 401, 'authentication_failed');
      expect(message).toMatch(/password authentication failed/);
      expect((await postSync(analyzer.url, { db: server.url('app') })).status).toBe(200);
      const logs = analyzer.logs.join('\n');
      expect(logs).toMatch(/authentication_failed/);
      expect(logs).not.toMatch(/S3cret-Pa55|postgres:postgres@|postgres:\/\//);
    });

    it('unknown database', async () => {
      const message = expectError(await postSync(analyzer.url, { db: server.url('missing_db') }), 404, 'database_not_found');
      expect(message).toMatch(/missing_db/);
    });

    it('a server that never answers times out promptly', async () => {
      const started = Date.now();
      expectError(await postSync(analyzer.url, { db: `postgres://u:p@127.0.0.1:${silentPort}/app` }), 504, 'timeout');
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });
});
