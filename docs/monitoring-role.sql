-- querytrail.column_stats(): column statistics for a monitoring role that may not read the tables.
-- Run by an administrator (a superuser, or on a managed service a role that may create roles and
-- grant SELECT on the tables), once per database. querytrail never runs it and never creates it;
-- it only calls the function when it finds it exactly as below. See docs/monitoring-role.md.
--
-- Before running, replace:
--   querytrail_monitor  the role querytrail connects with (e.g. a member of pg_monitor)
--   shop, shop.orders   the schemas and tables whose statistics it may see

BEGIN;

-- Whose privileges the function runs with: a role nobody logs in as, that may read only the tables
-- granted to it below. pg_stats, read inside the function, shows its owner only those columns.
CREATE ROLE querytrail_stats NOLOGIN;
GRANT USAGE ON SCHEMA shop TO querytrail_stats;
GRANT SELECT ON shop.orders TO querytrail_stats;

-- Its own schema, which no one else may create objects in: a function that shadowed this one here
-- would be called by querytrail.
CREATE SCHEMA querytrail;
REVOKE ALL ON SCHEMA querytrail FROM PUBLIC;

-- SECURITY DEFINER: it reads pg_stats as querytrail_stats. The pinned search_path (pg_temp last)
-- keeps a caller's objects from standing in for pg_catalog's; the body names pg_catalog anyway.
CREATE FUNCTION querytrail.column_stats() RETURNS SETOF pg_catalog.pg_stats
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
AS $$
  SELECT * FROM pg_catalog.pg_stats s WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema')
$$;
REVOKE ALL ON FUNCTION querytrail.column_stats() FROM PUBLIC;

-- Owned by querytrail_stats, so that it runs with that role's privileges and no one else's.
GRANT CREATE ON SCHEMA querytrail TO querytrail_stats;
ALTER FUNCTION querytrail.column_stats() OWNER TO querytrail_stats;
REVOKE CREATE ON SCHEMA querytrail FROM querytrail_stats;

-- The monitoring role may call it, and nothing else here.
GRANT USAGE ON SCHEMA querytrail TO querytrail_monitor;
GRANT EXECUTE ON FUNCTION querytrail.column_stats() TO querytrail_monitor;

COMMIT;
