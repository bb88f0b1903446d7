// The schema of a CI database as ci-report sends it beside a run: tables, columns and indexes only
// (no statistics, no rows), as positional tuples so a schema of a thousand tables stays small. The
// verdict plans the run's queries on production's schema with this one's differences applied.
import { z } from 'zod';
import { lineText, sqlText } from './validation';

export const RUN_SCHEMA_LIMITS = { tables: 10_000, columns: 100_000, indexes: 20_000 } as const;

const ident = lineText('Name', 63 * 4);
const kind = z.enum(['r', 'p', 'm', 'f', 'v']);

export const runSchemaSchema = z.object({
  /** [schema, name, relkind (r table, p partitioned, m materialized view, f foreign, v view), parent of a partition as `schema.name`, or null] */
  tables: z.array(z.tuple([ident, ident, kind, ident.nullable()])).max(RUN_SCHEMA_LIMITS.tables),
  /** [schema, table, column, type as format_type prints it, not null] */
  columns: z.array(z.tuple([ident, ident, ident, lineText('Type', 1_000), z.boolean()])).max(RUN_SCHEMA_LIMITS.columns),
  /** [schema, table, index, definition as pg_get_indexdef prints it, constraint it backs or null] */
  indexes: z.array(z.tuple([ident, ident, ident, sqlText('Index definition', 10_000), ident.nullable()])).max(RUN_SCHEMA_LIMITS.indexes),
});
export type RunSchema = z.infer<typeof runSchemaSchema>;
