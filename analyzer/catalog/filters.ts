// The predicates every catalog query of the analyzer is built from, so that all resources agree on
// what "the database" is.

/**
 * Which schemas are the user's, what an extension made, and the connection's schema filters: one
 * definition each for the analyzer and the snapshot of production (snapshot/).
 */
export { allowedSchema, notFromExtension, userSchema } from '../../shared/schema-filters';

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
