// A small "production" database for tests of verdicts run by server processes: one table of 50,000
// events with statistics, and the CI queries that read it (one by key, one by an indexed column,
// one by a column without an index).
import type { PostgresServer } from './postgres';

export const EVENTS_QUERIES = ['SELECT * FROM events WHERE id = $1', 'SELECT id FROM events WHERE account_id = $1', 'SELECT id FROM events WHERE kind = $1'];

/** Creates the database `production` on `postgres` with the events table analyzed; answers its URL. */
export async function createEventsProduction(postgres: PostgresServer): Promise<string> {
  const url = await postgres.createDatabase('production');
  await postgres.query(
    `CREATE TABLE events (id bigint PRIMARY KEY, account_id int NOT NULL, kind text NOT NULL, created_at timestamptz NOT NULL);
     INSERT INTO events SELECT g, g % 4000, 'kind_' || (g % 200), now() - (g || ' seconds')::interval FROM generate_series(1, 50000) g;
     CREATE INDEX events_account_idx ON events (account_id);
     ANALYZE events;`,
    [],
    'production',
  );
  return url;
}
