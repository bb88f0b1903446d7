// POST /postgres/analyze: plans, costs and index recommendations for one database, planned with
// that database's own statistics in the advisor's shadow server. The database is only read.
import { analyzeQueries, analyzeSnapshot, readSnapshot, resolveIndexNames, ShadowBusyError, withoutIndexes } from '../advisor/index';
import { fingerprintQuery } from '../shared/sql-fingerprint';
import { isDataQuery } from '../shared/data-queries';
import type { AnalyzeRequest, AnalyzeResponse } from '../shared/analysis';
import { readServer } from './catalog/server.sql';
import { GatewayError, openGateway, type Gateway, type SessionLimits } from '../gateway/index';
import { AnalyzerHttpError, classifyConnectionError } from './errors';
import { invalidInputMessage } from '../shared/errors';
import { readQueries } from './queries';

export async function analyzeDatabase(request: AnalyzeRequest, limits: SessionLimits): Promise<AnalyzeResponse> {
  const started = Date.now();
  let pool: Gateway;
  try {
    pool = openGateway(request.db, { limits });
  } catch (error) {
    throw classifyConnectionError(error);
  }
  let database: string;
  let queries: { hash: string; query: string; calls?: number }[];
  try {
    let server;
    try {
      server = await readServer(pool);
    } catch (error) {
      throw classifyConnectionError(error);
    }
    database = server.database;
    if (request.queries) {
      queries = [];
      for (const [index, q] of request.queries.entries()) {
        try {
          queries.push({ hash: (await fingerprintQuery(q.query)).hash, query: q.query, calls: q.calls });
        } catch (error) {
          const issues = [{ path: `queries.${index}.query`, message: (error as Error).message }];
          throw new AnalyzerHttpError(400, 'validation_failed', invalidInputMessage(issues), issues);
        }
      }
    } else {
      try {
        // read more than asked: DDL and session statements are dropped below
        const read = await readQueries(pool, server.databaseOid, server.database, request.queryLimit * 4);
        queries = read.queries
          .filter((q) => isDataQuery(q.query))
          .slice(0, request.queryLimit)
          .map((q) => ({ hash: q.hash, query: q.query, calls: q.calls }));
      } catch (error) {
        throw new AnalyzerHttpError(
          409,
          'pg_stat_statements_unavailable',
          `Cannot read pg_stat_statements (${(error as Error).message}); send the queries to analyze instead.`,
        );
      }
    }
  } finally {
    await pool.close();
  }

  const byHash = new Map(queries.map((q) => [q.hash, q]));
  let result: Awaited<ReturnType<typeof analyzeQueries>>;
  let hidden: string[] = [];
  const budget = { maxIndexes: request.maxIndexes, maxBytes: request.maxBytes };
  try {
    if (request.hiddenIndexes?.length) {
      // The names are checked against production before a shadow slot is waited for.
      const snapshot = await readSnapshot(request.db);
      const resolved = resolveIndexNames(snapshot, request.hiddenIndexes);
      if (resolved.problems.length) {
        const issues = resolved.problems.map((p) => ({ path: `hiddenIndexes.${p.position}`, message: p.message }));
        throw new AnalyzerHttpError(
          400,
          'validation_failed',
          `Unknown index: ${resolved.problems.map((p) => JSON.stringify(p.name)).join(', ')}. ${resolved.problems.map((p) => p.message).join(' ')}`,
          issues,
        );
      }
      hidden = resolved.indexes.map((i) => `${i.schema}.${i.name}`);
      result = await analyzeSnapshot(withoutIndexes(snapshot, resolved.indexes), [...byHash.values()], { budget });
    } else {
      result = await analyzeQueries({ connectionString: request.db, queries: [...byHash.values()], options: { budget } });
    }
  } catch (error) {
    // The advisor reads its snapshot through the gateway: a failure there is classified like ours.
    if (error instanceof GatewayError) throw classifyConnectionError(error);
    if (error instanceof ShadowBusyError) throw new AnalyzerHttpError(503, 'shadow_busy', error.message);
    throw error;
  }
  return {
    database,
    durationMs: Date.now() - started,
    source: request.queries ? 'request' : 'pg_stat_statements',
    queries: result.queries.map((q) => ({ ...q, query: byHash.get(q.hash)?.query ?? '', calls: byHash.get(q.hash)?.calls ?? null })),
    indexes: result.indexes,
    savingCurve: result.savingCurve,
    stopReason: result.stopReason,
    warnings: result.warnings,
    hiddenIndexes: hidden,
  };
}
