import type { DbFunction } from '../../shared/analyzer-schema';
import { notFromExtension, oidIn, userSchema, type Rows } from './filters';

// Functions an extension installs (pg_trgm's, btree_gist's) are the extension's, not the schema's.
const functionsSql = (scope: string) => `
SELECT n.nspname AS schema,
       p.proname AS name,
       CASE p.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' WHEN 'w' THEN 'window' ELSE 'function' END AS kind,
       pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result,
       l.lanname AS language,
       CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable' ELSE 'volatile' END AS volatility,
       p.prosecdef AS "securityDefiner",
       pg_get_userbyid(p.proowner) AS owner,
       d.description AS comment,
       CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END AS definition
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
LEFT JOIN pg_catalog.pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objsubid = 0
WHERE ${notFromExtension('pg_proc', 'p.oid')} AND ${scope}
ORDER BY n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)`;

export function listFunctions(db: Rows) {
  return db.rows<DbFunction>(functionsSql(userSchema('n')));
}

/** The functions `functions` (their oids). */
export function functionsById(db: Rows, functions: number[]) {
  return db.rows<DbFunction>(functionsSql(oidIn('p.oid', '$1')), [functions]);
}
