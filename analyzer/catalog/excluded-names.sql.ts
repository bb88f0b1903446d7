import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema, type Rows } from './filters';

// Names of relations that exist only in schemas the connection's filters leave out: how an
// unqualified name in a pg_stat_statements text is attributed (analyzer/statement-schemas.ts). Only
// names are returned, and only those no allowed schema also holds; nothing else of an excluded
// schema is read. Relations and set-returning functions, as a statement's FROM names them.
const excludedNamesSql = `
SELECT o.name
FROM (SELECT c.relname::pg_catalog.text AS name, ${allowedSchema('n', '$1', '$2')} AS allowed
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm') AND ${userSchema('n')}
      UNION ALL
      SELECT p.proname::pg_catalog.text, ${allowedSchema('n', '$1', '$2')}
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE p.proretset AND ${userSchema('n')}) o
GROUP BY o.name
HAVING NOT pg_catalog.bool_or(o.allowed)`;

export async function listExcludedOnlyNames(db: Rows, filters: SchemaFilters): Promise<Set<string>> {
  return new Set((await db.rows<{ name: string }>(excludedNamesSql, schemaFilterParams(filters))).map((r) => r.name));
}
