// Production history stays bounded: points older than the full-resolution retention are summed per
// hour (so every total over any whole hour is unchanged), hourly sums older than theirs are dropped.
import { sql } from 'drizzle-orm';
import { withRetry } from '../catalog/sql';
import type { Services } from '../services-type';

const HOUR_MS = 3_600_000;

export interface PruneOutcome {
  /** Hourly sums written from full-resolution points. */
  downsampled: number;
  /** Hourly sums past their retention, removed. */
  dropped: number;
}

/**
 * Folds and drops by the configured retentions. The full-resolution cutoff is on an hour's start,
 * so an hour is folded whole, once: a later pass never finds more points of an hour already folded.
 */
export async function pruneHistory(services: Services, options: { now?: Date } = {}): Promise<PruneOutcome> {
  const now = (options.now ?? new Date()).getTime();
  const { historyFullDays, historyHourlyDays } = services.config;
  const fullCutoff = new Date(Math.floor((now - historyFullDays * 86_400_000) / HOUR_MS) * HOUR_MS).toISOString();
  const hourlyCutoff = new Date(now - historyHourlyDays * 86_400_000).toISOString();
  return withRetry(() =>
    services.store.db.transaction(async (tx) => {
      const moved = await tx.execute(sql`
        WITH folded AS (
          DELETE FROM history_points WHERE at < ${fullCutoff}::timestamptz
          RETURNING environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read
        )
        INSERT INTO history_hourly (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
        SELECT environment_id, hash, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
               sum(calls), sum(total_time_ms), sum(rows), sum(shared_blks_hit), sum(shared_blks_read)
        FROM folded
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT (environment_id, hash, at) DO UPDATE SET
          calls = history_hourly.calls + excluded.calls,
          total_time_ms = history_hourly.total_time_ms + excluded.total_time_ms,
          rows = history_hourly.rows + excluded.rows,
          shared_blks_hit = history_hourly.shared_blks_hit + excluded.shared_blks_hit,
          shared_blks_read = history_hourly.shared_blks_read + excluded.shared_blks_read
        RETURNING 1`);
      // the same whole hours, summed per hour for the reads, leave with their points
      await tx.execute(sql`DELETE FROM history_hour_sums WHERE at < ${fullCutoff}::timestamptz`);
      const dropped = await tx.execute(sql`DELETE FROM history_hourly WHERE at < ${hourlyCutoff}::timestamptz RETURNING 1`);
      // the tables' sizes serve windows as far back as the hourly sums go
      await tx.execute(sql`DELETE FROM history_table_facts WHERE at < ${hourlyCutoff}::timestamptz`);
      return { downsampled: (moved as unknown as { rows: unknown[] }).rows.length, dropped: (dropped as unknown as { rows: unknown[] }).rows.length };
    }),
  );
}
