import type { ColumnStats } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';

export type ColumnStatsRow = ColumnStats & { schema: string; table: string; column: string };

// pg_stats only shows columns the role may read. Its value arrays are anyarray; their text form is
// a valid text[] literal, which reaches us as a JSON-friendly array of strings.
const columnStatsSql = `
SELECT s.schemaname AS schema,
       s.tablename AS table,
       s.attname AS column,
       s.inherited,
       s.null_frac::float8 AS "nullFraction",
       s.avg_width::float8 AS "averageWidth",
       s.n_distinct::float8 AS "nDistinct",
       s.most_common_vals::text::text[] AS "mostCommonValues",
       s.most_common_freqs::float8[] AS "mostCommonFrequencies",
       s.histogram_bounds::text::text[] AS "histogramBounds",
       s.correlation::float8 AS correlation
FROM pg_catalog.pg_stats s
WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema') AND s.schemaname OPERATOR(pg_catalog.!~~) 'pg\\_toast%'`;

export function listColumnStats(db: Gateway) {
  return db.rows<ColumnStatsRow>(columnStatsSql);
}
