// A query that does not parse never becomes a catalog entry. libpg_query's fingerprint call answers
// some parse errors (an unterminated quote, comment or dollar quote, nesting too deep for the
// parser) with the error message in place of a hash; stored as such, unrelated broken queries
// shared one entry and its ciRunCount. Through the real HTTP API, on PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { fingerprintQuery, formatQuery, QueryParseError } from '../../shared/sql-fingerprint';
import { requestJson } from '../../test/support/api';

afterAll(() => stopTestPostgres());

const NESTED = `SELECT ${'('.repeat(10_000)}1${')'.repeat(10_000)}`;
/** Each text with what the parser says about it. */
const BROKEN: [string, RegExp][] = [
  ["SELECT 'abc", /unterminated quoted string/],
  ['SELECT 1 /* open', /unterminated \/\* comment/],
  ['SELECT $$x', /unterminated dollar-quoted string/],
  [NESTED, /memory exhausted|stack depth/],
  ["SELECT 'x", /unterminated quoted string/],
  ['SELEC 1', /syntax error/],
  [';', /no SQL statement/],
  ['-- only a comment', /no SQL statement/],
  ['   ', /empty/],
];

describe('fingerprints', () => {
  it('are 16 hexadecimal digits, and every text that does not parse to a statement throws instead', async () => {
    expect((await fingerprintQuery('SELECT * FROM users WHERE id = 1')).hash).toMatch(/^[0-9a-f]{16}$/);
    for (const [text, reason] of BROKEN) {
      await expect(fingerprintQuery(text), text.slice(0, 40)).rejects.toThrow(QueryParseError);
      await expect(fingerprintQuery(text), text.slice(0, 40)).rejects.toThrow(reason);
    }
    // the formatter does not show an error message as the formatted query either
    await expect(formatQuery("SELECT 'abc")).rejects.toThrow(/unterminated quoted string/);
  });
});

describe.each(BACKENDS)('unparseable queries through the API (%s)', (backend) => {
  let server: TestServer;
  let envId: string;
  const repo = 'acme/parse-errors';

  const api = (method: string, path: string, body?: unknown) => requestJson(`${server.url}/api${path}`, { method, json: body });
  const catalog = async () => (await api('GET', `/env/${envId}/queries`)).body as { hash: string; ciRunCount: number; formattedQuery: string }[];

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    envId = (await api('POST', '/env', { name: 'Parse errors', slug: 'parse-errors' })).body.id;
    await api('POST', `/env/${envId}/repos`, { repo });
  });
  afterAll(() => server?.close());

  it('CI ingestion lists every unparseable query in rejected with the parser message, and catalogues none of them', async () => {
    const first = await api('POST', '/ci/runs', {
      repo,
      runId: 'broken-1',
      queries: [...BROKEN.map(([query]) => ({ query })), { query: 'SELECT id FROM teams WHERE id = 1' }],
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ queryCount: 1, newQueryCount: 1 });
    expect(first.body.rejected.map((r: { index: number }) => r.index)).toEqual(BROKEN.map((_, i) => i));
    BROKEN.forEach(([, reason], i) => expect(first.body.rejected[i].reason).toMatch(reason));

    // other broken texts in a second run: still one entry, counted once per run
    const second = await api('POST', '/ci/runs', {
      repo,
      runId: 'broken-2',
      queries: [{ query: 'SELECT 2 /* also open' }, { query: "SELECT 'other" }, { query: 'SELECT id FROM teams WHERE id = 2' }],
    });
    expect(second.body).toMatchObject({ queryCount: 1, newQueryCount: 0, rejected: [{ index: 0 }, { index: 1 }] });
    const entries = await catalog();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{16}$/), ciRunCount: 2 });
    expect(entries[0]!.formattedQuery).toContain('teams');

    const stored = await api('GET', `/ci/runs/${first.body.id}`);
    expect(stored.body.rejected).toEqual(first.body.rejected);
    expect(stored.body.queries).toHaveLength(1);
  });

  it('a query added by hand that does not parse answers 400 naming the query, with or without a hash, and adds nothing', async () => {
    const before = await catalog();
    for (const [query, reason] of BROKEN) {
      for (const hash of [undefined, '0123456789abcdef']) {
        const res = await api('POST', `/env/${envId}/queries`, { query, hash });
        expect(res.status, query.slice(0, 40)).toBe(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.issues).toEqual([{ path: 'query', message: expect.stringMatching(reason) }]);
      }
    }
    expect(await catalog()).toEqual(before);
    const added = await api('POST', `/env/${envId}/queries`, { query: 'SELECT name FROM teams WHERE id = 1' });
    expect(added.status).toBe(201);
    expect(added.body.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses a hash that is not a fingerprint, and finds one written in capitals', async () => {
    const run = await api('POST', '/ci/runs', {
      repo,
      runId: 'bad-hash',
      queries: [{ query: "SELECT 'x", hash: 'unterminated quoted string at or near "\'x"' }],
    });
    expect(run.status).toBe(400);
    expect(run.body.error.issues[0].path).toBe('queries.0.hash');
    for (const hash of ['abc', 'client-hash-1', '0123456789abcdeg', '0123456789abcdef0']) {
      expect((await api('POST', `/env/${envId}/queries`, { query: 'SELECT 1', hash })).status, hash).toBe(400);
      expect((await api('GET', `/env/${envId}/queries/${hash}`)).status, hash).toBe(400);
    }
    const [entry] = await catalog();
    const read = await api('GET', `/env/${envId}/queries/${entry!.hash.toUpperCase()}`);
    expect(read.status).toBe(200);
    expect(read.body.hash).toBe(entry!.hash);
  });
});
