import { userSchema, type Rows } from './filters';

/**
 * How a column's values are read for sample rows:
 * - json: with to_json, which for these types runs only PostgreSQL's own code (built-in types, and
 *   domains, arrays and composites of them: to_json never looks for a cast on those), keeping
 *   numbers, booleans, JSON and nested rows as JSON;
 * - text: the text the type's output function prints (an enum's label, a range, an extension's
 *   type), with no cast involved;
 * - null: not read, because an output function involved is not C or internal code.
 */
type SampleRead = 'json' | 'text' | null;

export interface SampleColumnRow {
  relationOid: number;
  name: string;
  read: SampleRead;
}

// Every type a column's value is printed through: a domain's base type, an array's element, a
// composite's attributes, a range's subtype and a multirange's range. A user could create a cast
// from any of their own types to json or text, and to_json would call it for an enum or a range, so
// only types created by initdb (oid below 16384, FirstNormalObjectId) take the json path. Only a
// superuser can create a function in C, and only a superuser can create a base type, so a type whose
// every output function is C or internal prints with code the database's owner did not write.
const sampleColumnsSql = `
WITH RECURSIVE columns AS (
  SELECT a.attrelid AS relation, a.attnum, a.attname AS name, a.atttypid AS type
  FROM pg_catalog.pg_attribute a
  JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE a.attrelid = ANY ($1::pg_catalog.oid[]) AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
    AND ${userSchema('n')}
), reached(root, type) AS (
  SELECT DISTINCT type, type FROM columns
  UNION
  SELECT r.root, inner_type.oid
  FROM reached r
  JOIN pg_catalog.pg_type t ON t.oid = r.type
  CROSS JOIN LATERAL (
    SELECT t.typbasetype WHERE t.typtype = 'd'
    UNION ALL SELECT t.typelem WHERE t.typelem <> 0
    UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
              WHERE t.typrelid <> 0 AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL SELECT rg.rngsubtype FROM pg_catalog.pg_range rg WHERE rg.rngtypid = t.oid
    UNION ALL SELECT rg.rngtypid FROM pg_catalog.pg_range rg WHERE rg.rngmultitypid = t.oid
  ) inner_type(oid)
), verdict AS (
  SELECT r.root,
         bool_and(l.lanname IN ('internal', 'c')) AS printable,
         bool_and(t.typtype IN ('d', 'c') OR t.typsubscript = 'pg_catalog.array_subscript_handler'::pg_catalog.regproc
                  OR t.oid < 16384) AS built_in
  FROM reached r
  JOIN pg_catalog.pg_type t ON t.oid = r.type
  JOIN pg_catalog.pg_proc p ON p.oid = t.typoutput
  JOIN pg_catalog.pg_language l ON l.oid = p.prolang
  GROUP BY r.root
)
SELECT c.relation AS "relationOid",
       c.name,
       CASE WHEN NOT v.printable THEN NULL WHEN v.built_in THEN 'json' ELSE 'text' END AS read
FROM columns c
JOIN verdict v ON v.root = c.type
ORDER BY c.relation, c.attnum`;

/** The columns of the tables `relations` (oids), for the tables about to be sampled only. */
export async function listSampleColumns(db: Rows, relations: number[]): Promise<SampleColumnRow[]> {
  if (relations.length === 0) return [];
  return db.rows<SampleColumnRow>(sampleColumnsSql, [relations]);
}
