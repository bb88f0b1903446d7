// Plans made without production's column statistics, in the verdict: the role of the
// environment's production connection may not read a table's statistics (pg_stats hides them), so
// the run and its baseline were both planned on the planner's defaults for that table. Each such
// query carries the warning among its notes (stored with its plan), a finding on it gets a
// no_statistics cause, and the verdict lists the tables once.
import { hiddenStatisticsWarnings, type Snapshot } from '../../advisor/index';
import { hiddenStatisticsTable } from '../../shared/statistics-warnings';
import type { FindingCause, Verdict } from '../../shared/policy';

/** The query's notes with a warning for each table its plan reads without production statistics, sorted. */
export function withStatisticsNotes(notes: readonly string[], snapshot: Snapshot, plan: { tablesUsed?: readonly string[] } | undefined): string[] {
  const warnings = plan ? hiddenStatisticsWarnings(snapshot, [plan]) : [];
  return warnings.length ? [...new Set([...notes, ...warnings])].sort() : [...notes];
}

/** A no_statistics cause for each table a query's notes say was planned without its statistics. */
export function statisticsCauses(notes: readonly string[]): FindingCause[] {
  return [...new Set(notes)].sort().flatMap((note) => {
    const table = hiddenStatisticsTable(note);
    return table ? [{ kind: 'no_statistics' as const, object: table, detail: note }] : [];
  });
}

/** The verdict with its queries' statistics warnings, once per table (none: the verdict as it is). */
export function withStatisticsWarnings(verdict: Verdict, queries: readonly { schemaNotes: readonly string[] }[]): Verdict {
  const warnings = [...new Set(queries.flatMap((q) => q.schemaNotes.filter((note) => hiddenStatisticsTable(note) !== undefined)))].sort();
  return warnings.length ? { ...verdict, warnings } : verdict;
}
