import { z } from 'zod';
import { columnStatsSchema, type ColumnStats } from '../../shared/analyzer-schema';
import { readThroughColumnStatsHelper, type ReadOnlyTransaction } from '../../gateway/index';
import { oidIn, type Rows } from './filters';

export type ColumnStatsRow = ColumnStats & { schema: string; table: string; column: string };

/** A row's ColumnStats: without the names it is joined to its column by. */
export function toColumnStats(row: ColumnStatsRow): ColumnStats {
  const { schema: _schema, table: _table, column: _column, ...stats } = row;
  return stats;
}

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
const ofRelations = (stats: string) => `
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN ${stats} s ON s.schemaname = n.nspname AND s.tablename = c.relname
WHERE ${oidIn('c.oid', '$1')}`;

export function listColumnStats(db: Rows) {
  return db.rows<ColumnStatsRow>(columnStatsSql(wholeDatabase));
}

/**
 * pg_stats of the relations `relations` (oids). Columns pg_stats hides from the role come from the
 * administrator's helper when it is installed (gateway/column-stats-helper.ts): its rows are
 * someone else's data, kept only when they have pg_stats' shape and never over pg_stats' own.
 */
export async function columnStatsOf(tx: ReadOnlyTransaction, relations: number[]): Promise<ColumnStatsRow[]> {
  const own = await tx.rows<ColumnStatsRow>(columnStatsSql(ofRelations('pg_catalog.pg_stats')), [relations]);
  const helped = await readThroughColumnStatsHelper<ColumnStatsRow>(tx, (from) => columnStatsSql(ofRelations(from)), [relations], {
    statementTimeoutMs: 5_000,
  });
  if (!helped) return own;
  const key = (row: ColumnStatsRow) => JSON.stringify([row.schema, row.table, row.column, row.inherited]);
  const seen = new Set(own.map(key));
  const added = helped.filter((row) => helperRowSchema.safeParse(row).success && !seen.has(key(row)) && seen.add(key(row)));
  return [...own, ...added];
}

const helperRowSchema = columnStatsSchema.extend({ schema: z.string(), table: z.string(), column: z.string() });
