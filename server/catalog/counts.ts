// How many entries an environment's catalog holds, per source, without counting the catalog: every
// write to catalog_queries appends its net change to catalog_counts (triggers, migration 0005), and
// the total is the sum of the environment's few rows. Reading folds them back to one row per source
// once they pile up, so the sum stays a handful of rows however many runs were ingested.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/store';
import { rowsOf } from './sql';

/** More change rows than this for one environment are folded into one per source. */
const FOLD_AT = 64;

/** Folds the environment's change rows once a read has seen more than FOLD_AT of them. */
export async function foldIfPiledUp(db: Pick<Db, 'execute'>, environmentId: string, changeRows: number): Promise<void> {
  if (changeRows > FOLD_AT) await foldCounts(db, environmentId);
}

/** Entries of the environment's catalog, of one source or all. */
export async function catalogSize(db: Db, environmentId: string, source?: string): Promise<number> {
  const [row] = await rowsOf<{ total: number; rows: number }>(
    db,
    sql`SELECT coalesce(sum(n), 0)::int AS total, count(*)::int AS rows FROM catalog_counts
        WHERE environment_id = ${environmentId} ${source ? sql`AND source = ${source}` : sql``}`,
  );
  await foldIfPiledUp(db, environmentId, row?.rows ?? 0);
  return row?.total ?? 0;
}

/**
 * Replaces the environment's change rows by their sums, in one statement. Safe beside writers (their
 * new rows are not in this statement's snapshot, so they stay) and beside another fold (the rows it
 * deleted first are skipped here, and its sums are not visible to this statement).
 */
export async function foldCounts(db: Pick<Db, 'execute'>, environmentId: string): Promise<void> {
  await db.execute(sql`
    WITH gone AS (DELETE FROM catalog_counts WHERE environment_id = ${environmentId} RETURNING source, n)
    INSERT INTO catalog_counts (environment_id, source, n)
    SELECT ${environmentId}, source, sum(n) FROM gone GROUP BY source HAVING sum(n) <> 0`);
}
