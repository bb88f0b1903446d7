import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, notFromExtension, userSchema, type Rows } from './filters';

/** A user schema, in the order of every per-schema list of the sync (by name, as PostgreSQL sorts `name`). */
export interface NamespaceRow {
  oid: number;
  name: string;
  owner: string;
  comment: string | null;
  /** quote_ident(name): how definitions printed with our search_path qualify this schema's objects. */
  quoted: string;
}

const namespacesSql = `
SELECT n.oid::int8::float8 AS oid,
       n.nspname AS name,
       pg_get_userbyid(n.nspowner) AS owner,
       d.description AS comment,
       pg_catalog.quote_ident(n.nspname) AS quoted
FROM pg_catalog.pg_namespace n
LEFT JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objsubid = 0
WHERE ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
ORDER BY n.nspname`;

// Every statement of the plan takes the connection's schema filters as $1 and $2: the chunks are
// cut from what these return, so a schema the filters leave out is never read.
export function listNamespaces(db: Rows, filters?: SchemaFilters) {
  return db.rows<NamespaceRow>(namespacesSql, schemaFilterParams(filters));
}

/** [oid, namespace oid, relkind, weight]: a relation as the chunk planner sees it. */
export type RelationRow = [number, number, string, number];

// Every relation whose objects the sync lists (tables, views, materialized views, foreign tables,
// sequences), in the order of the sync's lists: by schema, then name. A relation weighs one plus its
// indexes, roughly what reading it costs. Rows as arrays: a large database has a few hundred
// thousand of them.
const relationsSql = `
SELECT c.oid::int8::float8 AS oid,
       c.relnamespace::int8::float8 AS namespace,
       c.relkind AS kind,
       1 + coalesce(ix.n, 0) AS weight
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN (SELECT i.indrelid, count(*)::int AS n FROM pg_catalog.pg_index i GROUP BY i.indrelid) ix ON ix.indrelid = c.oid
WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm', 'S') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
ORDER BY n.nspname, c.relname`;

export function listRelations(db: Rows, filters?: SchemaFilters) {
  return db.rows<RelationRow>(relationsSql, schemaFilterParams(filters), { arrays: true });
}

/** [oid, namespace oid, 'e' | 'd' | 'c', belongs to an extension]: a user type as the chunk planner sees it. */
export type TypeRow = [number, number, string, boolean];

// Enums, domains and standalone composite types of the user's schemas. Those an extension owns are
// not listed as types, but a domain's constraints are listed whoever owns it.
const typesSql = `
SELECT t.oid::int8::float8 AS oid,
       t.typnamespace::int8::float8 AS namespace,
       t.typtype AS kind,
       NOT ${notFromExtension('pg_type', 't.oid')} AS "fromExtension"
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_catalog.pg_class c ON c.oid = t.typrelid
WHERE (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND c.relkind = 'c')) AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}`;

export function listTypeOids(db: Rows, filters?: SchemaFilters) {
  return db.rows<TypeRow>(typesSql, schemaFilterParams(filters), { arrays: true });
}

/** [oid, namespace oid]: a user function (not an extension's). */
export type FunctionRow = [number, number];

const functionsSql = `
SELECT p.oid::int8::float8 AS oid, p.pronamespace::int8::float8 AS namespace
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')} AND ${notFromExtension('pg_proc', 'p.oid')}`;

export function listFunctionOids(db: Rows, filters?: SchemaFilters) {
  return db.rows<FunctionRow>(functionsSql, schemaFilterParams(filters), { arrays: true });
}
