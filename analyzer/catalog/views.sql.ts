import type { View } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';
import { notFromExtension, userSchema } from './filters';

// Views an extension installs (pg_stat_statements' own) belong to the extension.
type ViewRow = Omit<View, 'columns'> & { oid: number };

const viewsSql = `
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
WHERE c.relkind IN ('v', 'm') AND ${userSchema('n')} AND ${notFromExtension('pg_class', 'c.oid')}
ORDER BY n.nspname, c.relname`;

export function listViews(db: Gateway) {
  return db.rows<ViewRow>(viewsSql);
}
