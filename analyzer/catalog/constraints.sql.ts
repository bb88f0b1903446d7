import type { Constraint } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';
import { userSchema } from './filters';

// Every row of pg_constraint in the user's schemas: table constraints and domain constraints, and on
// PostgreSQL 18 the NOT NULL constraints it now records there (5,252 of GitLab's 8,246). Column
// names are resolved for all constraints in one grouped pass: a subquery per constraint took half
// of this query's time.
const constraintsSql = `
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
SELECT n.nspname AS schema,
       con.conname AS name,
       CASE con.contype WHEN 'c' THEN 'check' WHEN 'f' THEN 'foreignKey' WHEN 'n' THEN 'notNull'
         WHEN 'p' THEN 'primaryKey' WHEN 'u' THEN 'unique' WHEN 'x' THEN 'exclusion' WHEN 't' THEN 'trigger' END AS type,
       CASE WHEN con.conrelid <> 0 THEN json_build_object('schema', tn.nspname, 'name', t.relname) END AS table,
       CASE WHEN con.contypid <> 0 THEN json_build_object('schema', yn.nspname, 'name', y.typname) END AS domain,
       coalesce(kc.names, '[]') AS columns,
       pg_get_constraintdef(con.oid, true) AS definition,
       con.convalidated AS validated,
       con.condeferrable AS deferrable,
       con.condeferred AS deferred,
       con.conparentid <> 0 AS inherited,
       CASE WHEN con.contype = 'f' THEN json_build_object(
         'schema', fn.nspname,
         'table', f.relname,
         'columns', coalesce(rc.names, '[]')) END AS references
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_namespace n ON n.oid = con.connamespace
LEFT JOIN key_columns kc ON kc.oid = con.oid
LEFT JOIN referenced_columns rc ON rc.oid = con.oid
LEFT JOIN pg_catalog.pg_class t ON t.oid = con.conrelid
LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
LEFT JOIN pg_catalog.pg_type y ON y.oid = con.contypid
LEFT JOIN pg_catalog.pg_namespace yn ON yn.oid = y.typnamespace
LEFT JOIN pg_catalog.pg_class f ON f.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
WHERE ${userSchema('n')}
ORDER BY n.nspname, t.relname NULLS FIRST, con.conname`;

export function listConstraints(db: Gateway) {
  return db.rows<Constraint>(constraintsSql);
}
