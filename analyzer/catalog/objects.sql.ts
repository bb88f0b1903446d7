import type { ObjectCounts } from '../../shared/analyzer-schema';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, notFromExtension, userSchema, type Rows } from './filters';

/** [kind, oid, schema, name, trigger name or null] of one object of a page (a trigger's name is its table's). */
export type ObjectRef = ['table' | 'view' | 'function' | 'enum' | 'domain' | 'composite' | 'trigger' | 'sequence', number, string, string, string | null];

export interface ObjectsPage {
  counts: Partial<Record<keyof ObjectCounts, number>>;
  page: ObjectRef[];
}

// How a name is shown and searched: schema-qualified, but without "public.".
const qualified = (schema: string, name: string) =>
  `CASE WHEN ${schema} = 'public' THEN pg_catalog.concat(${name}) ELSE pg_catalog.concat(${schema}, '.', ${name}) END`;
// $2: the search, lower-cased by the caller ('' matches everything). Names are plain data here:
// pg_catalog's lower and strpos, no operator a user could have defined.
const matches = (text: string) => `pg_catalog.strpos(pg_catalog.lower(${text}), $2) > 0`;
const search = (...texts: string[]) => `($2 = '' OR ${texts.map(matches).join(' OR ')})`;
// $1: the schemas to list (null: all); $5 and $6: the connection's schema filters.
const inSchemas = (n: string) => `($1::pg_catalog.name[] IS NULL OR ${n}.nspname = ANY ($1::pg_catalog.name[])) AND ${allowedSchema(n, '$5', '$6')}`;

// Every object the schema browser lists, with the keys it is sorted by: the kind's rank, then schema
// and name as each kind's list sorts them (functions by their arguments too, triggers by table, then
// name). Catalog columns only: nothing is printed for objects outside the page.
const objectsSql = `
WITH objects AS (
  SELECT 0 AS rank, 0 AS sub, 'table' AS kind, c.oid::int8::float8 AS oid,
         n.nspname AS schema, c.relname AS name, NULL::pg_catalog.name AS name2, NULL::pg_catalog.text AS args
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'f') AND ${userSchema('n')} AND ${inSchemas('n')}
    AND ($2 = '' OR ${matches(qualified('n.nspname', 'c.relname'))}
         OR EXISTS (SELECT FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND ${matches('a.attname')}))
  UNION ALL
  SELECT 1, 0, 'view', c.oid::int8::float8, n.nspname, c.relname, NULL, NULL
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('v', 'm') AND ${userSchema('n')} AND ${inSchemas('n')} AND ${notFromExtension('pg_class', 'c.oid')}
    AND ${search(qualified('n.nspname', 'c.relname'))}
  UNION ALL
  SELECT 2, 0, 'function', p.oid::int8::float8, n.nspname, p.proname, NULL, pg_get_function_identity_arguments(p.oid)
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE ${userSchema('n')} AND ${inSchemas('n')} AND ${notFromExtension('pg_proc', 'p.oid')}
    AND ${search(qualified('n.nspname', 'p.proname'))}
  UNION ALL
  SELECT 3, CASE t.typtype WHEN 'e' THEN 0 WHEN 'd' THEN 1 ELSE 2 END,
         CASE t.typtype WHEN 'e' THEN 'enum' WHEN 'd' THEN 'domain' ELSE 'composite' END,
         t.oid::int8::float8, n.nspname, t.typname, NULL, NULL
  FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
  LEFT JOIN pg_catalog.pg_class c ON c.oid = t.typrelid
  WHERE (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND c.relkind = 'c'))
    AND ${userSchema('n')} AND ${inSchemas('n')} AND ${notFromExtension('pg_type', 't.oid')}
    AND ($2 = '' OR ${matches(qualified('n.nspname', 't.typname'))}
         OR EXISTS (SELECT FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid AND ${matches('e.enumlabel')}))
  UNION ALL
  SELECT 4, 0, 'trigger', tg.oid::int8::float8, n.nspname, c.relname, tg.tgname, NULL
  FROM pg_catalog.pg_trigger tg
  JOIN pg_catalog.pg_class c ON c.oid = tg.tgrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE (NOT tg.tgisinternal OR (tg.tgparentid <> 0 AND tg.tgconstraint = 0)) AND ${userSchema('n')} AND ${inSchemas('n')}
    AND ${search('tg.tgname', qualified('n.nspname', 'c.relname'))}
  UNION ALL
  SELECT 5, 0, 'sequence', c.oid::int8::float8, n.nspname, c.relname, NULL, NULL
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'S' AND ${userSchema('n')} AND ${inSchemas('n')} AND ${search(qualified('n.nspname', 'c.relname'))}
)
SELECT (SELECT coalesce(json_object_agg(k.kind, k.n), '{}')
        FROM (SELECT CASE WHEN o.rank = 3 THEN 'type' ELSE o.kind END AS kind, count(*) AS n FROM objects o GROUP BY 1) k) AS counts,
       (SELECT coalesce(json_agg(json_build_array(p.kind, p.oid, p.schema, p.name, p.name2) ORDER BY p.rank, p.sub, p.schema, p.name, p.name2, p.args), '[]')
        FROM (SELECT * FROM objects o ORDER BY o.rank, o.sub, o.schema, o.name, o.name2, o.args OFFSET $3 LIMIT $4) p) AS page`;

/** One page of the objects of `schemas` (null: every schema) matching `search` (lower case; '' for all). */
export async function listObjectsPage(
  db: Rows,
  schemas: string[] | null,
  search: string,
  offset: number,
  limit: number,
  filters?: SchemaFilters,
): Promise<ObjectsPage> {
  const [row] = await db.rows<ObjectsPage>(objectsSql, [schemas, search, offset, limit, ...schemaFilterParams(filters)]);
  return row ?? { counts: {}, page: [] };
}
