// Reading production history: one query's points, the heaviest queries of a window, and the queries
// whose mean time rose against the window before. A point counts in a window when the reading that
// closed it falls inside (from, to]. An hour is read from its points while retention keeps them and
// from its sum in history_hour_sums once they are gone (an hour's sum counts as a point at the hour's
// start). Retention drops whole hours, oldest first, for every environment at once: an hour's sums
// stand for dropped points exactly when the environment has no point left before the hour ends.
import { and, desc, eq, gt, lte } from 'drizzle-orm';
import type { HistoryPoint, RegressedQuery, TopQuery } from '../../shared/history';
import { isoFromUtcText } from '../../shared/dates';
import type { Db, Store } from '../db/store';
import { historyTableFacts } from '../db/schema';
import { rowsOf } from '../catalog/sql';
import { requireEnvironment } from '../domain/environments';
import { loadParser } from '../../shared/sql-fingerprint';
import { dataGrowthCauses, type TableFacts } from './growth';
import { historyQuery, regressedStatement, topStatement, type TopOrder, type Window } from './read.sql';

// the bench (bench:read) measures the statements beside their floors through this module
export { historyQuery, topStatement } from './read.sql';
export type { Window } from './read.sql';

/** The request's window: `to` defaults to now, `from` to 24 hours before `to` (the schemas checked the order). */
export function windowOf(input: { from?: string; to?: string }): Window {
  const to = input.to ? new Date(input.to) : new Date();
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - 86_400_000);
  return { from, to };
}

type FigureRow = { calls: string | number; total_time_ms: number; rows: string | number; shared_blks_hit: string | number; shared_blks_read: string | number };

function figures(row: FigureRow) {
  const calls = Number(row.calls);
  const totalTimeMs = Number(row.total_time_ms);
  return {
    calls,
    totalTimeMs,
    meanTimeMs: calls > 0 ? totalTimeMs / calls : 0,
    rows: Number(row.rows),
    sharedBlksHit: Number(row.shared_blks_hit),
    sharedBlksRead: Number(row.shared_blks_read),
  };
}

/** The query's points in the window, oldest first; 404 for an unknown environment. */
export async function queryHistory(store: Pick<Store, 'db' | 'read'>, environmentId: string, hash: string, window: Window): Promise<HistoryPoint[]> {
  const [{ points }] = (await store.read<{ points: HistoryPoint[] }>(historyQuery(environmentId, hash, window))) as [{ points: HistoryPoint[] }];
  // no point: the environment may not exist (404); points prove it does
  if (points.length === 0) await requireEnvironment(store.db, environmentId);
  for (const point of points) point.at = isoFromUtcText(point.at);
  return points;
}

/** The environment's heaviest queries in the window, by total time, calls or mean time. */
export async function topQueries(db: Db, environmentId: string, window: Window, by: TopOrder, limit: number): Promise<TopQuery[]> {
  await requireEnvironment(db, environmentId);
  const rows = await rowsOf<FigureRow & { hash: string; formatted_query: string | null }>(db, topStatement(environmentId, window, by, limit));
  return rows.map((row) => ({ hash: row.hash, formattedQuery: row.formatted_query, ...figures(row) }));
}

/**
 * Queries run in both the window and the one of the same length before it whose mean time rose by
 * more than `thresholdPercent`, the largest rise first, each with the tables it reads that grew
 * between the two windows (growth.ts).
 */
export async function regressedQueries(db: Db, environmentId: string, window: Window, thresholdPercent: number, limit: number): Promise<RegressedQuery[]> {
  await requireEnvironment(db, environmentId);
  const length = window.to.getTime() - window.from.getTime();
  const before: Window = { from: new Date(window.from.getTime() - length), to: window.from };
  const rows = await rowsOf<{
    hash: string;
    query: string | null;
    formatted_query: string | null;
    calls: string;
    mean: number;
    previous_calls: string;
    previous_mean: number;
  }>(db, regressedStatement(environmentId, window, before, thresholdPercent, limit));
  const [factsBefore, factsAfter] =
    rows.length > 0 ? await Promise.all([lastTableFacts(db, environmentId, before), lastTableFacts(db, environmentId, window)]) : [null, null];
  if (factsBefore && factsAfter) await loadParser();
  return rows.map((row) => ({
    hash: row.hash,
    formattedQuery: row.formatted_query,
    calls: Number(row.calls),
    meanTimeMs: Number(row.mean),
    previousCalls: Number(row.previous_calls),
    previousMeanTimeMs: Number(row.previous_mean),
    changePercent: (Number(row.mean) / Number(row.previous_mean) - 1) * 100,
    causes: dataGrowthCauses(row.query, factsBefore, factsAfter),
  }));
}

/** The tables' sizes at the window's last reading; null when none was kept in it. */
async function lastTableFacts(db: Db, environmentId: string, window: Window): Promise<TableFacts | null> {
  const [row] = await db
    .select({ tables: historyTableFacts.tables })
    .from(historyTableFacts)
    .where(and(eq(historyTableFacts.environmentId, environmentId), gt(historyTableFacts.at, window.from), lte(historyTableFacts.at, window.to)))
    .orderBy(desc(historyTableFacts.at))
    .limit(1);
  return row?.tables ?? null;
}
