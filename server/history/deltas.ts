// The work pg_stat_statements counted between two readings of one connection, entry by entry, then
// summed per query. pg_stat_statements holds totals since each entry was created or last reset, so:
// - the connection's first reading: nothing to subtract it from, no points;
// - an entry absent from the previous reading started at zero since then (a new statement, or one
//   evicted and created again): its counters count in full;
// - an entry whose calls went down was reset (pg_stat_statements_reset for it) or evicted and created
//   again: its current counters are the work since then, and count in full;
// - stats_reset moved (every entry was reset): every entry counts in full;
// - stats_reset moved while the entries were being read: they may be from either side of the reset,
//   so the reading counts as a first reading and gives no points.
// No rule subtracts across a reset, so no figure is ever negative, and no work is counted twice: what
// an entry did before its reset was counted by the earlier readings. An entry evicted and created
// again between two readings that got back above its old calls is counted from its old figures
// (too little, never too much): pg_stat_statements keeps no trace of the eviction per entry.
import type { StatementCounter } from '../../analyzer/statements';

export type Figures = {
  calls: number;
  totalTimeMs: number;
  rows: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
};

export type Counter = Pick<StatementCounter, 'entry' | 'hash'> & Figures;

export interface Previous {
  counters: ReadonlyMap<string, Counter>;
  statsReset: string | null;
}

export interface Current {
  counters: readonly Counter[];
  statsReset: string | null;
  resetDuringRead: boolean;
}

const FIGURES = ['calls', 'totalTimeMs', 'rows', 'sharedBlksHit', 'sharedBlksRead'] as const;

const zero = (): Figures => ({ calls: 0, totalTimeMs: 0, rows: 0, sharedBlksHit: 0, sharedBlksRead: 0 });

/** Per query hash, the work since the previous reading; null for a first reading (no previous, or a reset mid-read). */
export function diffCounters(previous: Previous | null, current: Current): Map<string, Figures> | null {
  if (!previous || current.resetDuringRead) return null;
  const allReset = current.statsReset !== null && previous.statsReset !== null && current.statsReset !== previous.statsReset;
  const byHash = new Map<string, Figures>();
  for (const counter of current.counters) {
    const before = allReset ? undefined : previous.counters.get(counter.entry);
    const fromZero = !before || counter.calls < before.calls;
    const delta = zero();
    for (const figure of FIGURES) delta[figure] = fromZero ? counter[figure] : Math.max(0, counter[figure] - before[figure]);
    if (delta.calls <= 0) continue;
    const sum = byHash.get(counter.hash) ?? zero();
    for (const figure of FIGURES) sum[figure] += delta[figure];
    byHash.set(counter.hash, sum);
  }
  return byHash;
}

/** Several connections' work at one reading (primary and replicas), summed per hash. */
export function sumByHash(parts: Iterable<Map<string, Figures>>): Map<string, Figures> {
  const total = new Map<string, Figures>();
  for (const part of parts) {
    for (const [hash, figures] of part) {
      const sum = total.get(hash) ?? zero();
      for (const figure of FIGURES) sum[figure] += figures[figure];
      total.set(hash, sum);
    }
  }
  return total;
}
