// Production history on the real job queue: an environment read every 5 seconds gets its first
// reading and then its work, with no help but the jobs; planning twice queues one reading.
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BACKENDS, openTestServices, stopTestPostgres } from '../../test/support/services';
import { fingerprintQuery } from '../../shared/sql-fingerprint';
import { rowsOf } from '../catalog/sql';
import { appRouter } from '../routers/root';
import { createContext } from '../trpc';
import type { Services } from '../services-type';
import { planReadings } from './jobs';

const QUERY = 'SELECT name FROM items WHERE id = $1';

let production: PostgresServer;
let productionUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: true });
  productionUrl = await production.createDatabase('shop');
  await production.query('CREATE EXTENSION pg_stat_statements', [], 'shop');
  await production.query(
    "CREATE TABLE items (id int PRIMARY KEY, name text); INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 10) g",
    [],
    'shop',
  );
});
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 150): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value) || i >= seconds * 4) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.each(BACKENDS)('scheduled production readings with the store on %s', (backend) => {
  let services: Services;
  const caller = () => appRouter.createCaller(createContext(services));

  beforeAll(async () => {
    services = await openTestServices(backend);
  });
  afterAll(() => services.store.close());

  it('takes a first reading, then the work done, every interval, queued once however often it is planned', async () => {
    const { id } = await caller().env.create({ name: `Jobs ${backend}`, slug: `jobs-${backend}` });
    await caller().env.update({ id, snapshotIntervalSeconds: 5 });
    await caller().connections.add({ id, label: 'primary', role: 'production', connectionString: productionUrl });
    expect(await planReadings(services)).toBe(1);
    expect(await planReadings(services)).toBe(0); // the next slot's job is queued already

    const previousReadings = () =>
      rowsOf<{ n: number }>(services.store.db, sql`SELECT count(*)::int AS n FROM history_previous_readings WHERE environment_id = ${id}`);
    expect((await until(previousReadings, ([row]) => row!.n === 1))[0]!.n).toBe(1);

    const client = new pg.Client({ connectionString: productionUrl });
    await client.connect();
    for (let i = 1; i <= 8; i++) await client.query(QUERY, [i]);
    await client.end();

    const { hash } = await fingerprintQuery(QUERY);
    const calls = async () => {
      const points = await caller().history.query({
        id,
        hash,
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      });
      return points.reduce((sum, p) => sum + p.calls, 0);
    };
    expect(await until(calls, (n) => n >= 8)).toBe(8);
  }, 400_000);
});
