// The real planner's answer with a recommended index built for real: the index is created inside a
// transaction that is rolled back, so the database is left as it was. How tests check that the
// index the advisor recommends is the one PostgreSQL then uses.
import pg from 'pg';
import type { PlanNode } from '../../shared/plan.js';

/** The generic plan of `sql` with `createIndex` (`CREATE INDEX ON ...`) built as `qt_tried`. */
export async function planWithIndex(connectionString: string, createIndex: string, sql: string): Promise<PlanNode> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(createIndex.replace('CREATE INDEX ON', 'CREATE INDEX qt_tried ON'));
    const r = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`);
    return r.rows[0]!['QUERY PLAN'][0]!.Plan;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}
