// An environment's Analyze chooses indexes for the whole workload from plans it keeps in the plan
// cache (query_plans), so the choice must survive the cache: one index serving two queries is
// chosen over one index each, on the first Analyze (plans made now) and on the next (all cached).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { requestJson } from '../../test/support/api';
import { waitForAnalysis } from './jobs';

let production: PostgresServer;
let productionUrl: string;

const BY_A = 'SELECT id FROM items WHERE a = $1';
const BY_A_SORTED = 'SELECT id, b FROM items WHERE a = $1 ORDER BY b LIMIT 10';

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  productionUrl = await production.createDatabase('workload');
  await production.query(
    `CREATE TABLE items (id bigint PRIMARY KEY, a int NOT NULL, b int NOT NULL, pad text);
     INSERT INTO items SELECT g, g % 2000, (g * 7919) % 100000, repeat('x', 40) FROM generate_series(1, 200000) g;
     ANALYZE items;`,
    [],
    'workload',
  );
}, 120_000);
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('the workload choice through the plan cache (%s)', (backend) => {
  let server: TestServer;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);
  const analyze = async (env: string) => {
    const started = await api(`/env/${env}/analyze`, { method: 'POST' });
    expect(started.status).toBe(202);
    await waitForAnalysis(started.body.id);
    return (await api(`/env/${env}/analyze`)).body as { status: string; indexes: { createIndex: string; columns: string[]; queries: string[] }[] };
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
  });
  afterAll(() => server?.close());

  it('chooses one index for a = ? and a = ? ORDER BY b, planned now and again from the cache', async () => {
    const env = (await api('/env', { method: 'POST', json: { name: 'Workload', slug: `workload-${backend}` } })).body.id as string;
    await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'primary', role: 'production', connectionString: productionUrl } });
    const hashes: string[] = [];
    for (const query of [BY_A, BY_A_SORTED]) {
      const added = await api(`/env/${env}/queries`, { method: 'POST', json: { query } });
      expect(added.status).toBe(201);
      hashes.push(added.body.hash as string);
    }
    for (const round of ['planned now', 'from the cache']) {
      const result = await analyze(env);
      expect(result.status, round).toBe('done');
      const onItems = result.indexes.filter((i) => /ON public\.items /.test(i.createIndex));
      expect(
        onItems.map((i) => i.columns),
        round,
      ).toEqual([['a', 'b']]);
      expect([...onItems[0]!.queries].sort(), round).toEqual([...hashes].sort());
    }
  });
});
