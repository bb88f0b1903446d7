// Reading production history: one query's points, the heaviest queries of a window, and the queries
// whose mean time rose against the window before. A point counts in a window when the reading that
// closed it falls inside (from, to]. An hour is read from its points while retention keeps them and
// from its sum in history_hour_sums once they are gone (an hour's sum counts as a point at the hour's
// start). Retention drops whole hours, oldest first, for every environment at once: an hour's sums
// stand for dropped points exactly when the environment has no point left before the hour ends.
import { sql, type SQL } from 'drizzle-orm';
import type { HistoryPoint, RegressedQuery, TopQuery, TOP_ORDERS } from '../../shared/history';
import { isoFromUtcText } from '../../shared/dates';
import type { Db, Store } from '../db/store';
import { rowsOf } from '../catalog/sql';
import { requireEnvironment } from '../domain/environments';
import { loadParser } from '../../shared/sql-fingerprint';
import { dataGrowthCauses, type TableFacts } from './growth';

export interface Window {
  from: Date;
  to: Date;
}

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

// One query's points in one statement, as one JSON array: a week of 10-minute points is a thousand
// rows, which either driver decodes far faster as one value than field by field (and on PGlite
// that decoding is the server's own thread). Timestamps come as UTC text, finished by
// isoFromUtcText; the mean is the same IEEE division the other reads make in JavaScript.
const pointColumns = `at AT TIME ZONE 'UTC' AS at, calls, total_time_ms AS "totalTimeMs",
         CASE WHEN calls > 0 THEN total_time_ms / calls ELSE 0 END AS "meanTimeMs", rows,
         shared_blks_hit AS "sharedBlksHit", shared_blks_read AS "sharedBlksRead"`;
/**
 * The bound an hour's start stays within when its points are gone: an hour before the environment's
 * oldest point (+infinity when it has none). One probe of history_points_environment_at_idx, and a
 * bound on `at` the hour sums' indexes take. In two parts, around the environment's id.
 */
const POINTS_GONE_BEFORE = ['coalesce((SELECT min(at) FROM history_points WHERE environment_id = ', "), 'infinity') - interval '1 hour'"] as const;
const pointsOfHash = 'environment_id = $1 AND hash = $2 AND at > $3::timestamptz AND at <= $4::timestamptz';
const HISTORY_STATEMENT = {
  name: 'query-history',
  text: `
    SELECT coalesce(json_agg(p ORDER BY p.at), '[]') AS points
    FROM (SELECT ${pointColumns} FROM history_points WHERE ${pointsOfHash}
          UNION ALL
          SELECT ${pointColumns} FROM history_hour_sums
          WHERE ${pointsOfHash} AND at <= ${POINTS_GONE_BEFORE[0]}$1${POINTS_GONE_BEFORE[1]}) p`,
};

/** The statement a query's history sends (exported for bench:read's floor). */
export function historyQuery(environmentId: string, hash: string, { from, to }: Window) {
  return { ...HISTORY_STATEMENT, values: [environmentId, hash, from.toISOString(), to.toISOString()] };
}

/** The query's points in the window, oldest first; 404 for an unknown environment. */
export async function queryHistory(store: Pick<Store, 'db' | 'read'>, environmentId: string, hash: string, window: Window): Promise<HistoryPoint[]> {
  const [{ points }] = (await store.read<{ points: HistoryPoint[] }>(historyQuery(environmentId, hash, window))) as [{ points: HistoryPoint[] }];
  // no point: the environment may not exist (404); points prove it does
  if (points.length === 0) await requireEnvironment(store.db, environmentId);
  for (const point of points) point.at = isoFromUtcText(point.at);
  return points;
}

const ORDER: Record<(typeof TOP_ORDERS)[number], SQL> = {
  totalTime: sql`total_time_ms DESC`,
  calls: sql`calls DESC`,
  meanTime: sql`total_time_ms / calls DESC`,
};

const HOUR_MS = 3_600_000;

