// The words for a plan made without production's column statistics: the role querytrail connects
// with may not read them (pg_stats shows a role only the columns it may SELECT), so the planner fell
// back to its defaults. One sentence per table, the same in the analysis, the verdict, the SPA and
// the pull-request comment, each with the fix.

export const MONITORING_ROLE_DOCS = 'docs/monitoring-role.md';

const LEAD = 'planned without production column statistics for ';

/** The warning for one table (schema.name): what happened and the two fixes. */
export function hiddenStatisticsWarning(table: string): string {
  return (
    `${LEAD}${table}: the role querytrail connects with may not read them, so estimates are the planner's defaults. ` +
    `Grant it SELECT on ${table}, or have an administrator install the querytrail.column_stats() helper (${MONITORING_ROLE_DOCS}).`
  );
}

/** The table a hiddenStatisticsWarning names, or undefined for any other text. */
export function hiddenStatisticsTable(text: string): string | undefined {
  if (!text.startsWith(LEAD)) return undefined;
  const rest = text.slice(LEAD.length);
  const end = rest.indexOf(': the role querytrail connects with');
  return end > 0 ? rest.slice(0, end) : undefined;
}

/** The short form for a pull-request comment or a terminal: the tables, and where the fix is. */
export function hiddenStatisticsLine(tables: readonly string[]): string {
  return `Planned without production column statistics for ${tables.join(', ')}: grant the role SELECT, or install the querytrail.column_stats() helper (${MONITORING_ROLE_DOCS}).`;
}
