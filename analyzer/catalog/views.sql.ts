import type { View } from '../../shared/analyzer-schema';
import { notFromExtension, oidIn, userSchema, type Rows } from './filters';

// Views an extension installs (pg_stat_statements' own) belong to the extension.
export type ViewRow = Omit<View, 'columns'> & { oid: number };

const viewsSql = (scope: string) => `
SELECT c.oid,
       n.nspname AS schema,
       c.relname AS name,
       c.relkind = 'm' AS materialized,
       c.relispopulated AS populated,
       pg_get_userbyid(c.relowner) AS owner,
       d.description AS comment,
       pg_get_viewdef(c.oid, true) AS definition
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
WHERE c.relkind IN ('v', 'm') AND ${scope}
ORDER BY n.nspname, c.relname`;

export function listViews(db: Rows) {
  return db.rows<ViewRow>(viewsSql(`${userSchema('n')} AND ${notFromExtension('pg_class', 'c.oid')}`));
}

/** The views and materialized views among `relations` (oids), an extension's too (the caller knows which those are). */
export function viewsOf(db: Rows, relations: number[]) {
  return db.rows<ViewRow>(viewsSql(oidIn('c.oid', '$1')), [relations]);
}
