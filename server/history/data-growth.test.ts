// Production history's data_growth cause, against a real PostgreSQL with pg_stat_statements: a
// query slows down because a table it reads grew tenfold and more between two readings; its
// regressed entry names that table and the factor, and not the table beside it that stayed the same.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { openTestServices } from '../../test/support/services';
import { fingerprintQuery } from '../../shared/sql-fingerprint';
import { appRouter } from '../routers/root';
import { createContext } from '../trpc';
import type { Services } from '../services-type';
import { takeHistoryReading } from './reading';

const COUNT_BY_PAYLOAD = 'SELECT count(*) FROM events e JOIN kinds k ON k.id = e.kind WHERE e.payload LIKE $1';
const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 12, 0) + minutes * 60_000);

let production: PostgresServer;
let url: string;
let services: Services;
let envId: string;
const caller = () => appRouter.createCaller(createContext(services));

async function run(times: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < times; i++) await client.query(COUNT_BY_PAYLOAD, [`%${i}%`]);
  } finally {
    await client.end();
  }
}

const eventRows = (first: number, last: number) => `INSERT INTO events SELECT g, g % 10, md5(g::text) FROM generate_series(${first}, ${last}) g`;

beforeAll(async () => {
  [production, services] = await Promise.all([startPostgres({ statStatements: true }), openTestServices('pglite')]);
  url = await production.createDatabase('shop');
  await production.query(
    `CREATE EXTENSION pg_stat_statements;
     CREATE TABLE kinds (id int PRIMARY KEY, name text NOT NULL);
     INSERT INTO kinds SELECT g, 'kind ' || g FROM generate_series(0, 9) g;
     CREATE TABLE events (id int PRIMARY KEY, kind int NOT NULL, payload text NOT NULL);
     ${eventRows(1, 2000)};
     ANALYZE`,
    [],
    'shop',
  );
  ({ id: envId } = await caller().env.create({ name: 'Shop', slug: 'shop' }));
  await caller().connections.add({ id: envId, label: 'primary', role: 'production', connectionString: url });
}, 120_000);

afterAll(async () => {
  await services?.store.close();
  await production?.stop();
});

describe('a query that slowed down because its table grew', () => {
  it('names the table that grew and by what factor; the one that did not grow is not named', async () => {
    await production.query('SELECT pg_stat_statements_reset()', [], 'shop');
    await takeHistoryReading(services, envId, { now: at(0) });
    await run(20);
    await takeHistoryReading(services, envId, { now: at(10) });
    // production grows a hundredfold between the two windows
    await production.query(`${eventRows(2001, 200_000)}; ANALYZE events`, [], 'shop');
    await run(20);
    await takeHistoryReading(services, envId, { now: at(20) });
    // the catalog knows the query's text (production sync), so its tables can be named
    await caller().queries.syncProduction({ id: envId });

    const hash = (await fingerprintQuery(COUNT_BY_PAYLOAD)).hash;
    const regressed = await caller().history.regressed({ id: envId, from: at(10).toISOString(), to: at(20).toISOString(), threshold: 50, limit: 20 });
    const entry = regressed.find((q) => q.hash === hash);
    expect(entry, JSON.stringify(regressed)).toBeDefined();
    expect(entry!.causes).toEqual([
      {
        kind: 'data_growth',
        table: 'public.events',
        factor: expect.any(Number),
        detail: expect.stringMatching(
          /^public\.events grew [\d.]+x between the two windows: 2,000 -> [\d,]+ rows, [\d.]+ kB -> [\d.]+ MB \(the planner's estimates\)$/,
        ),
      },
    ]);
    // ANALYZE samples: the estimate is near the 200,000 rows, not exact
    expect(entry!.causes[0]!.factor).toBeGreaterThan(80);
    expect(entry!.causes[0]!.factor).toBeLessThan(120);

    // the same windows without the sizes of the earlier one: nothing to compare, no cause guessed
    await services.store.db.execute(`DELETE FROM history_table_facts WHERE environment_id = '${envId}' AND at = '${at(10).toISOString()}'`);
    const without = await caller().history.regressed({ id: envId, from: at(10).toISOString(), to: at(20).toISOString(), threshold: 50, limit: 20 });
    expect(without.find((q) => q.hash === hash)?.causes).toEqual([]);
  }, 120_000);
});
