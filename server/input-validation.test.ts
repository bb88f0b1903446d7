// Input PostgreSQL cannot store is refused at the edge with a 400 naming the field, and changes
// nothing: NUL and lone surrogates in text, control characters in names, JSON nested beyond any
// input, numbers beyond their column, offsets PostgreSQL refuses, sums beyond bigint. Behind the
// schemas, a value the database still refuses as data answers 400 invalid_input, never 500.
// Through real HTTP, on PGlite and on PostgreSQL.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { createContext, backstoppedProcedure, router } from './trpc';
import { rowsOf } from './catalog/sql';
import { CI_LIMITS } from '../shared/ci';
import { requestJson } from '../test/support/api';

afterAll(() => stopTestPostgres());

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe.each(BACKENDS)('input the database cannot store (%s)', (backend) => {
  let server: TestServer;
  let envId: string;
  const repo = 'acme/validation';

  const api = (method: string, path: string, body?: unknown, raw?: string) =>
    requestJson(`${server.url}${path.startsWith('/trpc') ? '' : '/api'}${path}`, { method, json: body, raw });
  /** Every table's row count: a refused request leaves them all as they were. */
  const counts = async () => {
    const { db } = server.services.store;
    const tables = await rowsOf<{ name: string }>(db, sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`);
    const out: Record<string, number> = {};
    for (const { name } of tables) out[name] = (await rowsOf<{ n: number }>(db, sql.raw(`SELECT count(*)::int AS n FROM "${name}"`)))[0]!.n;
    return out;
  };
  /** 400 validation_failed naming the field (path segments are checked, and named, before any route). */
  const expect400 = (res: { status: number; body: { error: { code: string; issues?: { path: string }[] } } }, field: string, label = field) => {
    expect(res.status, label).toBe(400);
    expect(res.body.error.code, label).toBe('validation_failed');
    if (field !== '(path)')
      expect(
        res.body.error.issues?.map((i) => i.path),
        label,
      ).toContain(field);
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    envId = (await api('POST', '/env', { name: 'Validation', slug: 'validation' })).body.id;
    await api('POST', `/env/${envId}/repos`, { repo });
  });
  afterAll(() => server?.close());

  it('NUL in a path id, a query parameter or a body string: 400 naming the field, nothing stored', async () => {
    const before = await counts();
    expect400(await api('GET', '/env/%00'), '(path)');
    expect400(await api('DELETE', `/env/${envId}/connections/a%00b`), '(path)');
    expect400(await api('GET', `/env/${envId}/queries?q=%00`), 'q');
    expect400(await api('GET', '/ci/runs?repo=%00'), 'repo');
    expect400(await api('GET', '/ci/runs?environmentId=%00'), 'environmentId');
    expect400(await api('POST', '/env', { name: 'a\u0000b', slug: 'nul-name' }), 'name');
    expect400(await api('PATCH', `/env/${envId}`, { name: '\u0000' }), 'name');
    expect400(await api('POST', `/env/${envId}/connections`, { label: 'a\u0000', connectionString: 'postgres://u:p@h/db' }), 'label');
    expect400(await api('POST', `/env/${envId}/connections`, { label: 'ok', connectionString: 'postgres://u:p@h/db\u0000' }), 'connectionString');
    expect400(await api('POST', '/ci/runs', { repo, runId: 'r\u0000', queries: [] }), 'runId');
    expect400(await api('POST', '/ci/runs', { repo, runId: 'nul-query', queries: [{ query: 'SELECT 1\u0000' }] }), 'queries.0.query');
    expect400(await api('POST', `/env/${envId}/queries`, { query: 'SELECT 1 -- \u0000' }), 'query');
    expect(await counts()).toEqual(before);
  });

  it('a lone surrogate or a control character in a name is refused; SQL keeps its tabs and newlines', async () => {
    const before = await counts();
    expect400(await api('POST', '/env', { name: 'half \ud800 a pair', slug: 'surrogate' }), 'name');
    expect400(await api('POST', `/env/${envId}/queries`, { query: 'SELECT 1 -- \udc00' }), 'query');
    expect400(await api('POST', `/env/${envId}/connections`, { label: 'bell\u0007', connectionString: 'postgres://u:p@h/db' }), 'label');
    expect400(await api('POST', '/ci/runs', { repo, runId: 'two\nlines', queries: [] }), 'runId');
    expect400(await api('POST', '/ci/runs', { repo, runId: 'ok', branch: 'esc\u001b[31m', queries: [] }), 'branch');
    expect(await counts()).toEqual(before);

    const added = await api('POST', `/env/${envId}/queries`, { query: 'SELECT\tid\nFROM teams\r\nWHERE id = 1' });
    expect(added.status).toBe(201);
    expect(added.body.query).toBe('SELECT\tid\nFROM teams\r\nWHERE id = 1');
    expect((await api('POST', '/env', { name: 'Ünïcödé 🚀', slug: 'unicode' })).status).toBe(201);
  });

  it('JSON nested 10,000 deep answers 400 without being parsed, on REST and tRPC', async () => {
    const before = await counts();
    for (const [method, path, body] of [
      ['POST', '/env', `{"name": ${deep(10_000)}, "slug": "deep"}`],
      ['POST', '/env', deep(10_000)],
      ['DELETE', `/env/${envId}`, deep(10_000)],
      ['POST', '/ci/runs', `{"repo": "${repo}", "runId": "deep", "queries": [{"query": "SELECT 1", "calls": ${deep(10_000)}}]}`],
    ] as const) {
      const res = await api(method, path, undefined, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error).toEqual({ code: 'validation_failed', message: 'Request body is nested more than 32 levels deep' });
    }
    const trpc = await api('POST', '/trpc/env.create', undefined, `{"name": ${deep(10_000)}, "slug": "deep"}`);
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.data.apiCode).toBe('validation_failed');
    expect(await counts()).toEqual(before);
  });

  it('numbers beyond their column are refused; calls summed beyond bigint are held at the largest exact integer', async () => {
    const before = await counts();
    for (const pullRequest of [2147483648, 0, 1.5, '7', true, [7]]) {
      expect400(await api('POST', '/ci/runs', { repo, runId: 'pr', pullRequest, queries: [] }), 'pullRequest', JSON.stringify(pullRequest));
    }
    expect400(await api('POST', '/ci/runs', { repo, runId: 'calls', queries: [{ query: 'SELECT 1', calls: 2 ** 63 }] }), 'queries.0.calls');
    expect400(await api('POST', '/ci/runs', { repo, runId: 'mean', queries: [{ query: 'SELECT 1', meanTimeMs: 1e300 }] }), 'queries.0.meanTimeMs');
    expect400(await api('GET', `/env/${envId}/queries?offset=2147483648`), 'offset');
    expect(await counts()).toEqual(before);

    // 1,100 repeats of one fingerprint, each at the bound: the sum would overflow bigint
    const queries = Array.from({ length: 1100 }, (_, i) => ({ query: `SELECT * FROM teams WHERE id = ${i}`, calls: CI_LIMITS.maxCalls, meanTimeMs: 2 }));
    const run = await api('POST', '/ci/runs', { repo, runId: 'many-calls', queries });
    expect(run.status).toBe(201);
    const detail = await api('GET', `/ci/runs/${run.body.id}`);
    expect(detail.body.queries).toEqual([expect.objectContaining({ calls: Number.MAX_SAFE_INTEGER, meanTimeMs: 2 })]);
  });

  it('a timestamp with an offset PostgreSQL refuses is stored as the same instant in UTC; impossible dates are refused', async () => {
    const run = await api('POST', '/ci/runs', { repo, runId: 'offset', startedAt: '2026-01-01T00:00:00+23:59', queries: [] });
    expect(run.status).toBe(201);
    expect((await api('GET', `/ci/runs/${run.body.id}`)).body.startedAt).toBe('2025-12-31T00:01:00.000Z');
    const before = await counts();
    for (const startedAt of ['9999-12-31T23:59:59-23:59', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:60Z', '2026-01-01', 'now']) {
      expect400(await api('POST', '/ci/runs', { repo, runId: `date-${startedAt}`, startedAt, queries: [] }), 'startedAt', startedAt);
    }
    expect(await counts()).toEqual(before);
  });
});

describe.each(BACKENDS)('the backstop behind the schemas (%s)', (backend) => {
  it('a value the database refuses as data (SQLSTATE class 22) answers 400 invalid_input with its message, never 500', async () => {
    const services = await openTestServices(backend);
    // a procedure whose schema lets through what the database refuses, as a schema gap would
    const probe = router({
      cast: backstoppedProcedure
        .input(z.object({ text: z.string() }))
        .query(async ({ ctx, input }) => rowsOf(ctx.store.db, sql`SELECT ${input.text}::int AS n`)),
    });
    const app = express().use('/trpc', createExpressMiddleware({ router: probe, createContext: () => createContext(services) }));
    const http = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/trpc/cast?input=`;
      const ok = await fetch(url + encodeURIComponent(JSON.stringify({ text: '42' })));
      expect(((await ok.json()) as { result: { data: { n: number }[] } }).result.data).toEqual([{ n: 42 }]);
      for (const text of ['forty-two', '99999999999', 'a\u0000b']) {
        const res = await fetch(url + encodeURIComponent(JSON.stringify({ text })));
        expect(res.status, text).toBe(400);
        const body = (await res.json()) as { error: { message: string; data: { apiCode: string; stack?: string } } };
        expect(body.error.data.apiCode, text).toBe('invalid_input');
        expect(body.error.message, text).toMatch(
          /^Invalid input: (invalid input syntax for type integer|value "99999999999" is out of range|invalid byte sequence)/,
        );
        expect(body.error.data.stack).toBeUndefined();
      }
      await expect(probe.createCaller(createContext(services)).cast({ text: 'x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await services.store.close();
    }
  });
});
