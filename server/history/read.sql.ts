// The history reads' statements (read.ts runs them): one query's points, and the window sums the
// heaviest and the regressed queries are ranked by. An hour is read from its points while retention
// keeps them and from its sum in history_hour_sums once they are gone (an hour's sum counts as a
// point at the hour's start).
import { sql, type SQL } from 'drizzle-orm';
import type { TOP_ORDERS } from '../../shared/history';

export interface Window {
  from: Date;
  to: Date;
}

export type TopOrder = (typeof TOP_ORDERS)[number];

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

/**
 * One query's points in the window and the sums of its hours whose points are gone, as one JSON
 * array in one row. A driver statement for store.read, not a drizzle `SQL`: the read a chart
 * repeats, named so PostgreSQL parses it once per connection (bench:read measures it beside its floor).
 */
export function historyQuery(environmentId: string, hash: string, { from, to }: Window) {
  return { ...HISTORY_STATEMENT, values: [environmentId, hash, from.toISOString(), to.toISOString()] };
}

const ORDER: Record<TopOrder, SQL> = {
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

/** Per query, the window's sums (a subquery: the top and the regressed statements read it). */
function sumsIn(environmentId: string, window: Window): SQL {
  return sql`(SELECT hash, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, sum(rows) AS rows,
                     sum(shared_blks_hit) AS shared_blks_hit, sum(shared_blks_read) AS shared_blks_read
              FROM ${figuresIn(environmentId, window)} p GROUP BY hash HAVING sum(calls) > 0)`;
}

/**
 * The heaviest queries in a window, a row per query with its sums and catalog text: ranked in the
 * store and cut to `limit` there, since a busy environment sums thousands of queries. The hash breaks
 * ties, so a page is the same on every read (bench:read measures it beside its floor).
 */
export function topStatement(environmentId: string, window: Window, by: TopOrder, limit: number): SQL {
  return sql`SELECT w.*, c.formatted_query
             FROM ${sumsIn(environmentId, window)} w
             LEFT JOIN catalog_queries c ON c.environment_id = ${environmentId} AND c.hash = w.hash
             ORDER BY ${ORDER[by]}, w.hash
             LIMIT ${limit}`;
}

/**
 * Queries run in both windows whose mean time in `window` exceeds the one in `before` by more than
 * `thresholdPercent`, a row per query with both means and its catalog text, the largest rise first:
 * one join of the two windows' sums, so only the regressed rows leave the store. A query without time
 * before has no rise to measure (and no division by zero).
 */
export function regressedStatement(environmentId: string, window: Window, before: Window, thresholdPercent: number, limit: number): SQL {
  return sql`SELECT cur.hash, c.query, c.formatted_query, cur.calls, cur.total_time_ms / cur.calls AS mean,
               prev.calls AS previous_calls, prev.total_time_ms / prev.calls AS previous_mean
        FROM ${sumsIn(environmentId, window)} cur
        JOIN ${sumsIn(environmentId, before)} prev ON prev.hash = cur.hash
        LEFT JOIN catalog_queries c ON c.environment_id = ${environmentId} AND c.hash = cur.hash
        WHERE prev.total_time_ms > 0
          AND cur.total_time_ms / cur.calls > (prev.total_time_ms / prev.calls) * ${1 + thresholdPercent / 100}
        ORDER BY (cur.total_time_ms / cur.calls) / (prev.total_time_ms / prev.calls) DESC, cur.hash
        LIMIT ${limit}`;
}
