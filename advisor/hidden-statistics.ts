// Plans made without production's column statistics: the snapshot records the tables whose
// statistics pg_stats hid from the role (snapshot/stats.ts readHiddenStatistics). A table never
// analyzed is planned with the defaults in production too, so only hidden ones are reported.
import type { PlannedQuery } from '../shared/analysis.js';
import { hiddenStatisticsWarning } from '../shared/statistics-warnings.js';
import type { Snapshot } from '../snapshot/types.js';

/** The tables (schema.name) whose production statistics the snapshot lacks. */
function hiddenTables(snapshot: Pick<Snapshot, 'hiddenStatistics'>): Set<string> {
  return new Set((snapshot.hiddenStatistics ?? []).filter((h) => h.statistics === 'hidden').map((h) => `${h.schema}.${h.table}`));
}

/** One warning per table a plan reads without its statistics, in name order. */
export function hiddenStatisticsWarnings(snapshot: Pick<Snapshot, 'hiddenStatistics'>, plans: readonly { tablesUsed?: readonly string[] }[]): string[] {
  const hidden = hiddenTables(snapshot);
  const read = new Set(plans.flatMap((p) => (p.tablesUsed ?? []).filter((t) => hidden.has(t))));
  return [...read].sort().map(hiddenStatisticsWarning);
}

/** Each planned query with the warnings of the tables its own plan reads without their statistics. */
export function withQueryStatisticsWarnings(snapshot: Pick<Snapshot, 'hiddenStatistics'>, queries: PlannedQuery[]): PlannedQuery[] {
  if (hiddenTables(snapshot).size === 0) return queries;
  return queries.map((q) => {
    const warnings = hiddenStatisticsWarnings(snapshot, [q]);
    return warnings.length ? { ...q, warnings } : q;
  });
}
