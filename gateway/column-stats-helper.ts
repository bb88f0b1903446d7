// The column-statistics helper an administrator may install for a monitoring role
// (docs/monitoring-role.md, docs/monitoring-role.sql): querytrail.column_stats(), a SECURITY
// DEFINER function returning pg_stats rows as its owner sees them. pg_stats shows a role only the
// columns it may SELECT, so a pg_monitor role without SELECT on the application's tables plans with
// the planner's defaults; through the helper it gets the statistics of the tables the helper's
// owner was granted. querytrail never creates it; it only calls it when it finds it exactly.
//
// Why calling it runs no one's code with our privileges:
// - Found by exact identity, never through search_path: schema querytrail, name column_stats, no
//   arguments, returning SETOF pg_catalog.pg_stats, and the only function of that name in that
//   schema, so the schema-qualified call cannot resolve to another overload. A function of that
//   name elsewhere, or with another signature or return type, is never called.
// - SECURITY DEFINER, owned by a role we are not a member of: its body runs with its owner's
//   privileges, which that owner has anyway, never with ours. A SECURITY INVOKER function of the
//   right shape (whose body would run as us) is not used, nor a definer owned by our own role.
// - Called alone, under a savepoint rolled back right after (ReadOnlyTransaction.attempt), in the
//   read-only transaction: a setting its body changes for the transaction (search_path,
//   row_security) is undone before our next statement, a definer cannot SET ROLE, and a failure or
//   a timeout only means the helper is not used.
// - What it returns is data from someone else: callers keep only rows of the columns they read
//   from the catalog and parse each field as pg_stats' type (snapshot/stats.ts).
// The one window left: the function could be replaced between the check and the call by someone
// allowed to create functions in schema querytrail, which the documented setup keeps to the
// administrator who installed it.
import type { ReadOnlyTransaction } from './gateway';

export const COLUMN_STATS_HELPER = 'querytrail.column_stats()';

const usableHelperSql = `
SELECT pg_catalog.count(*) = 1
   AND pg_catalog.bool_and(p.pronargs = 0 AND p.prokind = 'f' AND p.proretset AND p.prosecdef
       AND p.prorettype = 'pg_catalog.pg_stats'::pg_catalog.regtype
       AND NOT pg_catalog.pg_has_role(p.proowner, 'MEMBER')
       AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
       AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')) AS usable
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'querytrail' AND p.proname = 'column_stats'`;

/** Whether querytrail.column_stats() exists exactly as documented and may be called. */
export async function columnStatsHelperUsable(tx: ReadOnlyTransaction): Promise<boolean> {
  const [row] = await tx.rows<{ usable: boolean | null }>(usableHelperSql);
  return row?.usable === true;
}

/**
 * Rows of `statement(from)`, where `from` is the helper's call to read as `FROM <from> s`; undefined
 * when the helper is absent, not as documented, or fails (the caller then has what pg_stats shows).
 */
export async function readThroughColumnStatsHelper<T>(
  tx: ReadOnlyTransaction,
  statement: (from: string) => string,
  params: unknown[] = [],
  options: { statementTimeoutMs?: number } = {},
): Promise<T[] | undefined> {
  if (!(await columnStatsHelperUsable(tx))) return undefined;
  const read = await tx.attempt(() => tx.rows<T>(statement(COLUMN_STATS_HELPER), params), options);
  return read.ok ? read.value : undefined;
}
