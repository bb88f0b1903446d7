import type { ColumnStats } from '../../shared/analyzer-schema';
import { oidIn, type Rows } from './filters';

export type ColumnStatsRow = ColumnStats & { schema: string; table: string; column: string };

// pg_stats only shows columns the role may read. Its value arrays are anyarray; their text form is
// a valid text[] literal, which reaches us as a JSON-friendly array of strings.
const columnStatsSql = (from: string) => `
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
${from}`;

const wholeDatabase = `
FROM pg_catalog.pg_stats s
WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema') AND s.schemaname OPERATOR(pg_catalog.!~~) 'pg\\_toast%'`;

// pg_stats shows no oids: its rows are matched to the relations by schema and name.
const ofRelations = `
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname
WHERE ${oidIn('c.oid', '$1')}`;

export function listColumnStats(db: Rows) {
  return db.rows<ColumnStatsRow>(columnStatsSql(wholeDatabase));
}

/** pg_stats of the relations `relations` (oids). */
export function columnStatsOf(db: Rows, relations: number[]) {
  return db.rows<ColumnStatsRow>(columnStatsSql(ofRelations), [relations]);
}
