import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema } from './filters';

/** A table's size as the planner last estimated it. */
export interface TableFact {
  /** schema.name */
  table: string;
  rows: number;
  bytes: number;
}

/** Tables kept per reading: the largest ones, where growth moves plans. */
export const MAX_TABLE_FACTS = 5000;

// The planner's own figures (pg_class.reltuples and relpages, kept by VACUUM and ANALYZE): read
// from the catalog alone, with no lock on the tables and no file measured, so a reading taken every
// few minutes costs production nothing. A table never analyzed (reltuples -1) has no figure yet.
const tableFactsSql = `
SELECT n.nspname || '.' || c.relname AS "table",
       c.reltuples::float8 AS rows,
       c.relpages::float8 * pg_catalog.current_setting('block_size')::float8 AS bytes
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm') AND c.reltuples >= 0 AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
ORDER BY c.relpages DESC, 1
LIMIT ${MAX_TABLE_FACTS}`;

export function listTableFacts(db: Gateway, filters?: SchemaFilters) {
  return db.rows<TableFact>(tableFactsSql, schemaFilterParams(filters));
}
