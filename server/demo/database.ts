// The demo's own PostgreSQL, reached as its superuser: creating the Pagila database, filling it and
// running the application's workload on it. This is a database querytrail creates and owns; the
// environment reads it like any user's database, through the gateway, as a read-only role.
import pg from 'pg';
import { APP_QUERIES, type Draw } from './app-queries';
import { PAGILA_DATA, PAGILA_SCHEMA, readerRoleSql } from './pagila-sql';

export const DEMO_DATABASE = 'pagila';
export const READER_ROLE = 'querytrail_reader';

const superuser = (port: number, password: string, database: string): pg.ClientConfig => ({
  host: '127.0.0.1',
  port,
  user: 'postgres',
  password,
  database,
  application_name: 'querytrail-demo',
});

async function withClient<T>(config: pg.ClientConfig, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates the pagila database with its schema, data, pg_stat_statements and the reader role.
 * Returns the number of rows and tables.
 */
export async function loadPagila(port: number, superPassword: string, readerPassword: string): Promise<{ rows: number; tables: number }> {
  await withClient(superuser(port, superPassword, 'postgres'), (client) => client.query(`CREATE DATABASE ${DEMO_DATABASE}`));
  return withClient(superuser(port, superPassword, DEMO_DATABASE), async (client) => {
    await client.query('CREATE EXTENSION pg_stat_statements');
    // one transaction: the tables are created and filled in it, so (wal_level minimal) their rows skip the WAL
    await client.query(`BEGIN; ${PAGILA_SCHEMA} ${PAGILA_DATA} ${readerRoleSql(READER_ROLE, readerPassword)} COMMIT;`);
    const { rows } = await client.query<{ rows: string; tables: string }>(
      `SELECT sum(n_live_tup)::bigint AS rows, count(*) AS tables FROM pg_stat_user_tables`,
    );
    return { rows: Number(rows[0]!.rows), tables: Number(rows[0]!.tables) };
  });
}

/** Draws parameters like real traffic: a few customers and films far more often than the rest. */
async function drawFrom(client: pg.Client): Promise<Draw> {
  const count = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  const customers = await count('SELECT max(customer_id) AS n FROM customer');
  const films = await count('SELECT max(film_id) AS n FROM film');
  const inventory = await count('SELECT max(inventory_id) AS n FROM inventory');
  const rentals = await count('SELECT max(rental_id) AS n FROM rental');
  const emails = (await client.query<{ email: string }>('SELECT email FROM customer WHERE customer_id % 37 = 0 LIMIT 300')).rows.map((r) => r.email);
  const skewed = (n: number, power: number) => 1 + Math.floor(n * Math.random() ** power);
  return {
    customer: () => skewed(customers, 3),
    film: () => skewed(films, 2),
    store: () => skewed(4, 1),
    email: () => emails[Math.floor(Math.random() * emails.length)]!,
    // recent rentals are the ones returned and paid
    rental: () => rentals - Math.floor(rentals * 0.02 * Math.random()),
    inventory: () => skewed(inventory, 1.5),
    daysAgo: (days) => new Date(Date.now() - days * 86_400_000),
  };
}

/**
 * Runs the application's statements with parameters, from four sessions at once, as its pages and
 * jobs would; pg_stat_statements starts empty, so it holds only this workload afterwards.
 * Returns the number of statements run.
 */
export async function runWorkload(port: number, superPassword: string): Promise<number> {
  const pool = new pg.Pool({ ...superuser(port, superPassword, DEMO_DATABASE), max: 4 });
  try {
    const draw = await withClient(superuser(port, superPassword, DEMO_DATABASE), async (client) => {
      const d = await drawFrom(client);
      await client.query('SELECT pg_stat_statements_reset()');
      return d;
    });
    // interleaved, as traffic is: one statement of each query in turn until each has run its calls
    const queue = APP_QUERIES.flatMap((q) => Array.from({ length: q.calls }, (_, i) => ({ q, i }))).sort((a, b) => a.i / a.q.calls - b.i / b.q.calls);
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const { q } = queue[next++]!;
        await pool.query(q.sql, q.params(draw));
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    return queue.length;
  } finally {
    await pool.end();
  }
}
