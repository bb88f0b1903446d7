import type { Trigger } from '../../shared/analyzer-schema';
import { oidIn, userSchema, type Rows } from './filters';

// Internal triggers implement foreign keys; they are constraints, listed there. Before PostgreSQL 15
// a trigger copied onto a partition was marked internal too: those (a parent, no constraint) count.
const triggersSql = (scope: string) => `
SELECT n.nspname AS schema,
       c.relname AS table,
       tg.tgname AS name,
       CASE tg.tgenabled WHEN 'D' THEN 'disabled' WHEN 'R' THEN 'replica' WHEN 'A' THEN 'always' ELSE 'origin' END AS enabled,
       json_build_object('schema', pn.nspname, 'name', p.proname) AS function,
       tg.tgparentid <> 0 AS inherited,
       pg_get_triggerdef(tg.oid, true) AS definition
FROM pg_catalog.pg_trigger tg
JOIN pg_catalog.pg_class c ON c.oid = tg.tgrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_proc p ON p.oid = tg.tgfoid
JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
WHERE (NOT tg.tgisinternal OR (tg.tgparentid <> 0 AND tg.tgconstraint = 0)) AND ${scope}
ORDER BY n.nspname, c.relname, tg.tgname`;

export function listTriggers(db: Rows) {
  return db.rows<Trigger>(triggersSql(userSchema('n')));
}

/** The triggers of the relations `relations` (oids). */
export function triggersOf(db: Rows, relations: number[]) {
  return db.rows<Trigger>(triggersSql(oidIn('tg.tgrelid', '$1')), [relations]);
}

/** The triggers `triggers` (their own oids). */
export function triggersById(db: Rows, triggers: number[]) {
  return db.rows<Trigger>(triggersSql(oidIn('tg.oid', '$1')), [triggers]);
}
