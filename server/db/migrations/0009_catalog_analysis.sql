ALTER TABLE "catalog_queries" ADD COLUMN "cost" double precision;--> statement-breakpoint
ALTER TABLE "catalog_queries" ADD COLUMN "recommendation_count" integer;--> statement-breakpoint
-- The catalog keeps a copy of each query's latest analysis (cost, recommendation count), so a page
-- of the list is read from one index with no lookup per row. query_analyses is the one source: every
-- write to it, cascades included, brings the copy up to date in the same statement, one
-- statement-level trigger per kind of write. Rows whose copy is already right are not rewritten.
CREATE FUNCTION catalog_analysis_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_queries c SET cost = n.cost, recommendation_count = n.recommendation_count
  FROM new_rows n
  WHERE c.environment_id = n.environment_id AND c.hash = n.hash
    AND (c.cost, c.recommendation_count) IS DISTINCT FROM (n.cost, n.recommendation_count);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION catalog_analysis_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_queries c SET cost = NULL, recommendation_count = NULL
  FROM old_rows o
  WHERE c.environment_id = o.environment_id AND c.hash = o.hash
    AND (c.cost IS NOT NULL OR c.recommendation_count IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM query_analyses a WHERE a.environment_id = o.environment_id AND a.hash = o.hash);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION catalog_analysis_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_queries SET cost = NULL, recommendation_count = NULL
  WHERE cost IS NOT NULL OR recommendation_count IS NOT NULL;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_analysis_insert AFTER INSERT ON query_analyses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_analysis_written();--> statement-breakpoint
CREATE TRIGGER catalog_analysis_update AFTER UPDATE ON query_analyses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_analysis_written();--> statement-breakpoint
CREATE TRIGGER catalog_analysis_delete AFTER DELETE ON query_analyses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_analysis_deleted();--> statement-breakpoint
CREATE TRIGGER catalog_analysis_truncate AFTER TRUNCATE ON query_analyses
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_analysis_truncated();--> statement-breakpoint
-- A catalog entry created while its query already has an analysis (the catalog never deletes one
-- entry alone today, but nothing here should depend on that) takes the copy at once.
CREATE FUNCTION catalog_analysis_for_new_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_queries c SET cost = a.cost, recommendation_count = a.recommendation_count
  FROM new_rows n JOIN query_analyses a ON a.environment_id = n.environment_id AND a.hash = n.hash
  WHERE c.id = n.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_analysis_new_entries AFTER INSERT ON catalog_queries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_analysis_for_new_entries();--> statement-breakpoint
UPDATE catalog_queries c SET cost = a.cost, recommendation_count = a.recommendation_count
FROM query_analyses a
WHERE a.environment_id = c.environment_id AND a.hash = c.hash;