/**
 * The window's figures, summed per query or not yet: the whole hours inside it from the hour sums,
 * the partial hours at its ends from the points, or from their hours' sums once the points are gone.
 * A day of a thousand busy queries is then 24,000 sums and at most two hours of points, instead of
 * 144,000 points.
 */
function figuresIn(environmentId: string, window: Window): SQL {
  const at = (time: Date | number) => sql`${new Date(time).toISOString()}::timestamptz`;
  const part = (table: string, range: SQL) =>
    sql`SELECT hash, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read FROM ${sql.identifier(table)}
        WHERE environment_id = ${environmentId} AND ${range}`;
  // whole hours [first, last): each starts after `from` and ends by `to`
  const first = Math.floor(window.from.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const last = Math.floor(window.to.getTime() / HOUR_MS) * HOUR_MS;
  const inWindow = sql`at > ${at(window.from)} AND at <= ${at(window.to)}`;
  const parts =
    first >= last
      ? [part('history_points', inWindow)]
      : [
          part('history_points', sql`at > ${at(window.from)} AND at < ${at(first)}`),
          part('history_hour_sums', sql`at >= ${at(first)} AND at < ${at(last)}`),
          part('history_points', sql`at >= ${at(last)} AND at <= ${at(window.to)}`),
        ];
  // the partial hours' sums whose points are gone; (from, first) holds no hour's start
  const endHours = first >= last ? inWindow : sql`at >= ${at(last)} AND at <= ${at(window.to)}`;
  const pointsGone = sql`at <= ${sql.raw(POINTS_GONE_BEFORE[0])}${environmentId}${sql.raw(POINTS_GONE_BEFORE[1])}`;
  parts.push(part('history_hour_sums', sql`${endHours} AND ${pointsGone}`));
  return sql`(${sql.join(parts, sql` UNION ALL `)})`;
}

/** Per query, the window's sums. */
function sumsIn(environmentId: string, window: Window): SQL {
  return sql`(SELECT hash, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, sum(rows) AS rows,
                     sum(shared_blks_hit) AS shared_blks_hit, sum(shared_blks_read) AS shared_blks_read
              FROM ${figuresIn(environmentId, window)} p GROUP BY hash HAVING sum(calls) > 0)`;
}

type TopOrder = (typeof TOP_ORDERS)[number];

/** The statement of the heaviest queries in a window (exported for bench:read's floor). */
export function topStatement(environmentId: string, window: Window, by: TopOrder, limit: number): SQL {
  return sql`SELECT w.*, c.formatted_query
             FROM ${sumsIn(environmentId, window)} w
             LEFT JOIN catalog_queries c ON c.environment_id = ${environmentId} AND c.hash = w.hash
             ORDER BY ${ORDER[by]}, w.hash
             LIMIT ${limit}`;
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
  }>(
    db,
    sql`SELECT cur.hash, c.query, c.formatted_query, cur.calls, cur.total_time_ms / cur.calls AS mean,
               prev.calls AS previous_calls, prev.total_time_ms / prev.calls AS previous_mean
        FROM ${sumsIn(environmentId, window)} cur
        JOIN ${sumsIn(environmentId, before)} prev ON prev.hash = cur.hash
        LEFT JOIN catalog_queries c ON c.environment_id = ${environmentId} AND c.hash = cur.hash
        WHERE prev.total_time_ms > 0
          AND cur.total_time_ms / cur.calls > (prev.total_time_ms / prev.calls) * ${1 + thresholdPercent / 100}
        ORDER BY (cur.total_time_ms / cur.calls) / (prev.total_time_ms / prev.calls) DESC, cur.hash
        LIMIT ${limit}`,
  );
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
  const [row] = await rowsOf<{ tables: TableFacts }>(
    db,
    sql`SELECT tables FROM history_table_facts
        WHERE environment_id = ${environmentId} AND at > ${window.from.toISOString()}::timestamptz AND at <= ${window.to.toISOString()}::timestamptz
        ORDER BY at DESC
        LIMIT 1`,
  );
  return row?.tables ?? null;
}
