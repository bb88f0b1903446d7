// CI verdicts as the API serves them, on PGlite and PostgreSQL. The analysis results are written
// straight into ci_run_analyses / ci_run_query_plans (what the background job stores), so these
// tests pin down the reading side: states, findings, baseline, acknowledgements, the runs list.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { requestJson } from '../../test/support/api';

afterAll(() => stopTestPostgres());

const H_OLD = 'a000000000000001';
const H_NEW = 'b000000000000002';
const H_PK = 'c000000000000003';

describe.each(BACKENDS)('CI run verdicts over REST (%s)', (backend) => {
  let server: TestServer;
  let envId: string;
  let seq = 0;
  const repo = 'acme/verdicts';

  const api = (method: string, path: string, body?: unknown) => requestJson(`${server.url}/api${path}`, { method, json: body });
  const exec = (query: ReturnType<typeof sql>) => server.services.store.db.execute(query);

  /** A run of the linked repository as ingestion stores it, with its queries in the catalog. */
  async function seedRun(branch: string, createdAt: string, hashes: string[]): Promise<string> {
    const id = `run_seed${++seq}`;
    await exec(sql`INSERT INTO ci_runs (id, repo, run_id, environment_id, branch, query_count, created_at)
                   VALUES (${id}, ${repo}, ${`seed-${seq}`}, ${envId}, ${branch}, ${hashes.length}, ${createdAt}::timestamptz)`);
    for (const hash of hashes) {
      const text = `SELECT /* ${hash} */ 1`;
      await exec(sql`INSERT INTO ci_run_queries (run_id, hash, query, formatted_query) VALUES (${id}, ${hash}, ${text}, ${text})`);
      await exec(sql`INSERT INTO catalog_queries (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source)
                     VALUES (${`q_${id}_${hash}`}, ${envId}, ${hash}, ${text}, ${text}, now(), now(), 'ci')
                     ON CONFLICT (environment_id, hash) DO NOTHING`);
    }
    return id;
  }

  const verdictOf = async (runId: string) => {
    const res = await api('GET', `/ci/runs/${runId}/verdict`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const listedStatus = async (runId: string) => {
    const list = await api('GET', `/ci/runs?environmentId=${envId}&limit=500`);
    return list.body.find((run: { id: string }) => run.id === runId)?.verdictStatus;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    envId = (await api('POST', '/env', { name: 'Verdicts', slug: 'verdicts' })).body.id;
    expect((await api('POST', `/env/${envId}/repos`, { repo })).status).toBe(201);
    await exec(sql`INSERT INTO production_snapshots (id, environment_id, connection_id, read_at, digest, snapshot)
                   VALUES ('snap_test', ${envId}, 'conn_test', '2026-11-20T08:00:00Z', 'digest', '{}'::jsonb)`);
  });
  afterAll(() => server?.close());

  it('is unavailable for a run of an unlinked repository, and stores the run schema it was posted with', async () => {
    const schema = {
      tables: [['public', 'orders', 'r', null]],
      columns: [['public', 'orders', 'id', 'bigint', true]],
      indexes: [['public', 'orders', 'orders_pkey', 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)', 'orders_pkey']],
    };
    const posted = await api('POST', '/ci/runs', { repo: 'acme/unlinked', runId: '1', queries: [{ query: 'SELECT 1' }], schema });
    expect(posted.status).toBe(201);
    const verdict = await verdictOf(posted.body.id);
    expect(verdict).toMatchObject({ status: 'unavailable', baseline: null, findings: [], analyzedAt: null });
    expect(verdict.reason).toContain('acme/unlinked');
    expect(verdict.reason).toContain('not linked');

    const list = await api('GET', '/ci/runs?repo=acme/unlinked');
    expect(list.body[0]).toMatchObject({ id: posted.body.id, verdictStatus: 'unavailable' });
    expect((await api('GET', `/ci/runs/${posted.body.id}`)).body.verdictStatus).toBe('unavailable');

    const stored = await exec(sql`SELECT digest, schema FROM ci_run_schemas WHERE run_id = ${posted.body.id}`);
    const [row] = (stored as unknown as { rows: { digest: string; schema: unknown }[] }).rows;
    expect(row?.schema).toEqual(schema);
    expect(row?.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 404 for an unknown run and 400 for a malformed id', async () => {
    expect((await api('GET', '/ci/runs/run_nonexistent/verdict')).status).toBe(404);
    expect((await api('GET', '/ci/runs/..%2F/verdict')).status).toBe(400);
  });

  it('is pending, with its progress, while the analysis runs; unavailable with the reason when it failed', async () => {
    const runId = await seedRun('feature/p', '2026-11-20T09:00:00Z', [H_OLD]);
    await exec(sql`INSERT INTO ci_run_analyses (run_id, status, done, total) VALUES (${runId}, 'pending', 3, 10)`);
    const pending = await verdictOf(runId);
    expect(pending).toMatchObject({ status: 'pending', findings: [], summary: { queries: 1 } });
    expect(pending.reason).toContain('3 of 10');
    expect(await listedStatus(runId)).toBe('pending');

    await exec(sql`UPDATE ci_run_analyses SET status = 'failed', reason = 'shadow server would not start' WHERE run_id = ${runId}`);
    const failed = await verdictOf(runId);
    expect(failed.status).toBe('unavailable');
    expect(failed.reason).toContain('shadow server would not start');
  });

  it('fails a new query that needs an index, passes once it is acknowledged, and fails again when its cost moves', async () => {
    const baselineId = await seedRun('main', '2026-11-20T10:00:00Z', [H_OLD]);
    const runId = await seedRun('feature/new-report', '2026-11-20T11:00:00Z', [H_OLD, H_NEW]);
    await exec(sql`INSERT INTO ci_run_analyses (run_id, status, snapshot_id, baseline_run_id, done, total, analyzed_at)
                   VALUES (${runId}, 'done', 'snap_test', ${baselineId}, 2, 2, '2026-11-20T11:00:05Z')`);
    const recommendation = {
      createIndex: 'CREATE INDEX ON public.orders USING btree (customer_id)',
      costBefore: 5000,
      costAfter: 50,
      savedPct: 99,
      totalSaved: 4950,
    };
    await exec(sql`INSERT INTO ci_run_query_plans (run_id, hash, cost, in_baseline, baseline_cost, recommendations)
                   VALUES (${runId}, ${H_OLD}, 1000, true, 1000, '[]'::jsonb),
                          (${runId}, ${H_NEW}, 5000, false, NULL, ${JSON.stringify([recommendation])}::jsonb)`);

    const verdict = await verdictOf(runId);
    expect(verdict).toMatchObject({
      status: 'fail',
      reason: null,
      baseline: { id: baselineId, runId: expect.any(String), branch: 'main', createdAt: '2026-11-20T10:00:00.000Z' },
      snapshotAt: '2026-11-20T08:00:00.000Z',
      plannedOn: 'both planned on production as of 2026-11-20T08:00:00.000Z',
      analyzedAt: '2026-11-20T11:00:05.000Z',
      policy: { comparisonBranch: 'main' },
      summary: { queries: 2, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 },
    });
    expect(verdict.findings).toEqual([
      {
        kind: 'new_query_needs_index',
        severity: 'fail',
        hash: H_NEW,
        formattedQuery: `SELECT /* ${H_NEW} */ 1`,
        cost: 5000,
        baselineCost: null,
        changePct: null,
        recommendations: [{ createIndex: recommendation.createIndex, costAfter: 50, savedPct: 99 }],
        schemaNotes: [],
        acknowledged: false,
        plan: null,
        baselinePlan: null,
        planDiff: null,
        causes: [],
        calls: null,
        baselineCalls: null,
        callSites: [],
        pairedWith: null,
      },
    ]);
    expect(await listedStatus(runId)).toBe('fail');

    // the same data gives the same verdict
    expect(await verdictOf(runId)).toEqual(verdict);

    const ack = await api('POST', `/env/${envId}/queries/${H_NEW}/acknowledge`, { note: 'Admin report, runs once a day' });
    expect(ack.status).toBe(201);
    expect(ack.body.cost).toBe(5000);
    const acknowledged = await verdictOf(runId);
    expect(acknowledged.status).toBe('pass');
    expect(acknowledged.findings).toEqual([{ ...verdict.findings[0], acknowledged: true }]);
    expect(await listedStatus(runId)).toBe('pass');

    // the policy is read at verdict time: warning about new queries needing an index shows at once
    await api('PUT', `/env/${envId}/policy`, { conditions: { new_query_needs_index: 'warn' } });
    await api('DELETE', `/env/${envId}/queries/${H_NEW}/acknowledge`);
    expect((await verdictOf(runId)).status).toBe('warn');
    await api('PUT', `/env/${envId}/policy`, { conditions: { new_query_needs_index: 'fail' } });
    await api('POST', `/env/${envId}/queries/${H_NEW}/acknowledge`, {});
    expect((await verdictOf(runId)).status).toBe('pass');

    // a cost more than 10% (the policy) away from the acknowledged one re-opens the finding
    await exec(sql`UPDATE ci_run_query_plans SET cost = 5600 WHERE run_id = ${runId} AND hash = ${H_NEW}`);
    const moved = await verdictOf(runId);
    expect(moved.status).toBe('fail');
    expect(moved.findings[0]).toMatchObject({ hash: H_NEW, cost: 5600, acknowledged: false });
  });

  it('fails a run whose schema drops an index production plans use, and names regressions against the baseline', async () => {
    const baselineId = await seedRun('main', '2026-11-21T10:00:00Z', [H_PK, H_OLD]);
    const runId = await seedRun('feature/drop-index', '2026-11-21T11:00:00Z', [H_PK, H_OLD]);
    await exec(sql`INSERT INTO ci_run_analyses (run_id, status, snapshot_id, baseline_run_id, dropped_indexes, analyzed_at)
                   VALUES (${runId}, 'done', 'snap_test', ${baselineId}, '["public.orders_pkey"]'::jsonb, now())`);
    await exec(sql`INSERT INTO ci_run_query_plans (run_id, hash, cost, in_baseline, baseline_cost, indexes_used, schema_notes)
                   VALUES (${runId}, ${H_PK}, 90000, true, 8, '["public.orders_pkey"]'::jsonb, '["public.orders_pkey is dropped by this run"]'::jsonb),
                          (${runId}, ${H_OLD}, 1000, true, 1000, '[]'::jsonb, '[]'::jsonb)`);
    const verdict = await verdictOf(runId);
    expect(verdict.status).toBe('fail');
    expect(verdict.summary).toEqual({ queries: 2, newQueries: 0, regressions: 1, needIndex: 0, lostIndex: 1 });
    expect(verdict.findings.map((f: { kind: string; hash: string }) => [f.kind, f.hash])).toEqual([
      ['cost_regression', H_PK],
      ['lost_index', H_PK],
    ]);
    expect(verdict.findings[0]).toMatchObject({ baselineCost: 8, cost: 90000, changePct: 1124900, schemaNotes: ['public.orders_pkey is dropped by this run'] });

    // a run without an earlier run of the comparison branch checks only dropped indexes
    await exec(sql`UPDATE ci_run_analyses SET baseline_run_id = NULL WHERE run_id = ${runId}`);
    const alone = await verdictOf(runId);
    expect(alone).toMatchObject({ status: 'fail', baseline: null, summary: { lostIndex: 1, regressions: 0 } });
    expect(alone.reason).toContain('No earlier run');
  });

  it('deleting the environment leaves its runs unavailable, not failing', async () => {
    const otherEnv = (await api('POST', '/env', { name: 'Gone', slug: 'gone' })).body.id as string;
    const runId = 'run_gone';
    await exec(sql`INSERT INTO ci_runs (id, repo, run_id, environment_id) VALUES (${runId}, 'acme/gone', 'g1', ${otherEnv})`);
    await exec(sql`INSERT INTO ci_run_analyses (run_id, status, analyzed_at) VALUES (${runId}, 'done', now())`);
    expect((await verdictOf(runId)).status).toBe('pass');
    expect((await api('DELETE', `/env/${otherEnv}`)).status).toBe(204);
    expect(await verdictOf(runId)).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('not linked') });
  });
});
