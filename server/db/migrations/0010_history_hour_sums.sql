CREATE TABLE "history_hour_sums" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"calls" bigint NOT NULL,
	"total_time_ms" double precision NOT NULL,
	"rows" bigint NOT NULL,
	"shared_blks_hit" bigint NOT NULL,
	"shared_blks_read" bigint NOT NULL,
	CONSTRAINT "history_hour_sums_environment_id_hash_at_pk" PRIMARY KEY("environment_id","hash","at")
);
--> statement-breakpoint
ALTER TABLE "history_hour_sums" ADD CONSTRAINT "history_hour_sums_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "history_hour_sums_environment_at_idx" ON "history_hour_sums" USING btree ("environment_id","at");--> statement-breakpoint
-- Every write to history_points adds its change to the hour's sums, in the same statement's
-- transaction: inserted points in full, updated ones (a second reading of the same snapshot time
-- adds to its point) by what they gained. Points are deleted only by retention, which deletes the
-- same whole hours of sums, and with their environment, whose sums cascade too.
CREATE FUNCTION history_hour_sums_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_hour_sums AS s (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
  SELECT environment_id, hash, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         sum(calls), sum(total_time_ms), sum(rows), sum(shared_blks_hit), sum(shared_blks_read)
  FROM new_rows
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (environment_id, hash, at) DO UPDATE SET
    calls = s.calls + excluded.calls,
    total_time_ms = s.total_time_ms + excluded.total_time_ms,
    rows = s.rows + excluded.rows,
    shared_blks_hit = s.shared_blks_hit + excluded.shared_blks_hit,
    shared_blks_read = s.shared_blks_read + excluded.shared_blks_read;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION history_hour_sums_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_hour_sums AS s (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
  SELECT n.environment_id, n.hash, date_trunc('hour', n.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         sum(n.calls - o.calls), sum(n.total_time_ms - o.total_time_ms), sum(n.rows - o.rows),
         sum(n.shared_blks_hit - o.shared_blks_hit), sum(n.shared_blks_read - o.shared_blks_read)
  FROM new_rows n
  JOIN old_rows o ON o.environment_id = n.environment_id AND o.hash = n.hash AND o.at = n.at
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (environment_id, hash, at) DO UPDATE SET
    calls = s.calls + excluded.calls,
    total_time_ms = s.total_time_ms + excluded.total_time_ms,
    rows = s.rows + excluded.rows,
    shared_blks_hit = s.shared_blks_hit + excluded.shared_blks_hit,
    shared_blks_read = s.shared_blks_read + excluded.shared_blks_read;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER history_hour_sums_insert AFTER INSERT ON history_points
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION history_hour_sums_inserted();--> statement-breakpoint
CREATE TRIGGER history_hour_sums_update AFTER UPDATE ON history_points
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION history_hour_sums_updated();--> statement-breakpoint
INSERT INTO history_hour_sums (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
SELECT environment_id, hash, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
       sum(calls), sum(total_time_ms), sum(rows), sum(shared_blks_hit), sum(shared_blks_read)
FROM history_points
GROUP BY 1, 2, 3;
