-- One table of hourly sums. history_hour_sums, kept by triggers on history_points, now also holds
-- the hours whose points retention dropped; history_hourly, which retention filled with the same
-- sums, goes in the next migration (drizzle-kit's), which runs in this one's transaction. Its rows
-- are added here first, so no reading is lost: an hour present in both tables is added up, as the
-- reads added both.
INSERT INTO history_hour_sums AS s (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
SELECT environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read
FROM history_hourly
ORDER BY environment_id, hash, at
ON CONFLICT (environment_id, hash, at) DO UPDATE SET
  calls = s.calls + excluded.calls,
  total_time_ms = s.total_time_ms + excluded.total_time_ms,
  rows = s.rows + excluded.rows,
  shared_blks_hit = s.shared_blks_hit + excluded.shared_blks_hit,
  shared_blks_read = s.shared_blks_read + excluded.shared_blks_read;
--> statement-breakpoint
-- history_baselines becomes history_previous_readings in the next migration; its primary key's
-- index, which drizzle-kit does not name, follows here
ALTER INDEX history_baselines_pkey RENAME TO history_previous_readings_pkey;
