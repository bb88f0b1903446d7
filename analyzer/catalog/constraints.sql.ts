import type { Constraint } from '../../shared/analyzer-schema';
import { oidIn, userSchema, type Rows } from './filters';

// What both statements below read of a constraint (pg_constraint as con, its schema as n, and the
// joins of constraintNamesJoins): its schema, name and kind, and the table or domain it belongs to.
const constraintNames = `n.nspname AS schema,
       con.conname AS name,
       CASE con.contype WHEN 'c' THEN 'check' WHEN 'f' THEN 'foreignKey' WHEN 'n' THEN 'notNull'
         WHEN 'p' THEN 'primaryKey' WHEN 'u' THEN 'unique' WHEN 'x' THEN 'exclusion' WHEN 't' THEN 'trigger' END AS type,
       CASE WHEN con.conrelid <> 0 THEN json_build_object('schema', tn.nspname, 'name', t.relname) END AS table,
       CASE WHEN con.contypid <> 0 THEN json_build_object('schema', yn.nspname, 'name', y.typname) END AS domain`;

// What constraintNames and a foreign key's reference name, beside the constraint's schema (n): its
// table or domain with their schemas, and the table a foreign key references with its schema.
const constraintNamesJoins = `LEFT JOIN pg_catalog.pg_class t ON t.oid = con.conrelid
LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
LEFT JOIN pg_catalog.pg_type y ON y.oid = con.contypid
LEFT JOIN pg_catalog.pg_namespace yn ON yn.oid = y.typnamespace
LEFT JOIN pg_catalog.pg_class f ON f.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace`;

// The rest of a Constraint but its key columns; `referencedColumns` is the SQL (a JSON array) that
// names the columns a foreign key references, which each statement reads its own way.
function constraintFacts(referencedColumns: string): string {
  return `pg_get_constraintdef(con.oid, true) AS definition,
       con.convalidated AS validated,
       con.condeferrable AS deferrable,
       con.condeferred AS deferred,
       con.conparentid <> 0 AS inherited,
       CASE WHEN con.contype = 'f' THEN json_build_object(
         'schema', fn.nspname,
         'table', f.relname,
         'columns', ${referencedColumns}) END AS references`;
}

// Every row of pg_constraint in the user's schemas: table constraints and domain constraints, and on
// PostgreSQL 18 the NOT NULL constraints it now records there (5,252 of GitLab's 8,246). Column
// names are resolved for all constraints in one grouped pass: a subquery per constraint took half
// of this query's time.
const constraintsSql = (scope: string) => `
WITH key_columns AS (
  SELECT con.oid, json_agg(a.attname ORDER BY k.n) AS names
  FROM pg_catalog.pg_constraint con
  CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, n)
  JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
  GROUP BY con.oid
), referenced_columns AS (
  SELECT con.oid, json_agg(a.attname ORDER BY k.n) AS names
  FROM pg_catalog.pg_constraint con
  CROSS JOIN LATERAL unnest(con.confkey) WITH ORDINALITY AS k(attnum, n)
  JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
  WHERE con.contype = 'f'
  GROUP BY con.oid
)
SELECT ${constraintNames},
       coalesce(kc.names, '[]') AS columns,
       ${constraintFacts("coalesce(rc.names, '[]')")}
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_namespace n ON n.oid = con.connamespace
LEFT JOIN key_columns kc ON kc.oid = con.oid
LEFT JOIN referenced_columns rc ON rc.oid = con.oid
${constraintNamesJoins}
WHERE ${userSchema('n')} AND ${scope}
ORDER BY n.nspname, t.relname NULLS FIRST, con.conname`;

export function listConstraints(db: Rows) {
  return db.rows<Constraint>(constraintsSql('true'));
}

/** A constraint of a chunk before its columns are named: `keys` are attnums of `relationOid`. */
export type ConstraintRow = Omit<Constraint, 'columns'> & { relationOid: number; keys: number[] | null };

// A chunk's constraints: its tables' (by conrelid) and its domains' (by contypid), each found by an
// index of pg_constraint. The key columns are named by the caller from the columns it read; the
// referenced columns of a foreign key (another table, maybe in another chunk) by a lookup per key.
const chunkConstraintsSql = `
SELECT con.conrelid::int8::float8 AS "relationOid",
       con.conkey AS keys,
       ${constraintNames},
       ${constraintFacts(`coalesce((SELECT json_agg(a.attname ORDER BY k.n)
                                    FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, n)
                                    JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum), '[]')`)}
FROM (SELECT c.oid FROM pg_catalog.pg_constraint c WHERE ${oidIn('c.conrelid', '$1')}
      UNION ALL
      SELECT c.oid FROM pg_catalog.pg_constraint c WHERE ${oidIn('c.contypid', '$2')}) chunk
JOIN pg_catalog.pg_constraint con ON con.oid = chunk.oid
JOIN pg_catalog.pg_namespace n ON n.oid = con.connamespace
${constraintNamesJoins}
ORDER BY n.nspname, t.relname NULLS FIRST, con.conname`;

/**
 * The constraints of the tables `relations` and of the domains `domains` (oids), in the
 * whole-database order (a schema's domain constraints before its tables').
 */
export function constraintsOf(db: Rows, relations: number[], domains: number[]) {
  return db.rows<ConstraintRow>(chunkConstraintsSql, [relations, domains]);
}
