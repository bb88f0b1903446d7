// Index health on an environment: production's unused indexes with what dropping each would cost
// the catalog (a what-if drop of the index in the shadow), and a what-if analysis with
// hiddenIndexes; a real production PostgreSQL with data, over REST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { requestJson } from '../../test/support/api';
import type { EnvironmentIndexHealth } from '../../shared/index-health';
import { waitForAnalysis } from './jobs';

let production: PostgresServer;
let productionUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  productionUrl = await production.createDatabase('items');
  await production.query(
    `CREATE TABLE items (id bigint PRIMARY KEY, note text NOT NULL, created_at timestamptz NOT NULL);
     INSERT INTO items SELECT g, 'n' || (g % 2000), now() - (g || ' minutes')::interval FROM generate_series(1, 40000) g;
     CREATE INDEX items_note_idx ON items (note);
     CREATE INDEX items_created_idx ON items (created_at);
     ANALYZE items;`,
    [],
    'items',
  );
}, 120_000);
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

const BY_NOTE = 'SELECT id FROM items WHERE note = $1';

describe.each(BACKENDS)('index health of an environment (%s)', (backend) => {
  let server: TestServer;
  let env: string;
  let byNote: string;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);
  const analyze = async (json?: unknown) => {
    const started = await api(`/env/${env}/analyze`, { method: 'POST', json });
    expect(started.status).toBe(202);
    await waitForAnalysis(started.body.id);
    return (await api(`/env/${env}/analyze`)).body;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    env = (await api('/env', { method: 'POST', json: { name: 'Items', slug: 'items' } })).body.id;
    await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'Primary', role: 'production', connectionString: productionUrl } });
    byNote = (await api(`/env/${env}/queries`, { method: 'POST', json: { query: BY_NOTE } })).body.hash;
    await api(`/env/${env}/queries`, { method: 'POST', json: { query: 'SELECT count(*) FROM items' } });
  }, 60_000);
  afterAll(() => server?.close());

  it('lists never-scanned indexes and says which one a catalog query still needs', async () => {
    expect((await api(`/env/${env}/index-health`)).status).toBe(404);
    // An earlier snapshot read (the other backend's) probed the indexed columns' extremes: start the counters again.
    await production.query('SELECT pg_stat_reset()', [], 'items');
    const result = await analyze();
    expect(result).toMatchObject({ status: 'done', error: null });
    const { body } = await api(`/env/${env}/index-health`);
    const health = body as EnvironmentIndexHealth;
    expect(health.analysisId).toBe(result.id);
    const byName = new Map(health.health.indexes.map((e) => [e.name, e]));
    expect(byName.has('items_pkey')).toBe(false);

    // never scanned in production, but the catalog's query plans with it: dropping it would slow that query
    const note = byName.get('items_note_idx')!;
    expect(note.kinds).toEqual(['unused']);
    expect(note.dropEffect).toMatchObject({ queriesUsing: 1, safeToDrop: false, error: null });
    expect(note.dropEffect!.slower).toEqual([{ hash: byNote, costBefore: expect.any(Number), costAfter: expect.any(Number) }]);
    const slower = note.dropEffect!.slower[0]!;
    expect(slower.costAfter).toBeGreaterThan(slower.costBefore * 5);

    // no catalog query reads it: safe to drop
    expect(byName.get('items_created_idx')).toMatchObject({
      kinds: ['unused'],
      dropStatement: 'DROP INDEX CONCURRENTLY public.items_created_idx;',
      dropEffect: { queriesUsing: 0, slower: [], safeToDrop: true, error: null },
    });
  });

  it('plans the catalog without the dropped indexes, keeping the catalog costs production has', async () => {
    const before = ((await api(`/env/${env}/queries`)).body as { hash: string; cost: number }[]).find((q) => q.hash === byNote)!.cost;
    const result = await analyze({ hiddenIndexes: ['items_note_idx'] });
    expect(result).toMatchObject({ status: 'done', hiddenIndexes: ['public.items_note_idx'] });
    expect(result.hiddenEffect).toMatchObject({ queriesUsing: 1, safeToDrop: false });
    expect(result.hiddenEffect.slower).toEqual([{ hash: byNote, costBefore: before, costAfter: expect.any(Number) }]);
    expect(result.hiddenEffect.slower[0].costAfter).toBeGreaterThan(before * 5);
    // the what-if stays on its analysis
    expect(((await api(`/env/${env}/queries`)).body as { hash: string; cost: number }[]).find((q) => q.hash === byNote)!.cost).toBe(before);
    // the index health still comes from the last analysis of production as it is
    expect((await api(`/env/${env}/index-health`)).body.analysisId).not.toBe(result.id);
  });

  it('refuses an unknown index with a 400 naming it', async () => {
    const res = await api(`/env/${env}/analyze`, { method: 'POST', json: { hiddenIndexes: ['items_note_idx', 'public.nope_idx'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_failed',
      issues: [{ path: 'hiddenIndexes.1', message: expect.stringContaining('public.nope_idx') }],
    });
    expect(res.body.error.message).toContain('public.nope_idx');
  });
});
