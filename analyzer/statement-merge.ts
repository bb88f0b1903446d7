// One catalog entry from the pg_stat_statements rows that share a fingerprint (the same statement
// under several queryids: other roles, top-level or nested, literals pg_stat_statements did not
// normalize). The entry reads as if PostgreSQL had counted them as one statement.
import type { QueryStats } from '../shared/analyzer-schema';
import type { StatementRow } from './catalog/statements.sql';

export type StatementWithText = StatementRow & { query: string };

const sum = (rows: StatementWithText[], figure: (row: StatementWithText) => number) => rows.reduce((total, row) => total + figure(row), 0);

/**
 * Merges the rows of one fingerprint: calls, rows, time and blocks add up; the mean is weighted by
 * calls; the standard deviation is pooled (pg_stat_statements keeps each row's population stddev,
 * so sum of calls x (stddev² + mean²) over all calls, less the merged mean², is the merged
 * variance); min and max are the extremes over rows that ran at all; the text shown is the most
 * called row's. `rows` must not be empty.
 */
export function mergeStatements(rows: StatementWithText[]): Omit<QueryStats, 'hash' | 'formattedQuery'> {
  const calls = sum(rows, (r) => r.calls);
  const totalTimeMs = sum(rows, (r) => r.totalTimeMs);
  const meanTimeMs = calls > 0 ? totalTimeMs / calls : 0;
  const sumOfSquares = sum(rows, (r) => r.calls * (r.stddevTimeMs ** 2 + r.meanTimeMs ** 2));
  const variance = calls > 0 ? Math.max(0, sumOfSquares / calls - meanTimeMs ** 2) : 0;
  const called = rows.filter((r) => r.calls > 0);
  const representative = rows.reduce((best, r) => (r.calls > best.calls ? r : best));
  return {
    queryids: rows.map((r) => r.queryid ?? '').filter(Boolean),
    query: representative.query,
    calls,
    rows: sum(rows, (r) => r.rows),
    totalTimeMs,
    meanTimeMs,
    minTimeMs: called.length ? Math.min(...called.map((r) => r.minTimeMs)) : 0,
    maxTimeMs: called.length ? Math.max(...called.map((r) => r.maxTimeMs)) : 0,
    stddevTimeMs: Math.sqrt(variance),
    sharedBlksHit: sum(rows, (r) => r.sharedBlksHit),
    sharedBlksRead: sum(rows, (r) => r.sharedBlksRead),
  };
}
