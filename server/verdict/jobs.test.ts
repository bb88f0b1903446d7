// A CI run's verdict analysis as it runs in the server: started by the POST of a run of a linked
// repository, planned against a real production PostgreSQL in the advisor's shadow, cached per
// (snapshot, schema, query) so that what was planned once is not planned again, and read back over
// REST. The schema differences of a run are proven in the proof tests; these are the job's mechanics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { waitForAnalysis } from '../analysis/jobs';
import { rowsOf } from '../catalog/sql';
import { waitForRunVerdict } from './jobs';
import { closeWarmShadows } from './shadows';
import { snapshotInProgress } from './snapshots';
import { requestJson } from '../../test/support/api';

const BY_ACCOUNT = 'SELECT id, created_at FROM events WHERE account_id = $1';
const BY_ID = 'SELECT * FROM events WHERE id = $1';
/** No index serves it: a new query of a pull request that needs one. */
const BY_KIND = 'SELECT id FROM events WHERE kind = $1 AND created_at > $2';
const BY_CREATED = 'SELECT count(*) FROM events WHERE created_at > $1';

let production: PostgresServer;
let productionUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  productionUrl = await production.createDatabase('app');
  await production.query(
    `CREATE TABLE events (id bigint PRIMARY KEY, account_id int NOT NULL, kind text NOT NULL, created_at timestamptz NOT NULL, payload text);
     INSERT INTO events SELECT g, g % 4000, 'kind_' || (g % 200), now() - (g || ' seconds')::interval, repeat('x', 40)
     FROM generate_series(1, 200000) g;
     CREATE INDEX events_account_idx ON events (account_id);
     ANALYZE events;`,
    [],
    'app',
  );
});
afterAll(async () => {
  await closeWarmShadows();
  await production?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('verdict analysis of CI runs (%s)', (backend) => {
  let server: TestServer;
  const repo = `acme/app-${backend}`;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);
  const post = async (runRepo: string, runId: string, branch: string, queries: string[]) => {
    const res = await api('/ci/runs', { method: 'POST', json: { repo: runRepo, runId, branch, queries: queries.map((query) => ({ query, calls: 10 })) } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const verdictOf = async (id: string) => {
    await waitForRunVerdict(id);
    const res = await api(`/ci/runs/${id}/verdict`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const environment = async (slug: string, options: { production: boolean; repo: string }) => {
    const id = (await api('/env', { method: 'POST', json: { name: slug, slug } })).body.id as string;
    if (options.production) {
      await api(`/env/${id}/connections`, { method: 'POST', json: { label: 'Primary', role: 'production', connectionString: productionUrl } });
    }
    expect((await api(`/env/${id}/repos`, { method: 'POST', json: { repo: options.repo } })).status).toBe(201);
    return id;
  };
  const cacheState = async (env: string) => {
    const [row] = await rowsOf<{ rows: number; last: string | Date | null }>(
      server.services.store.db,
      sql`SELECT count(*)::int AS rows, max(planned_at) AS last FROM query_plans WHERE environment_id = ${env}`,
    );
    return { rows: row!.rows, last: row!.last === null ? null : new Date(row!.last).toISOString() };
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
  });
  afterAll(() => server?.close());

  let env: string;

  it('gives a baseline run on main a passing verdict, and a PR adding an unindexed query a failing one with the CREATE INDEX', async () => {
    env = await environment(`verdict-${backend}`, { production: true, repo });
    const mainRun = await post(repo, '1', 'main', [BY_ACCOUNT, BY_ID]);
    // the 201 came before the analysis: the run already has a verdict to wait for, not "not linked"
    const early = (await api(`/ci/runs/${mainRun}/verdict`)).body;
    expect(['pending', 'pass']).toContain(early.status);

    const main = await verdictOf(mainRun);
    expect(main).toMatchObject({ status: 'pass', baseline: null, summary: { queries: 2 } });
    expect(main.snapshotAt).toBeTruthy();
    expect(main.analyzedAt).toBeTruthy();

    const prRun = await post(repo, '2', 'feature/by-kind', [BY_ACCOUNT, BY_ID, BY_KIND]);
    const pr = await verdictOf(prRun);
    expect(pr.status).toBe('fail');
    expect(pr.baseline).toMatchObject({ id: mainRun, branch: 'main' });
    expect(pr.summary).toMatchObject({ queries: 3, newQueries: 1, needIndex: 1, regressions: 0 });
    const finding = pr.findings.find((f: { kind: string }) => f.kind === 'new_query_needs_index');
    expect(finding).toMatchObject({ severity: 'fail', acknowledged: false, baselineCost: null });
    expect(finding.formattedQuery).toContain('kind');
    expect(finding.cost).toBeGreaterThan(1000);
    expect(finding.recommendations[0].createIndex).toMatch(/^CREATE INDEX ON public\.events .*\bkind\b/);
    expect(finding.recommendations[0].costAfter).toBeLessThan(finding.cost);
    expect(finding.recommendations[0].savedPct).toBeGreaterThan(30);
    // the queries main had are neither new nor costlier: same snapshot, same schema, same cost
    expect(pr.findings.filter((f: { kind: string }) => f.kind !== 'new_query_needs_index')).toEqual([]);
  });

  it('plans nothing again for a run whose queries were all planned against the current snapshot', async () => {
    const before = await cacheState(env);
    expect(before.rows).toBe(3);
    const again = await post(repo, '3', 'feature/by-kind', [BY_KIND, BY_ID, BY_ACCOUNT]);
    const verdict = await verdictOf(again);
    expect(verdict.status).toBe('fail');
    expect(verdict.findings.map((f: { kind: string }) => f.kind)).toEqual(['new_query_needs_index']);
    expect(await cacheState(env)).toEqual(before);

    // a run with one more query plans that one only
    const more = await post(repo, '4', 'feature/by-kind', [BY_KIND, BY_ID, BY_ACCOUNT, BY_CREATED]);
    expect((await verdictOf(more)).summary).toMatchObject({ queries: 4, newQueries: 2 });
    const after = await cacheState(env);
    expect(after.rows).toBe(4);
  });

  it('lets Analyze reuse the cache and still rank the indexes over the catalog', async () => {
    const before = await cacheState(env);
    const started = await api(`/env/${env}/analyze`, { method: 'POST' });
    expect(started.status).toBe(202);
    await waitForAnalysis(started.body.id);
    const analysis = (await api(`/env/${env}/analyze`)).body;
    expect(analysis).toMatchObject({ status: 'done', queryCount: 4, error: null });
    // every catalog query came from a run already planned on this snapshot: nothing was planned
    expect(await cacheState(env)).toEqual(before);
    const kindIndex = analysis.indexes.find((i: { columns: string[] }) => i.columns.includes('kind'));
    expect(kindIndex.createIndex).toMatch(/CREATE INDEX ON public\.events/);
    // weighted by the catalog's calls, not the run's
    expect(kindIndex.totalSaved).toBeGreaterThan(0);
    const catalog = (await api(`/env/${env}/queries`)).body as { formattedQuery: string; cost: number | null; recommendationCount: number }[];
    expect(catalog.find((q) => q.formattedQuery.includes('kind'))?.recommendationCount).toBeGreaterThan(0);
    expect(catalog.every((q) => q.cost !== null)).toBe(true);
  });

  it('reads production again on demand: unchanged, the cache stays; changed, queries are planned anew', async () => {
    const before = await cacheState(env);
    const refresh = async () => {
      const res = await api(`/env/${env}/snapshot`, { method: 'POST' });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ environmentId: env, refreshing: true, current: { id: expect.stringMatching(/^snap_/) } });
      await snapshotInProgress(env);
      return res.body.current.id as string;
    };
    const first = await refresh();
    const unchanged = await verdictOf(await post(repo, '5', 'feature/by-kind', [BY_KIND, BY_ID, BY_ACCOUNT]));
    expect(unchanged.status).toBe('fail');
    expect(await refresh()).toBe(first);
    expect((await cacheState(env)).rows).toBe(before.rows);

    await production.query(
      `INSERT INTO events SELECT m + g, g % 4000, 'kind_' || (g % 200), now(), NULL FROM (SELECT max(id) AS m FROM events) x, generate_series(1, 20000) g;
       ANALYZE events;`,
      [],
      'app',
    );
    await refresh();
    const changed = await verdictOf(await post(repo, '6', 'feature/by-kind', [BY_KIND, BY_ID, BY_ACCOUNT]));
    expect(changed.status).toBe('fail');
    expect(new Date(changed.snapshotAt).getTime()).toBeGreaterThan(new Date(unchanged.snapshotAt).getTime());
    expect((await cacheState(env)).rows).toBe(before.rows + 3);

    expect((await api('/env/env_unknown0000000/snapshot', { method: 'POST' })).status).toBe(404);
  });

  it('answers unavailable, with the reason, for an environment without a production connection', async () => {
    const otherRepo = `acme/no-prod-${backend}`;
    const noProd = await environment(`no-prod-${backend}`, { production: false, repo: otherRepo });
    const run = await post(otherRepo, '1', 'main', [BY_ID]);
    const verdict = await verdictOf(run);
    expect(verdict.status).toBe('unavailable');
    expect(verdict.reason).toMatch(/no connection with role production/);
    const refresh = await api(`/env/${noProd}/snapshot`, { method: 'POST' });
    expect(refresh.status).toBe(409);
  });

  it('gives two runs posted at once each its verdict', async () => {
    const pairRepo = `acme/pair-${backend}`;
    await environment(`pair-${backend}`, { production: true, repo: pairRepo });
    const [a, b] = await Promise.all([post(pairRepo, '1', 'feature/a', [BY_ID, BY_KIND]), post(pairRepo, '2', 'feature/b', [BY_ACCOUNT, BY_CREATED])]);
    const [va, vb] = await Promise.all([verdictOf(a), verdictOf(b)]);
    // neither has a main run before it: only lost indexes count, and none were dropped
    expect(va).toMatchObject({ status: 'pass', baseline: null, summary: { queries: 2 } });
    expect(vb).toMatchObject({ status: 'pass', baseline: null, summary: { queries: 2 } });
    // one read of production served both
    const [snapshots] = await rowsOf<{ n: number }>(
      server.services.store.db,
      sql`SELECT count(*)::int AS n FROM production_snapshots s JOIN environments e ON e.id = s.environment_id WHERE e.slug = ${`pair-${backend}`}`,
    );
    expect(snapshots!.n).toBe(1);
  });
});
