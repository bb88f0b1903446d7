// A history reading's two bulk writes (reading.ts runs them in its transaction, beside row reads and
// writes through the query builder). Both send their rows as one JSON parameter, whatever their
// number: a busy pg_stat_statements holds thousands of entries.
import { sql, type SQL } from 'drizzle-orm';

/** One pg_stat_statements entry's counters, named as history_counters' columns. */
export interface CounterRow {
  entry: string;
  hash: string;
  calls: number;
  total_time_ms: number;
  rows: number;
  shared_blks_hit: number;
  shared_blks_read: number;
}

/** One query's point, named as history_points' columns. */
export type PointRow = Omit<CounterRow, 'entry'>;

/**
 * Stores a connection's counters as its previous reading (the caller deleted the last ones first).
 * One entry may be listed twice if pg_stat_statements changed under the read: DISTINCT ON keeps the
 * last one listed, as the primary key (connection, entry) allows one.
 */
export function insertCounters(connectionId: string, counters: readonly CounterRow[]): SQL {
  return sql`
      INSERT INTO history_counters (connection_id, entry, hash, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
      SELECT DISTINCT ON (entry) ${connectionId}, entry, hash, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read
      FROM json_to_recordset(${JSON.stringify(counters)}::json)
        AS r(entry text, hash text, calls float8, total_time_ms float8, rows float8, shared_blks_hit float8, shared_blks_read float8)`;
}

/**
 * One point per query at `at`: a point already there (another connection's part of the same
 * reading) is added to, so primary and replicas sum into one point. Rows go in hash order, so two
 * readings of one environment lock the same points in the same order and never deadlock.
 */
export function upsertPoints(environmentId: string, at: Date, points: readonly PointRow[]): SQL {
  return sql`
    INSERT INTO history_points (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
    SELECT ${environmentId}, hash, ${at.toISOString()}::timestamptz, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read
    FROM json_to_recordset(${JSON.stringify(points)}::json)
      AS r(hash text, calls bigint, total_time_ms float8, rows bigint, shared_blks_hit bigint, shared_blks_read bigint)
    ORDER BY hash
    ON CONFLICT (environment_id, hash, at) DO UPDATE SET
      calls = history_points.calls + excluded.calls,
      total_time_ms = history_points.total_time_ms + excluded.total_time_ms,
      rows = history_points.rows + excluded.rows,
      shared_blks_hit = history_points.shared_blks_hit + excluded.shared_blks_hit,
      shared_blks_read = history_points.shared_blks_read + excluded.shared_blks_read`;
}
