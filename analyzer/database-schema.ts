// Reads the whole schema with one catalog query per resource (not one per table), then joins the
// results by oid. Only sample rows need a statement per table; those run a few at a time.
// The sync as it was before it read in chunks (chunks.ts): kept for reference-sync.ts, which the
// streamed sync is tested and benchmarked against.
import type { Column, DatabaseSchema, Result, SampleRow, Table } from '../shared/analyzer-schema';
import { groupBy, mapLimit } from '../shared/collections';
import { listColumnStats, toColumnStats, type ColumnStatsRow } from './catalog/column-stats.sql';
import { listColumns, type ColumnRow } from './catalog/columns.sql';
import { listConstraints } from './catalog/constraints.sql';
import { listExtensions } from './catalog/extensions.sql';
import { listFunctions } from './catalog/functions.sql';
import { listIndexes } from './catalog/indexes.sql';
import { listSampleColumns, type SampleColumnRow } from './catalog/sample-columns.sql';
import { sampleTable } from './catalog/sample-rows.sql';
import { listSchemas } from './catalog/schemas.sql';
import { listSequences } from './catalog/sequences.sql';
import { listTableStats, toTableStats, type TableStatsRow } from './catalog/table-stats.sql';
import { listTables } from './catalog/tables.sql';
import { listTriggers } from './catalog/triggers.sql';
import { listTypes } from './catalog/types.sql';
import { listViews } from './catalog/views.sql';
import { messageOf, type Gateway } from '../gateway/index';

interface SchemaOptions {
  /** Rows sampled per table; 0 turns sampling off. */
  sampleRows: number;
  /** Sample statements in flight at once. */
  sampleConcurrency: number;
  /** Beyond this many non-empty tables, the rest are not sampled (one statement each). */
  maxSampledTables: number;
}

/** Statistics and samples are extras: when one cannot be read, the schema still comes back, with a warning. */
async function optional<T>(work: Promise<T>, what: string, warnings: string[]): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    warnings.push(`${what} could not be read: ${messageOf(error)}`);
    return undefined;
  }
}

export async function readSchema(db: Gateway, options: SchemaOptions): Promise<DatabaseSchema> {
  const warnings: string[] = [];
  // The pool runs a few statements at once, in the order they are issued: the slowest go first
  // (on GitLab, indexes, constraints and sizes each take a few hundred ms) so they never queue.
  const indexesRead = listIndexes(db);
  const tableStatsRead = optional(listTableStats(db), 'Table statistics', warnings);
  const constraintsRead = listConstraints(db);
  const columnsRead = listColumns(db);
  const tablesRead = listTables(db);
  // Sampling needs only the tables and their sizes, so it starts as soon as those are in.
  const samplesRead = Promise.all([tablesRead, tableStatsRead]).then(([tableRows, tableStats]) =>
    sampleTables(db, tableRows, new Map((tableStats ?? []).map((row) => [row.oid, row])), tableStats !== undefined, options, warnings),
  );
  const [core, tableStats, columnStats, samples] = await Promise.all([
    Promise.all([
      listSchemas(db),
      tablesRead,
      columnsRead,
      indexesRead,
      constraintsRead,
      listFunctions(db),
      listViews(db),
      listTypes(db),
      listTriggers(db),
      listExtensions(db),
      listSequences(db),
    ]),
    tableStatsRead,
    optional(listColumnStats(db), 'Column statistics (pg_stats)', warnings),
    samplesRead,
  ]);
  const [schemas, tableRows, columnRows, indexes, constraints, functions, viewRows, types, triggers, extensions, sequences] = core;

  const statsByOid = new Map((tableStats ?? []).map((row) => [row.oid, row]));
  // A partitioned table's own statistics are the inherited ones; an ordinary table's are not.
  const columnStatsByKey = new Map<string, ColumnStatsRow>();
  for (const row of columnStats ?? []) columnStatsByKey.set(JSON.stringify([row.schema, row.table, row.column, row.inherited]), row);
  const columnsByRelation = groupBy(columnRows, (c) => c.relationOid);
  const columnsOf = (oid: number, schema: string, table: string, inherited: boolean): Column[] =>
    (columnsByRelation.get(oid) ?? []).map((row: ColumnRow) => {
      const { relationOid: _relationOid, ...column } = row;
      const stats = columnStatsByKey.get(JSON.stringify([schema, table, column.name, inherited]));
      return { ...column, stats: stats ? toColumnStats(stats) : null };
    });

  const tables: Table[] = tableRows.map((row, i) => {
    const { oid, ...table } = row;
    const stats = statsByOid.get(oid);
    return {
      ...table,
      columns: columnsOf(oid, row.schema, row.name, row.kind === 'partitioned'),
      stats: stats ? toTableStats(stats) : null,
      sampleRows: samples[i] ?? { type: 'ok', value: [] },
    };
  });
  const views = viewRows.map(({ oid, ...view }) => ({ ...view, columns: columnsOf(oid, view.schema, view.name, false) }));

  return { schemas, tables, indexes, constraints, functions, views, types, triggers, extensions, sequences, warnings };
}

async function sampleTables(
  db: Gateway,
  tables: { oid: number; schema: string; name: string; kind: Table['kind'] }[],
  statsByOid: Map<number, TableStatsRow>,
  haveStats: boolean,
  options: SchemaOptions,
  warnings: string[],
): Promise<Result<SampleRow[]>[]> {
  const empty: Result<SampleRow[]> = { type: 'ok', value: [] };
  if (options.sampleRows === 0) return tables.map(() => empty);
  let budget = options.maxSampledTables;
  let overBudget = 0;
  const plans = tables.map((table): Result<SampleRow[]> | 'sample' => {
    if (table.kind === 'foreign') return { type: 'error', error: 'Foreign tables are not sampled: reading one would query the remote server.' };
    const stats = statsByOid.get(table.oid);
    // Without the sizes we cannot tell empty tables apart, so every table is tried.
    if (haveStats && stats && !stats.hasStorage) return empty;
    if (haveStats && stats && !stats.canSelect) return { type: 'error', error: 'Not sampled: the role lacks SELECT on this table (or USAGE on its schema).' };
    if (budget <= 0) {
      overBudget++;
      return { type: 'error', error: `Not sampled: only the first ${options.maxSampledTables} tables holding rows are sampled.` };
    }
    budget--;
    return 'sample';
  });
  if (overBudget > 0) warnings.push(`${overBudget} tables holding rows were not sampled (limit ${options.maxSampledTables}).`);
  // How each column of the tables to sample may be read (one catalog query for all of them).
  const toSample = tables.filter((_, i) => plans[i] === 'sample').map((t) => t.oid);
  let columnsByTable: Map<number, SampleColumnRow[]>;
  try {
    columnsByTable = groupBy(await listSampleColumns(db, toSample), (c) => c.relationOid);
  } catch (error) {
    const failed: Result<SampleRow[]> = { type: 'error', error: `Not sampled: the column types could not be read (${messageOf(error)})` };
    return plans.map((plan) => (plan === 'sample' ? failed : plan));
  }
  const unreadable = [...columnsByTable.values()].flat().filter((c) => c.read === null).length;
  if (unreadable > 0) warnings.push(`${unreadable} columns are left out of sample rows: their type prints through a function that is not C or internal code.`);
  return mapLimit(
    tables.map((table, i) => ({ table, plan: plans[i] ?? empty })),
    options.sampleConcurrency,
    async ({ table, plan }): Promise<Result<SampleRow[]>> => {
      if (plan !== 'sample') return plan;
      return sampleTable(db, table, columnsByTable.get(table.oid) ?? [], options.sampleRows);
    },
  );
}
