import type { Result, SampleRow } from '../../shared/analyzer-schema';
import { escapeIdentifier, messageOf, type Gateway } from '../../gateway/index';
import type { SampleColumnRow } from './sample-columns.sql';

// The one statement built per table: identifiers are quoted by PostgreSQL's rules (double quotes
// doubled), the limit is a bind parameter. Each column is read the way sample-columns.sql.ts decided;
// the values come back as the server printed them, unparsed, and JSON ones are parsed here. A plain
// LIMIT reads the first pages only: cheap on a big table, unlike ORDER BY random().
function sampleRowsSql(schema: string, table: string, columns: SampleColumnRow[]): string {
  const list = columns.map((c) => (c.read === 'json' ? `pg_catalog.to_json(${escapeIdentifier(c.name)})` : escapeIdentifier(c.name)));
  return `SELECT ${list.join(', ')} FROM ${escapeIdentifier(schema)}.${escapeIdentifier(table)} LIMIT $1`;
}

/** Sample rows of one table, with the columns that may be read, in their order. */
export async function sampleRows(db: Gateway, schema: string, table: string, columns: SampleColumnRow[], limit: number): Promise<SampleRow[]> {
  const readable = columns.filter((c) => c.read !== null);
  const rows = await db.rows<(string | null)[]>(sampleRowsSql(schema, table, readable), [limit], { raw: true, arrays: true });
  return rows.map((values) =>
    Object.fromEntries(
      readable.map((column, i) => {
        const value = values[i] ?? null;
        return [column.name, value !== null && column.read === 'json' ? JSON.parse(value) : value];
      }),
    ),
  );
}

/** A table's sample rows, or why they could not be read: one table's failure is not the sync's. */
export async function sampleTable(
  db: Gateway,
  table: { schema: string; name: string },
  columns: SampleColumnRow[],
  limit: number,
): Promise<Result<SampleRow[]>> {
  try {
    return { type: 'ok', value: await sampleRows(db, table.schema, table.name, columns, limit) };
  } catch (error) {
    return { type: 'error', error: messageOf(error) };
  }
}
