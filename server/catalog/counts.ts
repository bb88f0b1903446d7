// How many entries an environment's catalog holds, per source, without counting the catalog: every
// write to catalog_queries appends its net change to catalog_counts (triggers, migration 0005), and
// the total is the sum of the environment's few rows. Reading folds them back to one row per source
// once they pile up, so the sum stays a handful of rows however many runs were ingested.
import type { Db } from '../db/store';
import { countsTotal, foldCountsStatement } from './counts.sql';
import { rowsOf } from './sql';

/** More change rows than this for one environment are folded into one per source. */
const FOLD_AT = 64;

/** Folds the environment's change rows once a read has seen more than FOLD_AT of them. */
export async function foldIfPiledUp(db: Pick<Db, 'execute'>, environmentId: string, changeRows: number): Promise<void> {
  if (changeRows > FOLD_AT) await foldCounts(db, environmentId);
}

/** Entries of the environment's catalog, of one source or all. */
export async function catalogSize(db: Db, environmentId: string, source?: string): Promise<number> {
  const [row] = await rowsOf<{ total: number; rows: number }>(db, countsTotal(environmentId, source));
  await foldIfPiledUp(db, environmentId, row?.rows ?? 0);
  return row?.total ?? 0;
}

/** Replaces the environment's change rows by their sums (counts.sql.ts says why that is safe beside writers). */
export async function foldCounts(db: Pick<Db, 'execute'>, environmentId: string): Promise<void> {
  await db.execute(foldCountsStatement(environmentId));
}
