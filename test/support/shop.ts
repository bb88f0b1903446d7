// A small shop database for analysis tests: 20,000 orders with no index but the primary key, and
// the queries an application would run on it, as pg_stat_statements reports them ($n parameters).
import type { PostgresServer } from './postgres';

export const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT $2';
export const BY_ID = 'SELECT * FROM orders WHERE id = $1';
export const REFUNDS = "SELECT count(*) FROM orders WHERE status = 'refunded' AND created_at > now() - interval '1 day'";

/** Creates database `name` with the orders table filled and ANALYZEd; returns its connection string. */
export async function createShopDatabase(server: PostgresServer, name = 'shop'): Promise<string> {
  const url = await server.createDatabase(name);
  await server.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL, total_cents int NOT NULL);
     INSERT INTO orders SELECT g, g % 5000, CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END,
            now() - (g || ' minutes')::interval, g % 10000
     FROM generate_series(1, 20000) g;
     ANALYZE orders;`,
    [],
    name,
  );
  return url;
}
