// The CI verdict policy and acknowledged queries through real HTTP, on PGlite and PostgreSQL.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../shared/policy';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { requestJson } from '../test/support/api';

afterAll(() => stopTestPostgres());

describe.each(BACKENDS)('policy and acknowledgements over REST (%s)', (backend) => {
  let server: TestServer;

  const api = (method: string, path: string, body?: unknown) => requestJson(`${server.url}/api${path}`, { method, json: body });
  const createEnv = async (slug: string) => {
    const res = await api('POST', '/env', { name: slug, slug });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
  });
  afterAll(() => server?.close());

  it('starts every environment with the default policy', async () => {
    const envId = await createEnv('defaults');
    const res = await api('GET', `/env/${envId}/policy`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      comparisonBranch: 'main',
      costRegressionPct: 10,
      minCost: 100,
      minSavedPct: 30,
      callRatio: 3,
      minCalls: 50,
      conditions: {
        cost_regression: 'fail',
        new_query_needs_index: 'fail',
        lost_index: 'fail',
        changed_query: 'warn',
        new_query: 'warn',
        call_count_regression: 'warn',
      },
      ignoredHashes: [],
      ignoredCallSites: [],
    });
    expect(res.body).toEqual(DEFAULT_POLICY);
  });

  it('merges a partial update: fields left out and other conditions keep their values', async () => {
    const envId = await createEnv('partial');
    const first = await api('PUT', `/env/${envId}/policy`, { costRegressionPct: 25, conditions: { new_query: 'fail' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...DEFAULT_POLICY, costRegressionPct: 25, conditions: { ...DEFAULT_POLICY.conditions, new_query: 'fail' } });

    const second = await api('PUT', `/env/${envId}/policy`, {
      comparisonBranch: 'release/2.x',
      conditions: { lost_index: 'warn' },
      ignoredHashes: ['ABCDEF0123456789', 'abcdef0123456789', '0000000000000001'],
    });
    const expected = {
      ...DEFAULT_POLICY,
      comparisonBranch: 'release/2.x',
      costRegressionPct: 25,
      conditions: { ...DEFAULT_POLICY.conditions, new_query: 'fail', lost_index: 'warn' },
      ignoredHashes: ['0000000000000001', 'abcdef0123456789'],
    };
    expect(second.body).toEqual(expected);
    expect((await api('GET', `/env/${envId}/policy`)).body).toEqual(expected);

    // an empty update changes nothing
    expect((await api('PUT', `/env/${envId}/policy`, {})).body).toEqual(expected);
  });

  it('refuses bad values with 400 naming the field, and changes nothing', async () => {
    const envId = await createEnv('refusals');
    await api('PUT', `/env/${envId}/policy`, { minCost: 500 });
    const before = (await api('GET', `/env/${envId}/policy`)).body;
    const bad: [unknown, string][] = [
      [{ conditions: { new_query: 'maybe' } }, 'conditions.new_query'],
      [{ minCost: -1 }, 'minCost'],
      [{ comparisonBranch: 'ma\u0000in' }, 'comparisonBranch'],
      [{ comparisonBranch: 'a..b' }, 'comparisonBranch'],
      [{ minSavedPct: 101 }, 'minSavedPct'],
      [{ costRegressionPct: '10' }, 'costRegressionPct'],
      [{ ignoredHashes: ['not-a-hash'] }, 'ignoredHashes.0'],
      [{ minCost: 1, colour: 'red' }, ''],
      [{ conditions: { slow_query: 'fail' } }, 'conditions'],
    ];
    for (const [body, path] of bad) {
      const res = await api('PUT', `/env/${envId}/policy`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      if (path) expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect((await api('GET', `/env/${envId}/policy`)).body).toEqual(before);
  });

  it('reads a stored field that the current rules refuse as its default, keeping the others', async () => {
    const envId = await createEnv('stored-policy');
    const stored = JSON.stringify({ minCost: 7, minSavedPct: 250, conditions: { new_query: 'fail' } });
    await server.services.store.db.execute(sql`UPDATE environments SET policy = ${stored}::jsonb WHERE id = ${envId}`);
    const res = await api('GET', `/env/${envId}/policy`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULT_POLICY, minCost: 7, conditions: { ...DEFAULT_POLICY.conditions, new_query: 'fail' } });
  });

  it('answers 404 for the policy of an unknown environment', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { minCost: 1 }],
    ] as const) {
      const res = await api(method, '/env/env_nonexistent/policy', body);
      expect(res.status, method).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await api('GET', '/env/env_nonexistent/acknowledgements')).status).toBe(404);
  });

  it('acknowledges a query, replaces the acknowledgement, lists it and undoes it', async () => {
    const envId = await createEnv('acks');
    const added = await api('POST', `/env/${envId}/queries`, { query: 'SELECT * FROM orders WHERE customer_id = 1' });
    expect(added.status).toBe(201);
    const hash = added.body.hash as string;

    expect((await api('GET', `/env/${envId}/acknowledgements`)).body).toEqual([]);
    const first = await api('POST', `/env/${envId}/queries/${hash}/acknowledge`, { note: '  Reporting query, runs nightly.\r\nFine.  ' });
    expect(first.status).toBe(201);
    // never analyzed: its cost is unknown
    expect(first.body).toEqual({
      hash,
      note: 'Reporting query, runs nightly.\nFine.',
      cost: null,
      acknowledgedAt: expect.any(String),
      acknowledgedBy: 'local',
    });
    expect(new Date(first.body.acknowledgedAt).toISOString()).toBe(first.body.acknowledgedAt);

    const replaced = await api('POST', `/env/${envId}/queries/${hash.toUpperCase()}/acknowledge`, {});
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ hash, note: null });

    const list = await api('GET', `/env/${envId}/acknowledgements`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([replaced.body]);

    const undo = await api('DELETE', `/env/${envId}/queries/${hash}/acknowledge`);
    expect(undo.status).toBe(204);
    expect(undo.text).toBe('');
    expect((await api('GET', `/env/${envId}/acknowledgements`)).body).toEqual([]);
    const again = await api('DELETE', `/env/${envId}/queries/${hash}/acknowledge`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('Acknowledgement') });
  });

  it('refuses bad hashes and notes with 400, and unknown queries and environments with 404', async () => {
    const envId = await createEnv('ack-refusals');
    const hash = (await api('POST', `/env/${envId}/queries`, { query: 'SELECT 1 FROM accounts' })).body.hash as string;

    for (const bad of ['xyz', '123', `${hash}0`, '%00']) {
      const res = await api('POST', `/env/${envId}/queries/${bad}/acknowledge`, {});
      expect(res.status, bad).toBe(400);
      // a NUL in the path is refused before the input is read
      if (bad !== '%00') expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain('hash');
      expect((await api('DELETE', `/env/${envId}/queries/${bad}/acknowledge`)).status, bad).toBe(400);
    }
    for (const note of ['a\u0000b', 'one\n\ntwo', 'x'.repeat(2001), 42]) {
      const res = await api('POST', `/env/${envId}/queries/${hash}/acknowledge`, { note });
      expect(res.status, String(note).slice(0, 20)).toBe(400);
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain('note');
    }
    expect((await api('GET', `/env/${envId}/acknowledgements`)).body).toEqual([]);

    const unknownQuery = await api('POST', `/env/${envId}/queries/0123456789abcdef/acknowledge`, {});
    expect(unknownQuery.status).toBe(404);
    expect(unknownQuery.body.error.message).toContain('0123456789abcdef');
    expect((await api('POST', `/env/env_nonexistent/queries/${hash}/acknowledge`, {})).body.error.message).toContain('Environment');
    expect((await api('DELETE', `/env/env_nonexistent/queries/${hash}/acknowledge`)).status).toBe(404);
  });
});
