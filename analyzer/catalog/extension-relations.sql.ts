import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema } from './filters';

// Relations an extension installed (pg_stat_statements' views, a config table of PostGIS, or any
// table added with ALTER EXTENSION ... ADD): they are the extension's, not the application's schema.
const extensionRelationsSql = `
SELECT c.oid
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_depend dep ON dep.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND dep.objid = c.oid AND dep.deptype = 'e'
WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}`;

export function listExtensionRelations(db: Gateway, filters?: SchemaFilters) {
  return db.rows<{ oid: number }>(extensionRelationsSql, schemaFilterParams(filters));
}
