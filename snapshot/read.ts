// Everything the shadow planner needs from the production database, read-only: the schema as DDL
// (schema.ts), sizes, column statistics, planner settings and the actual extremes of indexed
// columns (stats.ts). Every statement runs through the gateway, in one REPEATABLE READ, READ
// ONLY transaction with a timeout, and only PostgreSQL's own objects are named unqualified.
import { openGateway, type ReadOnlyTransaction } from '../gateway/index.js';
import { readSchemaDdl } from './schema.js';
import type { CatalogQuery, Row, ReadSourceOptions, SourceSnapshot } from './types.js';
import { scopedObjects, wholeGraph } from './scope.js';
import { readColumns, readEndpoints, readHiddenStatistics, readRelations, readServerFacts, readSettings, readStats } from './stats.js';
import { readTableWrites } from './writes.js';
import { allowedObjects, intersect, withoutExcluded } from './filters.js';
import { hasSchemaFilters } from '../shared/schema-filters.js';

/** Opens the source through the gateway, reads one snapshot and closes it; nothing is written. */
export async function readSourceSnapshot(connectionString: string, options: ReadSourceOptions = {}): Promise<SourceSnapshot> {
  const gateway = openGateway(connectionString, {
    applicationName: 'querytrail-advisor',
    // pg_relation_size takes AccessShareLock: give up rather than queue behind a migration's ACCESS EXCLUSIVE
    limits: { statementTimeoutMs: Math.max(1, Math.round(options.statementTimeoutMs ?? 60_000)), lockTimeoutMs: 2_000, poolSize: 1 },
  });
  try {
    return await gateway.transaction((tx) => readSource(tx, options), {
      consistentSnapshot: true,
      // Values read as text (statistics, extremes) must parse the same way in the shadow.
      settings: { DateStyle: 'ISO, YMD', IntervalStyle: 'postgres', extra_float_digits: '3' },
    });
  } finally {
    await gateway.close();
  }
}

/** Reads a snapshot of schema, sizes and statistics inside one read-only transaction. */
async function readSource(tx: ReadOnlyTransaction, options: ReadSourceOptions): Promise<SourceSnapshot> {
  const q: CatalogQuery = (sql, params) => tx.rows<Row>(sql, params ?? []);
  const server = await readServerFacts(q);
  const filters = hasSchemaFilters(options.schemaFilters) ? options.schemaFilters : undefined;
  // With schema filters every reader is scoped to the allowed schemas' objects, by oid.
  const allowed = filters ? await allowedObjects(q, filters) : undefined;
  if (options.scope) {
    // Only what the queries need: their relations and what those need, nothing else locked or read.
    const scoped = await scopedObjects(q, options.scope, server.searchPath);
    const filter = allowed ? intersect(scoped.filter, allowed) : scoped.filter;
    const { graph, scope } = filters ? withoutExcluded(scoped.graph, scoped.scope, filters) : scoped;
    const { ddl, indexes } = await readSchemaDdl(q, filter, filters);
    const relations = await readRelations(q, filter);
    const stats = await readStats(tx, relations, relations, options.statementTimeoutMs);
    return {
      ...server,
      settings: await readSettings(q),
      ddl,
      relations,
      indexes,
      columns: await readColumns(q, filter),
      stats,
      hiddenStatistics: await readHiddenStatistics(q, stats, filter),
      endpoints: await readEndpoints(tx, options.statementTimeoutMs, filter),
      writes: await readTableWrites(q, filter),
      graph,
      scope,
      ...(filters && { schemaFilters: filters }),
    };
  }
  const { ddl, indexes } = await readSchemaDdl(q, allowed, filters);
  const relations = await readRelations(q, allowed);
  const stats = await readStats(tx, relations, allowed ? relations : undefined, options.statementTimeoutMs);
  return {
    ...server,
    settings: await readSettings(q),
    ddl,
    relations,
    indexes,
    columns: await readColumns(q, allowed),
    stats,
    hiddenStatistics: await readHiddenStatistics(q, stats, allowed),
    endpoints: await readEndpoints(tx, options.statementTimeoutMs, allowed),
    writes: await readTableWrites(q, allowed),
    graph: await wholeGraph(q, allowed),
    ...(filters && { schemaFilters: filters }),
  };
}
