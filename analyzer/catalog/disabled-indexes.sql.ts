import type { DisabledIndex } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema } from './filters';

// A failed CREATE INDEX CONCURRENTLY leaves an index that is maintained on writes but never used by
// the planner (invalid), or not even maintained (not ready). Either costs without helping.
const disabledIndexesSql = `
SELECT n.nspname AS schema,
       t.relname AS table,
       c.relname AS name,
       CASE WHEN NOT i.indisready THEN 'notReady' ELSE 'invalid' END AS reason,
       CASE WHEN NOT i.indisready
            THEN 'Not ready: its build (CREATE INDEX CONCURRENTLY) did not finish, so it is neither maintained nor used. Drop it and create it again.'
            WHEN c.relkind = 'I'
            THEN 'Invalid: an index on a partitioned table that is missing on some partition; the planner will not use it until ALTER INDEX ... ATTACH PARTITION covers every partition.'
            ELSE 'Invalid: its build failed or is still running (CREATE INDEX CONCURRENTLY); it is maintained on writes but the planner will not use it. Drop it or REINDEX it.' END AS message,
       pg_get_indexdef(i.indexrelid) AS definition
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
WHERE (NOT i.indisvalid OR NOT i.indisready) AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
ORDER BY n.nspname, t.relname, c.relname`;

export function listDisabledIndexes(db: Gateway, filters?: SchemaFilters) {
  return db.rows<DisabledIndex>(disabledIndexesSql, schemaFilterParams(filters));
}
