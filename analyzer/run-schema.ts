// Reads a CI database's schema for ci-report: the tables, columns and indexes the run's migrations
// left, compacted to shared/run-schema.ts's tuples. The sessions are the gateway's (read-only
// transactions with timeouts); the reading is the analyzer's sync readers, so "the user's schema"
// means the same here as there (no pg_catalog, information_schema, toast or temp schemas), minus what
// extensions installed. Catalog text only: no statistics, no rows, nothing that runs the database's
// own code (types are printed by format_type, indexes by pg_get_indexdef).
import { RUN_SCHEMA_LIMITS, runSchemaSchema, type RunSchema } from '../shared/run-schema';
import { describeIssues, issuesOf } from '../shared/errors';
import { listColumns, type ColumnRow } from './catalog/columns.sql';
import { listExtensionRelations } from './catalog/extension-relations.sql';
import { listIndexes } from './catalog/indexes.sql';
import { readServer } from './catalog/server.sql';
import { listTables } from './catalog/tables.sql';
import { listViews } from './catalog/views.sql';
import type { Index, Table } from '../shared/analyzer-schema';
import { classifyError, DEFAULT_LIMITS, messageOf, openGateway, redactConnectionString, type Gateway, type SessionLimits } from '../gateway/index';

/** The schema could not be read or does not fit a run; the message is safe to show (no password). */
export class RunSchemaReadError extends Error {}

type TableKind = RunSchema['tables'][number][2];

/** What the catalog readers return, before compaction. */
export interface CatalogRows {
  tables: { oid: number; schema: string; name: string; kind: Table['kind']; partitionOf: { schema: string; name: string } | null }[];
  views: { oid: number; schema: string; name: string; materialized: boolean }[];
  columns: Pick<ColumnRow, 'relationOid' | 'name' | 'position' | 'type' | 'nullable'>[];
  indexes: Pick<Index, 'schema' | 'table' | 'name' | 'definition' | 'constraint'>[];
  /** Relations an extension owns: left out with their columns and indexes. */
  extensionOids: number[];
}

const TABLE_KINDS: Record<Table['kind'], TableKind> = { table: 'r', partitioned: 'p', foreign: 'f' };
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The catalog rows as positional tuples, in a stable order (by schema and name; columns in their
 * table's order) so the same schema always compacts to the same JSON. A partition's parent is
 * written `schema.name`, the spelling the verdict uses for every qualified name.
 */
export function compactRunSchema(rows: CatalogRows): RunSchema {
  const fromExtension = new Set(rows.extensionOids);
  const relations = [
    ...rows.tables.map((t) => ({
      oid: t.oid,
      schema: t.schema,
      name: t.name,
      kind: TABLE_KINDS[t.kind],
      parent: t.partitionOf ? `${t.partitionOf.schema}.${t.partitionOf.name}` : null,
    })),
    ...rows.views.map((v) => ({ oid: v.oid, schema: v.schema, name: v.name, kind: (v.materialized ? 'm' : 'v') as TableKind, parent: null })),
  ]
    .filter((r) => !fromExtension.has(r.oid))
    .sort((a, b) => byText(a.schema, b.schema) || byText(a.name, b.name));
  const byOid = new Map(relations.map((r) => [r.oid, r]));
  const kept = new Set(relations.map((r) => JSON.stringify([r.schema, r.name])));

  const order = new Map(relations.map((r, i) => [r.oid, i]));
  const columns = rows.columns
    .filter((c) => byOid.has(c.relationOid))
    .sort((a, b) => order.get(a.relationOid)! - order.get(b.relationOid)! || a.position - b.position)
    .map((c): RunSchema['columns'][number] => {
      const relation = byOid.get(c.relationOid)!;
      return [relation.schema, relation.name, c.name, c.type, !c.nullable];
    });
  const indexes = rows.indexes
    .filter((i) => kept.has(JSON.stringify([i.schema, i.table])))
    .sort((a, b) => byText(a.schema, b.schema) || byText(a.table, b.table) || byText(a.name, b.name))
    .map((i): RunSchema['indexes'][number] => [i.schema, i.table, i.name, i.definition, i.constraint]);
  return { tables: relations.map((r) => [r.schema, r.name, r.kind, r.parent]), columns, indexes };
}

/**
 * The compacted schema as the API accepts it. A schema that is too large or has a name the API
 * refuses is not sent in part: the verdict reads a production index missing from the run's schema
 * as dropped by the run, so a partial schema would report indexes lost that were never dropped.
 */
export function checkRunSchema(schema: RunSchema): RunSchema {
  for (const part of ['tables', 'columns', 'indexes'] as const) {
    if (schema[part].length > RUN_SCHEMA_LIMITS[part]) {
      throw new RunSchemaReadError(`the schema has ${schema[part].length} ${part}, more than a run may carry (${RUN_SCHEMA_LIMITS[part]})`);
    }
  }
  const checked = runSchemaSchema.safeParse(schema);
  if (!checked.success) throw new RunSchemaReadError(`the API would refuse it: ${describeIssues(issuesOf(checked.error, '(schema)').slice(0, 3))}`);
  return checked.data;
}

export interface RunSchemaOptions {
  limits?: SessionLimits;
}

export async function readRunSchema(connectionString: string, options: RunSchemaOptions = {}): Promise<RunSchema> {
  let pool: Gateway;
  try {
    pool = openGateway(connectionString, { limits: options.limits ?? DEFAULT_LIMITS });
  } catch (error) {
    throw new RunSchemaReadError(`Invalid connection string: ${messageOf(error)}`);
  }
  try {
    let rows: CatalogRows;
    try {
      const server = await readServer(pool);
      // A pooler that drops startup parameters would leave the session writable: do not use it.
      if (server.readOnly !== 'on')
        throw new RunSchemaReadError('The session could not be made read only (default_transaction_read_only is off); refusing to read');
      const [tables, views, columns, indexes, extensionRelations] = await Promise.all([
        listTables(pool),
        listViews(pool),
        listColumns(pool),
        listIndexes(pool),
        listExtensionRelations(pool),
      ]);
      rows = { tables, views, columns, indexes, extensionOids: extensionRelations.map((r) => r.oid) };
    } catch (error) {
      if (error instanceof RunSchemaReadError) throw error;
      throw new RunSchemaReadError(redactConnectionString(classifyError(error).message, connectionString));
    }
    return checkRunSchema(compactRunSchema(rows));
  } finally {
    await pool.close().catch(() => undefined);
  }
}
