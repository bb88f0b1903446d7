import type { QualifiedName } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema } from './filters';

// Relations the role cannot read rows of: no sample rows for them, and pg_stats hides their columns.
// Schema USAGE counts too: without it a table-level grant does not let the role reach the table.
const tablesWithoutSelectSql = `
SELECT n.nspname AS schema, c.relname AS name
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
  AND NOT (has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT'))
ORDER BY n.nspname, c.relname`;

export function listTablesWithoutSelect(db: Gateway, filters?: SchemaFilters) {
  return db.rows<QualifiedName>(tablesWithoutSelectSql, schemaFilterParams(filters));
}
