// The analytic database (schema.ts) in a database of its own on a bench's PostgreSQL.
import type { PostgresServer } from '../../../test/support/postgres.js';
import { ANALYTIC_DDL, analyticLoadSql } from './schema.js';

export const ANALYTIC_DB = 'analytic';

/** The data's size in bytes: every table of `schema` (heap and TOAST), no index. */
export async function dataBytes(db: PostgresServer, database: string, schema = 'public'): Promise<number> {
  const r = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_table_size(c.oid)), 0)::bigint AS bytes FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = $1::regnamespace`,
    [schema],
    database,
  );
  return Number(r.rows[0]!.bytes);
}

/** Creates, fills and analyzes the analytic database at `scale`; its connection string. */
export async function loadAnalytic(db: PostgresServer, scale: number): Promise<string> {
  const url = await db.createDatabase(ANALYTIC_DB);
  await db.query(ANALYTIC_DDL, [], ANALYTIC_DB);
  // Foreign keys are not checked while loading (the rows are generated to match them).
  for (const sql of analyticLoadSql(scale)) await db.query(`SET session_replication_role = replica; ${sql}`, [], ANALYTIC_DB);
  await db.query('VACUUM ANALYZE', [], ANALYTIC_DB);
  return url;
}
