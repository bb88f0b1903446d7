// Every statement we send carries this comment so that pg_stat_statements readers (ours included)
// can tell our reads from the application's queries.

/**
 * Appended, never prepended: PostgreSQL 18's pg_stat_statements drops a leading comment from the
 * text it stores but keeps a trailing one (checked on 14 and 18).
 */
export const MARKER = '/* querytrail-analyzer */';

/** Appends the marker; statements are single, without a trailing semicolon. */
export function tag(sql: string): string {
  return `${sql.trimEnd()}\n${MARKER}`;
}
