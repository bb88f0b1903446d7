CREATE TABLE "catalog_counts" (
	"environment_id" text NOT NULL,
	"source" text NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "catalog_queries_recent_idx";--> statement-breakpoint
ALTER TABLE "catalog_counts" ADD CONSTRAINT "catalog_counts_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "catalog_counts_environment_idx" ON "catalog_counts" USING btree ("environment_id","source");--> statement-breakpoint
CREATE INDEX "catalog_queries_source_recent_idx" ON "catalog_queries" USING btree ("environment_id","last_seen_source","last_seen_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "catalog_queries_recent_idx" ON "catalog_queries" USING btree ("environment_id","last_seen_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
-- Every write to catalog_queries appends its net change per (environment, source) to catalog_counts,
-- one statement-level trigger per kind of write, so the list's total is a sum of a few rows instead
-- of a count of the catalog. Rows are only appended (never updated), so concurrent ingestions never
-- wait on one another here; catalog/counts.ts folds them back to one row per source.
CREATE FUNCTION catalog_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_counts (environment_id, source, n)
  SELECT environment_id, last_seen_source, count(*) FROM new_rows GROUP BY 1, 2;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION catalog_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_counts (environment_id, source, n)
  SELECT environment_id, source, sum(n) FROM (
    SELECT environment_id, last_seen_source AS source, 1 AS n FROM new_rows
    UNION ALL
    SELECT environment_id, last_seen_source, -1 FROM old_rows
  ) changes
  GROUP BY 1, 2 HAVING sum(n) <> 0;
  RETURN NULL;
END $$;--> statement-breakpoint
-- An environment's own deletion removes its counts by cascade: nothing is appended for it then.
CREATE FUNCTION catalog_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_counts (environment_id, source, n)
  SELECT o.environment_id, o.last_seen_source, -count(*) FROM old_rows o
  WHERE EXISTS (SELECT 1 FROM environments e WHERE e.id = o.environment_id)
  GROUP BY 1, 2;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_counts_insert AFTER INSERT ON catalog_queries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_inserted();--> statement-breakpoint
CREATE TRIGGER catalog_counts_update AFTER UPDATE ON catalog_queries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_updated();--> statement-breakpoint
CREATE TRIGGER catalog_counts_delete AFTER DELETE ON catalog_queries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_deleted();--> statement-breakpoint
-- TRUNCATE fires no row-level or transition-table trigger: it empties the counts with the catalog.
CREATE FUNCTION catalog_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM catalog_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_counts_truncate AFTER TRUNCATE ON catalog_queries
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_truncated();--> statement-breakpoint
INSERT INTO catalog_counts (environment_id, source, n)
SELECT environment_id, last_seen_source, count(*) FROM catalog_queries GROUP BY 1, 2;
