// "Analyze" end to end: a real production PostgreSQL with data, its statistics planned in the
// advisor's shadow server, results in the catalog, on the query and on CI runs; over REST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BY_CUSTOMER, BY_ID, REFUNDS, createShopDatabase } from '../../test/support/shop';
import { waitForAnalysis } from './jobs';
import { snapshotInProgress } from '../verdict/snapshots';
import { requestJson } from '../../test/support/api';
import { expectSavingCurve } from '../../test/support/saving-curve';

let production: PostgresServer;
let productionUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  productionUrl = await createShopDatabase(production);
});
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('query analysis with production statistics (%s)', (backend) => {
  let server: TestServer;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);
  const analyze = async (env: string) => {
    const started = await api(`/env/${env}/analyze`, { method: 'POST' });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('running');
    await waitForAnalysis(started.body.id);
    const latest = await api(`/env/${env}/analyze`);
    expect(latest.body.id).toBe(started.body.id);
    return latest.body;
  };
  const ingest = async (runId: string, branch: string, queries: string[]) => {
    const res = await api('/ci/runs', { method: 'POST', json: { repo: `acme/shop-${backend}`, runId, branch, queries: queries.map((query) => ({ query })) } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
  });
  afterAll(() => server?.close());

  it('needs a production connection, and says so', async () => {
    const { body } = await api('/env', { method: 'POST', json: { name: 'No prod', slug: 'no-prod' } });
    await api(`/env/${body.id}/connections`, { method: 'POST', json: { label: 'ci', role: 'ci', connectionString: productionUrl } });
    const res = await api(`/env/${body.id}/analyze`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('production');
    expect((await api(`/env/${body.id}/analyze`)).status).toBe(404);
    expect((await api('/env/env_unknown/analyze', { method: 'POST' })).status).toBe(404);
  });

  it('reports a production database it cannot reach as a failed analysis, without the password', async () => {
    const { body } = await api('/env', { method: 'POST', json: { name: 'Down', slug: 'down' } });
    await api(`/env/${body.id}/connections`, {
      method: 'POST',
      json: { label: 'prod', role: 'production', connectionString: 'postgres://app:hunter2-secret@127.0.0.1:1/shop' },
    });
    await api(`/env/${body.id}/queries`, { method: 'POST', json: { query: BY_ID } });
    const result = await analyze(body.id);
    expect(result.status).toBe('failed');
    expect(result.error).toBeTruthy();
    expect(JSON.stringify(result)).not.toContain('hunter2-secret');
  });

  it('plans every catalog query, recommends the missing index, and flags CI runs that changed', async () => {
    const env = (await api('/env', { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id as string;
    await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'Primary', role: 'production', connectionString: productionUrl } });
    await api(`/env/${env}/repos`, { method: 'POST', json: { repo: `acme/shop-${backend}` } });
    const mainRun = await ingest('1', 'main', [BY_CUSTOMER, BY_ID]);
    // typed by hand with a literal id: the literal must not become a partial index for one customer
    const literal = (await api(`/env/${env}/queries`, { method: 'POST', json: { query: 'SELECT id FROM orders WHERE customer_id = 42' } })).body;

    const result = await analyze(env);
    expect(result).toMatchObject({ status: 'done', queryCount: 3, connectionLabel: 'Primary', error: null });
    const literalRecs = (await api(`/env/${env}/queries/${literal.hash}/analysis`)).body.recommendations;
    expect(literalRecs.length).toBeGreaterThan(0);
    expect(literalRecs.every((r: { predicate: string | null }) => r.predicate === null)).toBe(true);
    const index = result.indexes.find((i: { table: string; columns: string[] }) => i.columns[0] === 'customer_id');
    expect(index?.createIndex).toMatch(/CREATE INDEX .*orders.*customer_id/i);
    // the choice's saving curve, with the point it stopped at: the indexes answered
    expectSavingCurve(result.savingCurve, result.stopReason);
    const chosen = result.savingCurve[result.stopReason.indexes];
    expect(result.indexes.reduce((n: number, i: { estimatedBytes: number }) => n + i.estimatedBytes, 0)).toBe(chosen.bytes);

    // the catalog shows each query's cost, and which ones an index would help
    const catalog = (await api(`/env/${env}/queries`)).body as { hash: string; formattedQuery: string; cost: number; recommendationCount: number }[];
    const byCustomer = catalog.find((q) => q.formattedQuery.includes('ORDER BY'))!;
    const byId = catalog.find((q) => q.formattedQuery.includes('*'))!;
    expect(byCustomer.cost).toBeGreaterThan(byId.cost);
    expect(byCustomer.recommendationCount).toBeGreaterThanOrEqual(1);
    expect(byId.recommendationCount).toBe(0);

    // the query's page: production's plan, the plan with the index, and what it saves
    const detail = (await api(`/env/${env}/queries/${byCustomer.hash}/analysis`)).body;
    expect(JSON.stringify(detail.plan)).toContain('Seq Scan');
    expect(JSON.stringify(detail.planAfter)).toMatch(/Index Scan|Bitmap/);
    // the plan names the recommended index by what it is, not by the shadow's scratch name
    expect(JSON.stringify(detail.planAfter)).toContain('recommended: public.orders');
    expect(JSON.stringify(detail.planAfter)).not.toContain('qt_candidate');
    const rec = detail.recommendations[0];
    expect(rec.costAfter).toBeLessThan(rec.costBefore);
    expect(rec.savedPct).toBeGreaterThan(10);
    expect((await api(`/env/${env}/queries/${byId.hash}/analysis`)).body.recommendations).toEqual([]);
    expect((await api(`/env/${env}/queries/00000000deadbeef/analysis`)).status).toBe(404);
    expect((await api(`/env/${env}/queries/nohash/analysis`)).status).toBe(400); // not a fingerprint

    // the run stored before the analysis learned its costs; with no earlier run, its helped query is flagged
    const first = (await api(`/ci/runs/${mainRun}/analysis`)).body;
    expect(first.baseline).toBeNull();
    expect(first.queries.find((q: { hash: string }) => q.hash === byCustomer.hash)).toMatchObject({ change: 'gained_recommendation' });
    expect(first.queries.find((q: { hash: string }) => q.hash === byId.hash)).toMatchObject({ change: null, cost: byId.cost });

    // a feature branch adds a query; compared with main it is new, and after analysis it gains a recommendation
    const featureRun = await ingest('2', 'feature/refunds', [BY_CUSTOMER, BY_ID, REFUNDS]);
    const before = (await api(`/ci/runs/${featureRun}/analysis`)).body;
    expect(before.baseline).toMatchObject({ id: mainRun, branch: 'main' });
    const refunds = before.queries.find((q: { formattedQuery: string }) => q.formattedQuery.includes('refunded') || q.formattedQuery.includes('status'));
    expect(refunds).toMatchObject({ change: 'new_query', cost: null });
    // the customer query was helped already in the baseline: no news
    expect(before.queries.find((q: { hash: string }) => q.hash === byCustomer.hash).change).toBeNull();

    await analyze(env);
    const after = (await api(`/ci/runs/${featureRun}/analysis`)).body;
    expect(after.queries.find((q: { hash: string }) => q.hash === refunds.hash)).toMatchObject({ change: 'gained_recommendation' });

    // production grows tenfold: a later main run's costs rise above the first run's
    await production.query(
      `INSERT INTO orders SELECT g, g % 5000, 'paid', now() - (g || ' minutes')::interval, g % 10000 FROM generate_series(20001, 200000) g; ANALYZE orders;`,
      [],
      'shop',
    );
    // Analyze plans against the current snapshot of production; a change there is read on demand
    const refreshed = await api(`/env/${env}/snapshot`, { method: 'POST' });
    expect(refreshed.status).toBe(202);
    await snapshotInProgress(env);
    await analyze(env);
    const grown = await ingest('3', 'main', [BY_CUSTOMER, BY_ID]);
    const rose = (await api(`/ci/runs/${grown}/analysis`)).body;
    expect(rose.baseline).toMatchObject({ id: mainRun });
    const risen = rose.queries.find((q: { hash: string }) => q.hash === byCustomer.hash);
    expect(risen.change).toBe('cost_rose');
    expect(risen.cost).toBeGreaterThan(risen.previousCost * 1.1);
    await production.query(`DELETE FROM orders WHERE id > 20000; ANALYZE orders;`, [], 'shop');
  });
});
