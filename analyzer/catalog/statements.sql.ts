import { escapeIdentifier, MARKER, type Gateway } from '../../gateway/index';

export interface StatementRow {
  queryid: string | null;
  /** pg_stat_statements' own key besides queryid and the database: who ran it, and whether at top level. */
  userid?: string;
  toplevel?: boolean;
  query: string | null;
  calls: number;
  rows: number;
  totalTimeMs: number;
  meanTimeMs: number;
  minTimeMs: number;
  maxTimeMs: number;
  stddevTimeMs: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
}

// Columns renamed across versions: PostgreSQL 13 split total_time into plan and exec time. Newer
// names first; we read the view's columns instead of trusting the server version.
const COLUMN_CANDIDATES: Record<Exclude<keyof StatementRow, 'queryid' | 'query' | 'userid' | 'toplevel'>, string[]> = {
  calls: ['calls'],
  rows: ['rows'],
  totalTimeMs: ['total_exec_time', 'total_time'],
  meanTimeMs: ['mean_exec_time', 'mean_time'],
  minTimeMs: ['min_exec_time', 'min_time'],
  maxTimeMs: ['max_exec_time', 'max_time'],
  stddevTimeMs: ['stddev_exec_time', 'stddev_time'],
  sharedBlksHit: ['shared_blks_hit'],
  sharedBlksRead: ['shared_blks_read'],
};

const extensionSql = `
SELECT n.nspname AS schema, e.extversion AS version
FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'pg_stat_statements'`;

const viewColumnsSql = `
SELECT a.attname AS name
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = (SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = $1 AND c.relname = 'pg_stat_statements')
  AND a.attnum > 0 AND NOT a.attisdropped`;

/** Builds the read of the view from the columns it has. */
function statementsSql(schema: string, columns: ReadonlySet<string>): string {
  const select = Object.entries(COLUMN_CANDIDATES).map(([alias, candidates]) => {
    const column = candidates.find((name) => columns.has(name));
    if (!column) throw new Error(`pg_stat_statements has none of the columns ${candidates.join(', ')}; this version of the extension is not supported`);
    return `s.${column}::float8 AS "${alias}"`;
  });
  // dbid: the connected database only. The marker drops the analyzer's own statements, this one too.
  const toplevel = columns.has('toplevel') ? 's.toplevel' : 'true';
  return `
SELECT s.queryid::text AS queryid, s.userid::text AS userid, ${toplevel} AS toplevel, s.query, ${select.join(', ')}
FROM ${escapeIdentifier(schema)}.pg_stat_statements s
WHERE s.dbid = $1 AND (s.query IS NULL OR pg_catalog.strpos(s.query, $2) = 0)`;
}

/** The connected database's statements; when pg_stat_statements is missing or unreadable, the error says what to do. */
export async function listStatements(db: Gateway, databaseOid: number, database: string): Promise<StatementRow[]> {
  const [extension] = await db.rows<{ schema: string; version: string }>(extensionSql);
  if (!extension) {
    throw new Error(
      `pg_stat_statements is not installed in database "${database}". Run CREATE EXTENSION pg_stat_statements; in it ` +
        `(the server must also list pg_stat_statements in shared_preload_libraries, which needs a restart).`,
    );
  }
  const columns = new Set((await db.rows<{ name: string }>(viewColumnsSql, [extension.schema])).map((r) => r.name));
  try {
    return await db.rows<StatementRow>(statementsSql(extension.schema, columns), [databaseOid, MARKER]);
  } catch (error) {
    const message = (error as Error).message;
    if (/shared_preload_libraries/.test(message)) {
      throw new Error(`pg_stat_statements is installed but not loaded: add it to shared_preload_libraries and restart PostgreSQL (${message})`, {
        cause: error,
      });
    }
    throw error;
  }
}
