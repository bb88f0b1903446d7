// Which schemas are the user's: everything but PostgreSQL's own (and other sessions' temp schemas).
// Used by every catalog query so that all resources agree on what "the database" is.

/** SQL predicate on a pg_namespace alias. */
export function userSchema(namespaceAlias: string): string {
  const n = namespaceAlias;
  return `${n}.nspname NOT IN ('pg_catalog', 'information_schema') AND ${n}.nspname OPERATOR(pg_catalog.!~~) 'pg\\_toast%' AND ${n}.nspname OPERATOR(pg_catalog.!~~) 'pg\\_temp\\_%'`;
}

/** The connection's schema filters as an SQL predicate with bound patterns (one definition for the analyzer and the advisor). */
export { allowedSchema } from '../../shared/schema-filters';

/** SQL predicate: the object (of catalog `catalog`) does not belong to an extension. */
export function notFromExtension(catalog: string, oidExpression: string): string {
  return `NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend dep WHERE dep.classid = 'pg_catalog.${catalog}'::pg_catalog.regclass AND dep.objid = ${oidExpression} AND dep.deptype = 'e')`;
}

/** An ISO 8601 timestamp as text (with its offset), the form JSON carries. */
export function isoTimestamp(expression: string): string {
  return `pg_catalog.to_json(${expression}) OPERATOR(pg_catalog.#>>) '{}'`;
}

/**
 * SQL predicate: `expression` (an oid) is one of the array bound as parameter `param` ($1...).
 * How a chunk of the database (analyzer/chunks.ts) scopes the same statements the whole-database
 * reads run: one bound array instead of one statement per object.
 */
export function oidIn(expression: string, param: string): string {
  return `${expression} = ANY (${param}::pg_catalog.oid[])`;
}

/** The part of a reader the catalog statements need: a Gateway or one of its transactions. */
export interface Rows {
  rows<T>(sql: string, params?: unknown[], options?: { raw?: boolean; arrays?: boolean }): Promise<T[]>;
}
