// What may reach the shadow's EXPLAIN: exactly one statement that EXPLAIN plans without running
// it, checked on libpg_query's parse tree before any text is sent. The statement texts come from
// the user's database (pg_stat_statements), a CI run or a person: a second statement after a `;`
// would run with the shadow session's rights, and a utility statement (COPY, SET, CALL, DO, DDL)
// is not planned but executed, even under EXPLAIN's grammar neighbours. The server checks the
// "one statement" part again on its own parser (explain.ts).
import { parseSync } from 'libpg-query';

const PLANNED = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);
const ALLOWED = 'only one SELECT, INSERT, UPDATE, DELETE or MERGE statement (WITH allowed) is planned';

/** Names of the statements people most often send by mistake, for the refusal message. */
const NAMES: Record<string, string> = {
  CopyStmt: 'COPY',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  CallStmt: 'CALL',
  DoStmt: 'DO',
  ExplainStmt: 'EXPLAIN',
  TransactionStmt: 'a transaction command',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  IndexStmt: 'CREATE INDEX',
  ViewStmt: 'CREATE VIEW',
  CreateTrigStmt: 'CREATE TRIGGER',
  RuleStmt: 'CREATE RULE',
  DefineStmt: 'CREATE TYPE/OPERATOR/AGGREGATE',
  DropStmt: 'DROP',
  GrantStmt: 'GRANT',
  GrantRoleStmt: 'GRANT',
  VacuumStmt: 'VACUUM/ANALYZE',
  DeclareCursorStmt: 'DECLARE CURSOR',
};

/** CreateFunctionStmt -> CREATE FUNCTION, AlterRoleStmt -> ALTER ROLE: every other kind is DDL or server control. */
const statementName = (type: string) =>
  NAMES[type] ??
  type
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();

/**
 * Why `sql` may not be planned, or undefined when it may. The parser must be loaded
 * (loadParser in shared/sql-fingerprint.ts).
 */
export function refusalReason(sql: string): string | undefined {
  const none = `refused: the text holds no statement; ${ALLOWED}`;
  if (!sql.trim()) return none;
  let stmts: { stmt?: Record<string, unknown> }[];
  try {
    stmts = (parseSync(sql).stmts ?? []) as { stmt?: Record<string, unknown> }[];
  } catch (e) {
    return `parse: ${(e as Error).message}`;
  }
  if (stmts.length === 0) return none;
  if (stmts.length > 1) return `refused: the text holds ${stmts.length} statements; ${ALLOWED}`;
  const node = stmts[0]!.stmt ?? {};
  const type = Object.keys(node)[0] ?? 'unknown';
  if (!PLANNED.has(type)) return `refused: ${statementName(type)} is not planned; ${ALLOWED}`;
  const body = node[type] as { intoClause?: unknown };
  if (type === 'SelectStmt' && body.intoClause) return `refused: SELECT INTO creates a table; ${ALLOWED}`;
  return undefined;
}
