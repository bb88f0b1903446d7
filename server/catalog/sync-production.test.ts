// Production sync against a real PostgreSQL with pg_stat_statements preloaded: the catalog learns
// production's statements with their calls and mean time, and ciRunCount is left alone.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BACKENDS, openTestServices, stopTestPostgres } from '../../test/support/services';
import { appRouter } from '../routers/root';
import type { Services } from '../services-type';
import { createContext } from '../trpc';

const ITEM_SITE = "/*file='app%2Fmodels%2Fitem.rb:12',controller='items',action='buy',traceparent='00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'*/";

let production: PostgresServer;
let productionUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: true });
  productionUrl = await production.createDatabase('shop');
  const client = new pg.Client({ connectionString: productionUrl });
  await client.connect();
  await client.query('CREATE EXTENSION pg_stat_statements');
  await client.query('CREATE TABLE items (id int PRIMARY KEY, name text, stock int NOT NULL DEFAULT 0)');
  await client.query("INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g");
  await client.query('SELECT pg_stat_statements_reset()');
  for (let i = 1; i <= 5; i++) await client.query('SELECT name FROM items WHERE id = $1', [i]);
  // tagged by the application's ORM: pg_stat_statements keeps the first text it sees, comment included
  for (let i = 1; i <= 3; i++) await client.query(`UPDATE items SET stock = stock - 1 WHERE id = $1 ${ITEM_SITE}`, [i]);
  await client.query('SELECT count(*) FROM pg_class'); // PostgreSQL's own catalog: not a query of the app
  await client.query('CREATE INDEX items_name_idx ON items (name)'); // DDL: not a query either
  await client.end();
});
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('production sync with the catalog on %s', (backend) => {
  let services: Services;
  let envId: string;
  const caller = () => appRouter.createCaller(createContext(services));

  beforeAll(async () => {
    services = await openTestServices(backend);
    ({ id: envId } = await caller().env.create({ name: 'Shop', slug: 'shop' }));
    await caller().repos.link({ id: envId, repo: 'acme/shop' });
    await caller().connections.add({ id: envId, label: 'primary', role: 'production', connectionString: productionUrl });
    await caller().connections.add({ id: envId, label: 'staging', role: 'staging', connectionString: productionUrl.replace('/shop', '/nothing') });
  });
  afterAll(() => services.store.close());

  it("upserts production's statements with their figures, leaving ciRunCount as CI left it", async () => {
    await caller().ci.ingest({ repo: 'acme/shop', runId: '1', queries: [{ query: 'SELECT name FROM items WHERE id = 77' }] });
    const result = await caller().queries.syncProduction({ id: envId });
    expect(result.connections).toEqual([
      { id: expect.any(String), label: 'primary', result: { type: 'ok', value: { statements: 2, insufficientPrivilege: 0, skipped: 0 } } },
    ]);
    expect(result).toMatchObject({ queryCount: 2, newQueryCount: 1 });

    const entries = await caller().queries.list({ id: envId, limit: 100, offset: 0 });
    expect(entries).toHaveLength(2);
    const select = entries.find((e) => e.formattedQuery.startsWith('SELECT'))!;
    const update = entries.find((e) => e.formattedQuery.startsWith('UPDATE'))!;
    expect(select).toMatchObject({ lastSeenSource: 'production', ciRunCount: 1, productionCalls: 5 });
    expect(update).toMatchObject({ lastSeenSource: 'production', ciRunCount: 0, productionCalls: 3 });
    expect(update.productionMeanTimeMs).toBeGreaterThan(0);
    // where production's statement comes from, read from its comment as at ingestion
    expect((await caller().queries.get({ id: envId, hash: update.hash })).callSites).toEqual([
      {
        file: 'app/models/item.rb',
        line: 12,
        controller: 'items',
        action: 'buy',
        tags: {
          file: 'app/models/item.rb:12',
          controller: 'items',
          action: 'buy',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
      },
    ]);
    expect((await caller().queries.get({ id: envId, hash: select.hash })).callSites).toEqual([]);
    expect(await caller().queries.count({ id: envId, source: 'production' })).toEqual({ total: 2 });

    // a later CI run makes it a CI query again, production figures kept
    await caller().ci.ingest({ repo: 'acme/shop', runId: '2', queries: [{ query: 'SELECT name FROM items WHERE id = 1' }] });
    const again = await caller().queries.get({ id: envId, hash: select.hash });
    expect(again).toMatchObject({ lastSeenSource: 'ci', ciRunCount: 2, productionCalls: 5 });

    // syncing again reads the same figures (our own read-only statements are not counted)
    await caller().queries.syncProduction({ id: envId });
    expect(await caller().queries.get({ id: envId, hash: update.hash })).toMatchObject({ productionCalls: 3, ciRunCount: 0 });
  });

  it('reports a production connection that cannot be read beside the ones that can', async () => {
    const { id: brokenId } = await caller().connections.add({
      id: envId,
      label: 'replica',
      role: 'production',
      connectionString: productionUrl.replace('/shop', '/no_such_database'),
    });
    const result = await caller().queries.syncProduction({ id: envId });
    expect(result.queryCount).toBe(2);
    const broken = result.connections.find((c) => c.id === brokenId)!;
    expect(broken.result).toEqual({ type: 'error', error: expect.stringContaining('no_such_database') });
    expect(JSON.stringify(result)).not.toContain('postgres:postgres@');
    await caller().connections.remove({ id: envId, connectionId: brokenId });
  });
});
