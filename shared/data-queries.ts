// Which statements are the application's queries, as opposed to migrations, session plumbing and
// PostgreSQL's own trigger statements. Used by production sync, the ci-report command and the
// analyzer's /postgres/analyze, so all three keep the same statements.
import { parseSync } from 'libpg-query';

// What an application runs against its data. Migrations' DDL and session plumbing would flood the
// catalog with statements that change every run and have no plan worth watching.
const QUERY_ROOTS = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

// Functions of PostgreSQL itself that drivers, migration tools and health checks call bare
// (SELECT pg_advisory_lock($1), SELECT version(), SELECT 1): session plumbing, not the app's queries.
const PLUMBING_FUNCTIONS = new Set(['version', 'current_setting', 'set_config', 'now', 'current_database', 'current_schema', 'txid_current']);
const isPlumbingFunction = (name: string) => name.startsWith('pg_') || PLUMBING_FUNCTIONS.has(name);

/** What a statement reads: relations (FROM items) and the names of the functions it calls. */
function referencesOf(tree: unknown): { relations: number; functions: string[] } {
  const found = { relations: 0, functions: [] as string[] };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'RangeVar' || key === 'RangeFunction' || key === 'RangeSubselect') found.relations++;
      if (key === 'FuncCall') {
        const parts = (value as { funcname?: { String?: { sval?: string } }[] }).funcname ?? [];
        found.functions.push(parts.at(-1)?.String?.sval ?? '');
      }
      walk(value);
    }
  };
  walk(tree);
  return found;
}

/**
 * The statements PostgreSQL's foreign-key triggers run (ri_triggers.c), which pg_stat_statements
 * records among nested statements: they always name the table with ONLY "schema"."table" and
 * compare with OPERATOR(pg_catalog.=), which applications do not write.
 */
function isForeignKeyTriggerQuery(query: string): boolean {
  return query.includes('OPERATOR(pg_catalog.') && /\bONLY "[^"]+"\."[^"]+"/.test(query);
}

/**
 * true for a data query of the application: SELECT, INSERT, UPDATE, DELETE or MERGE, except a
 * bare SELECT that reads no relation and calls only PostgreSQL's own functions.
 */
export function isDataQuery(query: string): boolean {
  if (isForeignKeyTriggerQuery(query)) return false;
  let stmts: { stmt?: Record<string, unknown> }[];
  try {
    stmts = (parseSync(query).stmts ?? []) as typeof stmts;
  } catch {
    return false;
  }
  if (stmts.length === 0) return false;
  return stmts.every(({ stmt = {} }) => {
    const root = Object.keys(stmt)[0] ?? '';
    if (!QUERY_ROOTS.has(root)) return false;
    if (root !== 'SelectStmt') return true;
    const { relations, functions } = referencesOf(stmt);
    return relations > 0 || functions.some((name) => !isPlumbingFunction(name));
  });
}
