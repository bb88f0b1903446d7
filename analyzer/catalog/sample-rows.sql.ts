import pg from 'pg';
import type { SampleRow } from '../../shared/analyzer-schema';
import { queryRows, type Db } from '../db';

// The one statement built per table: identifiers are quoted by pg's escapeIdentifier (PostgreSQL's
// own rules: double quotes doubled), the limit is a bind parameter. row_to_json keeps the column
// order and turns every type into JSON PostgreSQL's way (bytea as \x hex, timestamps as ISO text).
// A plain LIMIT reads the first pages only: cheap on a big table, unlike ORDER BY random().
export function sampleRowsSql(schema: string, table: string): string {
  return `SELECT row_to_json(s) AS row FROM (SELECT * FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} LIMIT $1) s`;
}

export async function sampleRows(db: Db, schema: string, table: string, limit: number): Promise<SampleRow[]> {
  const rows = await queryRows<{ row: SampleRow }>(db, sampleRowsSql(schema, table), [limit]);
  return rows.map((r) => r.row);
}
