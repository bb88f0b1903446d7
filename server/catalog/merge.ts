// How several sightings of one statement (one fingerprint) become one catalog row: a query listed
// twice in one CI run, or one statement read from a primary and its replicas, which each count
// their own executions. Pure: no database.
import { mergeCallSites } from '../../shared/call-sites';
import { CI_LIMITS } from '../../shared/ci';
import type { CatalogRow } from './catalog-write';

interface Figures {
  calls: number | null;
  meanTimeMs: number | null;
}

/**
 * Calls added up, held at CI_LIMITS.maxCalls: a sum of many large counts must not overflow the
 * bigint column (nor lose integer precision in JavaScript) and fail the whole write.
 */
export function addCalls(a: number, b: number): number {
  return Math.min(a + b, CI_LIMITS.maxCalls);
}

/**
 * Calls add up and the mean is weighted by each side's calls. A side that does not know its calls
 * or its mean cannot be weighted: the known figures are kept, the later side's mean first.
 */
export function mergeFigures(earlier: Figures, later: Figures): Figures {
  if (earlier.calls === null || later.calls === null) {
    return { calls: earlier.calls ?? later.calls, meanTimeMs: later.meanTimeMs ?? earlier.meanTimeMs };
  }
  const calls = addCalls(earlier.calls, later.calls);
  if (earlier.meanTimeMs === null || later.meanTimeMs === null) return { calls, meanTimeMs: later.meanTimeMs ?? earlier.meanTimeMs };
  const weight = earlier.calls + later.calls;
  const meanTimeMs = weight > 0 ? (earlier.meanTimeMs * earlier.calls + later.meanTimeMs * later.calls) / weight : later.meanTimeMs;
  return { calls, meanTimeMs };
}

/** Two sightings of one statement: their figures (mergeFigures) and their call sites, the earlier's first. */
export function mergeSightings(earlier: Figures & Pick<CatalogRow, 'callSites'>, later: Figures & Pick<CatalogRow, 'callSites'>) {
  return { ...mergeFigures(earlier, later), callSites: mergeCallSites([earlier.callSites ?? [], later.callSites ?? []]) };
}

/**
 * The statements of several production connections as one row per hash: calls add up, means are
 * weighted by calls, the text is the first connection's and the call sites are every connection's. In hash order.
 */
export function mergeConnections(readings: readonly (readonly CatalogRow[])[]): CatalogRow[] {
  const merged = new Map<string, CatalogRow>();
  for (const statements of readings) {
    for (const statement of statements) {
      const seen = merged.get(statement.hash);
      merged.set(statement.hash, seen ? { ...seen, ...mergeSightings(seen, statement) } : { ...statement, calls: clampCalls(statement.calls) });
    }
  }
  return sortByHash([...merged.values()]);
}

const clampCalls = (calls: number | null) => (calls === null ? null : addCalls(0, calls));

/** Rows in hash order: the order every writer locks catalog rows in (see upsert.ts). */
export function sortByHash<T extends { hash: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
}
