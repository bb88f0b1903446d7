// The same statement seen under several pg_stat_statements rows (other roles, top-level and
// nested) becomes one catalog entry whose figures are those PostgreSQL would show had it counted
// every execution under one row. Pure: no PostgreSQL.
import { describe, expect, it } from 'vitest';
import { mergeStatements, type StatementWithText } from './statement-merge';

/** The row pg_stat_statements would keep for executions taking these times (population stddev). */
function rowOf(queryid: string | null, query: string, timesMs: number[], extra: Partial<StatementWithText> = {}): StatementWithText {
  const calls = timesMs.length;
  const totalTimeMs = timesMs.reduce((a, b) => a + b, 0);
  const meanTimeMs = calls ? totalTimeMs / calls : 0;
  const variance = calls ? timesMs.reduce((a, t) => a + (t - meanTimeMs) ** 2, 0) / calls : 0;
  return {
    queryid,
    query,
    calls,
    rows: calls,
    totalTimeMs,
    meanTimeMs,
    minTimeMs: calls ? Math.min(...timesMs) : 0,
    maxTimeMs: calls ? Math.max(...timesMs) : 0,
    stddevTimeMs: Math.sqrt(variance),
    sharedBlksHit: 0,
    sharedBlksRead: 0,
    ...extra,
  };
}

describe('merging the pg_stat_statements rows of one fingerprint', () => {
  it('reads as one row over all executions: calls summed, mean weighted by calls, stddev pooled, min and max kept', () => {
    const asApp = rowOf('101', 'SELECT * FROM orders WHERE id = $1', [1, 3]);
    const asReporting = rowOf('202', 'select * from orders where id = $1', [10]);
    const asOneRow = rowOf(null, '', [1, 3, 10]);

    const merged = mergeStatements([asApp, asReporting]);

    expect(merged.calls).toBe(3);
    expect(merged.totalTimeMs).toBe(14);
    expect(merged.meanTimeMs).toBeCloseTo(14 / 3, 12); // not (2 + 10) / 2: the busier row weighs more
    expect(merged.stddevTimeMs).toBeCloseTo(asOneRow.stddevTimeMs, 12);
    expect(merged.minTimeMs).toBe(1);
    expect(merged.maxTimeMs).toBe(10);
  });

  it('adds up rows and shared blocks, keeps every queryid, and shows the most called text', () => {
    const merged = mergeStatements([
      rowOf('1', 'SELECT 1 /* rare */', [5], { rows: 4, sharedBlksHit: 10, sharedBlksRead: 1 }),
      rowOf('2', 'SELECT 1', [1, 1, 1], { rows: 7, sharedBlksHit: 30, sharedBlksRead: 2 }),
      rowOf(null, 'SELECT 1 -- unknown id', [2], { rows: 1 }),
    ]);
    expect(merged).toMatchObject({ queryids: ['1', '2'], query: 'SELECT 1', rows: 12, sharedBlksHit: 40, sharedBlksRead: 3 });
  });

  it('leaves rows that never ran out of min and max', () => {
    const merged = mergeStatements([rowOf('1', 'SELECT 1', []), rowOf('2', 'SELECT 1', [4, 6])]);
    expect(merged).toMatchObject({ calls: 2, meanTimeMs: 5, minTimeMs: 4, maxTimeMs: 6, stddevTimeMs: 1 });
  });

  it('answers zeros, not NaN, when no row ever ran', () => {
    const merged = mergeStatements([rowOf('1', 'SELECT 1', []), rowOf('2', 'SELECT 1', [])]);
    expect(merged).toMatchObject({ calls: 0, totalTimeMs: 0, meanTimeMs: 0, minTimeMs: 0, maxTimeMs: 0, stddevTimeMs: 0 });
  });

  it('answers a stddev of 0, not NaN, when rounding makes identical times pool to a variance just below 0', () => {
    // 3 x 0.1² / 3 - (0.3 / 3)² is about -1.7e-18 in floating point
    const merged = mergeStatements([rowOf('1', 'SELECT 1', [0.1, 0.1]), rowOf('2', 'SELECT 1', [0.1])]);
    expect(merged.stddevTimeMs).toBe(0);
  });
});
