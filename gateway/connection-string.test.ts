// Connection strings are checked against an allow-list without touching the filesystem: a
// parameter naming a file (a FIFO that would block the process, /dev/zero that would fill its
// memory) is refused with 400 by the server's API and by the analyzer, before anything is opened,
// with one message whether the file exists or not.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectionString } from '../shared/connection-string';
import { parsePostgresUrl } from '../shared/validation';
import { request, startTestAnalyzer } from '../test/support/analyzer';
import { openTestServices, startTestServer, type TestServer } from '../test/support/services';
import { GatewayError, openGateway } from './index';
import { requestJson } from '../test/support/api';

const BASE = 'postgresql://app:s3cret@db.example.com:6543/shop';

function refusal(value: string): string {
  const result = parseConnectionString(value);
  if (result.ok) throw new Error(`expected ${value} to be refused`);
  return result.message;
}

describe('the connection-string allow-list', () => {
  it('accepts host, port, user, password, database and the TLS mode, and reads them like the driver', () => {
    expect(parseConnectionString(BASE)).toEqual({
      ok: true,
      value: { host: 'db.example.com', port: 6543, database: 'shop', user: 'app', password: 's3cret', tls: 'disable' },
    });
    expect(parseConnectionString('postgres://u:p%40ss%2Fw@[::1]/my%20db?sslmode=verify-full&connect_timeout=5&application_name=x')).toEqual({
      ok: true,
      value: { host: '::1', port: 5432, database: 'my db', user: 'u', password: 'p@ss/w', tls: 'verify-full', connectTimeoutSeconds: 5 },
    });
    const tls = (query: string) => {
      const result = parseConnectionString(`${BASE}?${query}`);
      return result.ok ? result.value.tls : result.message;
    };
    expect(tls('sslmode=disable')).toBe('disable');
    expect(tls('sslmode=require')).toBe('verify-full'); // the pg driver's reading
    expect(tls('uselibpqcompat=true&sslmode=require')).toBe('no-verify'); // libpq's reading
    expect(tls('sslmode=no-verify')).toBe('no-verify');
    expect(tls('ssl=true')).toBe('verify-full');
    expect(tls('uselibpqcompat=true&sslmode=verify-ca')).toMatch(/needs a CA file/);
  });

  it.each(['sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'sslcrl', 'passfile', 'service'])('refuses %s as a file parameter', (name) => {
    expect(refusal(`${BASE}?${name}=/etc/passwd`)).toBe(refusal(`${BASE}?${name}=/no/such/file`));
    expect(refusal(`${BASE}?${name}=/etc/passwd`)).toMatch(new RegExp(`"${name}" is not accepted: querytrail never reads files`));
  });

  it.each([
    ['options=-c%20default_transaction_read_only%3Doff', /"options" is not accepted: querytrail sets the session's options itself/],
    ['replication=database', /"replication" is not accepted/],
    ['host=/var/run/postgresql', /"host" is not accepted: give the host in the URL itself/],
    ['password=x', /"password" is not accepted/],
    ['client_encoding=SQL_ASCII', /"client_encoding" is not accepted/],
    ['target_session_attrs=any', /"target_session_attrs" is not accepted/],
    ['sslmode=require&sslmode=disable', /given twice/],
    ['sslmode=bogus', /sslmode must be one of/],
    ['connect_timeout=soon', /whole number of seconds/],
  ])('refuses ?%s', (query, message) => {
    expect(refusal(`${BASE}?${query}`)).toMatch(message);
  });

  it.each([
    ['mysql://u@h/db', /must start with postgres:\/\//],
    ['postgres://u:p@h', /must name a database/],
    ['postgres://u:p@h:99999/db', /could not be parsed/],
    ['postgres://u:p@%2Fvar%2Frun%2Fpostgresql/db', /Unix socket paths and lists of hosts are not accepted/],
    ['postgres://u:p@a,b/db', /Unix socket paths and lists of hosts are not accepted/],
    ['postgres://u:p%zz@h/db', /invalid percent-encoding/],
    ['postgres://u:p@h/db%00x', /control character/],
  ])('refuses %s', (value, message) => {
    expect(refusal(value)).toMatch(message);
  });

  it('is the check the shared zod schemas and the gateway use', () => {
    expect(parsePostgresUrl(`${BASE}?sslkey=/dev/zero`)).toEqual({ ok: false, message: refusal(`${BASE}?sslkey=/dev/zero`) });
    expect(parsePostgresUrl(BASE)).toEqual({ ok: true, value: { host: 'db.example.com', port: 6543, database: 'shop', user: 'app' } });
    expect(() => openGateway(`${BASE}?sslrootcert=/dev/zero`)).toThrow(GatewayError);
    expect(() => openGateway(`${BASE}?sslrootcert=/dev/zero`)).toThrow(/"sslrootcert" is not accepted/);
  });
});

describe('file parameters over HTTP: refused with 400 before anything reads them', () => {
  let dir: string;
  let fifo: string;
  let server: TestServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let envId: string;

  const api = (method: string, urlPath: string, body: unknown) =>
    requestJson<{ id?: string; error?: { code: string; message: string; issues?: { message: string }[] } }>(`${server.url}/api${urlPath}`, {
      method,
      json: body,
    });
  const attempts = () => [`${BASE}?sslrootcert=${encodeURIComponent(fifo)}`, `${BASE}?sslkey=/dev/zero`, `${BASE}?sslcert=/dev/zero&sslmode=require`];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'qt-fifo-'));
    fifo = path.join(dir, 'ca.pem');
    // A reader of this file blocks until a writer comes, which never happens.
    execFileSync('mkfifo', [fifo]);
    [server, analyzer] = await Promise.all([openTestServices('pglite').then((services) => startTestServer(services)), startTestAnalyzer()]);
    envId = (await api('POST', '/env', { name: 'Files', slug: 'files' })).body.id!;
  });
  afterAll(async () => {
    await Promise.all([server?.close(), analyzer?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the server API answers POST /api/env/{id}/connections with 400 and stores nothing', async () => {
    for (const connectionString of attempts()) {
      const answer = await api('POST', `/env/${envId}/connections`, { label: 'primary', role: 'production', connectionString });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body.error)).toMatch(/is not accepted: querytrail never reads files/);
    }
    const env = await fetch(`${server.url}/api/env/${envId}`).then((r) => r.json() as Promise<{ connections: unknown[] }>);
    expect(env.connections).toEqual([]);
  });

  it('the analyzer answers POST /postgres and POST /postgres/analyze with 400 validation_failed', async () => {
    for (const db of attempts()) {
      for (const route of ['/postgres', '/postgres/analyze']) {
        const answer = await request(analyzer.url, {
          method: 'POST',
          path: route,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ db }),
        });
        expect(answer.status).toBe(400);
        expect(answer.json.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/is not accepted: querytrail never reads files/) });
      }
    }
  });

  it('gives the same answer whether the file exists or not, so it tells nothing about the machine', async () => {
    const answers = [];
    for (const file of [fifo, '/dev/zero', '/etc/passwd', path.join(dir, 'missing.pem'), '/no/such/dir/ca.pem']) {
      const db = `${BASE}?sslrootcert=${encodeURIComponent(file)}`;
      const viaAnalyzer = await request(analyzer.url, {
        method: 'POST',
        path: '/postgres',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ db }),
      });
      const viaServer = await api('POST', `/env/${envId}/connections`, { label: 'x', role: 'other', connectionString: db });
      answers.push(JSON.stringify([viaAnalyzer.status, viaAnalyzer.json, viaServer.status, viaServer.body]));
    }
    expect(new Set(answers).size).toBe(1);
  });
});
