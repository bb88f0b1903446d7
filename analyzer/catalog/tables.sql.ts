import type { Table } from '../../shared/analyzer-schema';
import { oidIn, userSchema, type Rows } from './filters';

/** A table as the catalog describes it; columns, statistics and samples are joined in by oid. */
export type TableRow = Omit<Table, 'columns' | 'stats' | 'sampleRows'> & { oid: number };

const tablesSql = (scope: string) => `
SELECT c.oid,
       n.nspname AS schema,
       c.relname AS name,
       CASE c.relkind WHEN 'p' THEN 'partitioned' WHEN 'f' THEN 'foreign' ELSE 'table' END AS kind,
       pg_get_userbyid(c.relowner) AS owner,
       d.description AS comment,
       c.relrowsecurity AS "rowSecurity",
       CASE WHEN c.relispartition THEN json_build_object('schema', pn.nspname, 'name', pc.relname) END AS "partitionOf",
       CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS "partitionBound",
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS "partitionKey"
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_inherits i ON c.relispartition AND i.inhrelid = c.oid
LEFT JOIN pg_catalog.pg_class pc ON pc.oid = i.inhparent
LEFT JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace
LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
WHERE c.relkind IN ('r', 'p', 'f') AND ${scope}
ORDER BY n.nspname, c.relname`;

export function listTables(db: Rows) {
  return db.rows<TableRow>(tablesSql(userSchema('n')));
}

/** The tables among `relations` (oids). */
export function tablesOf(db: Rows, relations: number[]) {
  return db.rows<TableRow>(tablesSql(oidIn('c.oid', '$1')), [relations]);
}
