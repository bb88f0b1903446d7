// Retention's counted deletes (retention.ts runs them in its transaction).
import { sql, type SQL } from 'drizzle-orm';

/**
 * Deletes the table's rows whose `at` is before the cutoff and answers one row, n: how many went.
 * The deleted rows are counted in the store rather than sent back, since a first prune after an
 * upgrade can drop millions of points.
 */
function countedDelete(table: 'history_points' | 'history_hour_sums', cutoff: string): SQL {
  return sql`WITH gone AS (DELETE FROM ${sql.identifier(table)} WHERE at < ${cutoff}::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM gone`;
}

/** Drops full-resolution points before the cutoff (an hour's start: an hour's points go whole); answers n. */
export const dropPointsBefore = (cutoff: string): SQL => countedDelete('history_points', cutoff);

/** Drops hourly sums before the cutoff; answers n. */
export const dropHourSumsBefore = (cutoff: string): SQL => countedDelete('history_hour_sums', cutoff);
