// Everything the shadow planner needs from the production database, read-only: the schema as DDL
// (schema.ts), sizes, column statistics, planner settings and the actual extremes of indexed
// columns (stats.ts). Every statement runs through the gateway, in one REPEATABLE READ, READ
// ONLY transaction with a timeout, and only PostgreSQL's own objects are named unqualified.
import { openGateway, type ReadOnlyTransaction } from '../gateway/index.js';
import { readSchemaDdl } from './schema.js';
import type { SystemCatalogQuery, ReadFilter, ReadSnapshotOptions, Row, Snapshot } from './types.js';
import { scopedObjects, wholeGraph } from './scope.js';
import { readColumns, readEndpoints, readHiddenStatistics, readRelations, readServerFacts, readSettings, readStats } from './stats.js';
import { readTableWrites } from './writes.js';
import { allowedObjects, intersect, withoutExcluded } from './filters.js';
import { hasSchemaFilters, type SchemaFilters } from '../shared/schema-filters.js';

/** Opens production through the gateway, reads one snapshot and closes it; nothing is written. */
export async function readSnapshot(connectionString: string, options: ReadSnapshotOptions = {}): Promise<Snapshot> {
  const gateway = openGateway(connectionString, {
    applicationName: 'querytrail-advisor',
    // pg_relation_size takes AccessShareLock: give up rather than queue behind a migration's ACCESS EXCLUSIVE
    limits: { statementTimeoutMs: Math.max(1, Math.round(options.statementTimeoutMs ?? 60_000)), lockTimeoutMs: 2_000, poolSize: 1 },
  });
  try {
    return await gateway.transaction((tx) => readInTransaction(tx, options), {
      consistentSnapshot: true,
      // Values read as text (statistics, extremes) must parse the same way in the shadow.
      settings: { DateStyle: 'ISO, YMD', IntervalStyle: 'postgres', extra_float_digits: '3' },
    });
  } finally {
    await gateway.close();
  }
}

/** Reads a snapshot of schema, sizes and statistics inside one read-only transaction. */
async function readInTransaction(tx: ReadOnlyTransaction, options: ReadSnapshotOptions): Promise<Snapshot> {
  const q: SystemCatalogQuery = (sql, params) => tx.rows<Row>(sql, params ?? []);
  const server = await readServerFacts(q);
  const filters = hasSchemaFilters(options.schemaFilters) ? options.schemaFilters : undefined;
  // With schema filters every reader is scoped to the allowed schemas' objects, by oid.
  const allowed = filters ? await allowedObjects(q, filters) : undefined;
  if (options.scope) {
    // Only what the queries need: their relations and what those need, nothing else locked or read.
    const scoped = await scopedObjects(q, options.scope, server.searchPath);
    const filter = allowed ? intersect(scoped.filter, allowed) : scoped.filter;
    const { graph, scope } = filters ? withoutExcluded(scoped.graph, scoped.scope, filters) : scoped;
    return {
      ...server,
      ...(await readObjects(tx, q, filter, filters, options.statementTimeoutMs)),
      graph,
      scope,
      ...(filters && { schemaFilters: filters }),
    };
  }
  return {
    ...server,
    ...(await readObjects(tx, q, allowed, filters, options.statementTimeoutMs)),
    graph: await wholeGraph(q, allowed),
    ...(filters && { schemaFilters: filters }),
  };
}

/**
 * What every snapshot reads of the objects `filter` allows (all of them without one): schema,
 * sizes, column statistics, extremes and write rates, in this order in the one transaction.
 */
async function readObjects(
  tx: ReadOnlyTransaction,
  q: SystemCatalogQuery,
  filter: ReadFilter | undefined,
  filters: SchemaFilters | undefined,
  statementTimeoutMs?: number,
) {
  const { ddl, indexes } = await readSchemaDdl(q, filter, filters);
  const relations = await readRelations(q, filter);
  const stats = await readStats(tx, relations, filter ? relations : undefined, statementTimeoutMs);
  return {
    settings: await readSettings(q),
    ddl,
    relations,
    indexes,
    columns: await readColumns(q, filter),
    stats,
    hiddenStatistics: await readHiddenStatistics(q, stats, filter),
    endpoints: await readEndpoints(tx, statementTimeoutMs, filter),
    writes: await readTableWrites(q, filter),
  };
}
