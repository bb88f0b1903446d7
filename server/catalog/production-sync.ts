// Production's pg_stat_statements as a catalog source: hot production queries CI never runs show
// up in the catalog with their calls and mean time (lastSeenSource production).
import type { SyncProductionOutput } from '../../shared/ci';
import { readDatabaseStatements, StatementsReadError, type DatabaseStatements } from '../../analyzer/statements';
import type { Db } from '../db/store';
import { upstream } from '../errors';
import type { Secrets } from '../secrets';
import { requireProductionConnections } from '../domain/connections';
import { mergeConnections } from './merge';
import { upsertOnItsOwn } from './upsert';
import { callSitesOf } from '../../shared/call-sites';

/** pg_stat_statements keeps 5,000 statements by default; a production catalog sync takes them all. */
const PRODUCTION_STATEMENT_LIMIT = 20_000;

/**
 * Reads pg_stat_statements of every production connection of the environment (read only, in
 * parallel, each failure kept to its connection) and upserts the union into the catalog. 409
 * without a production connection, 502 when none of them could be read.
 */
export async function syncProduction(db: Db, secrets: Secrets, environmentId: string): Promise<SyncProductionOutput> {
  const targets = await requireProductionConnections(db, secrets, environmentId, 'and sync again');
  const settled = await Promise.allSettled(
    targets.map((target) => readDatabaseStatements(target.connectionString, { limit: PRODUCTION_STATEMENT_LIMIT, schemaFilters: target.schemaFilters })),
  );

  const results: SyncProductionOutput['connections'] = [];
  const readings: DatabaseStatements[] = [];
  settled.forEach((outcome, i) => {
    const { id, label } = targets[i]!;
    if (outcome.status === 'fulfilled') {
      readings.push(outcome.value);
      const { queries, insufficientPrivilege, skipped } = outcome.value;
      results.push({ id, label, result: { type: 'ok', value: { statements: queries.length, insufficientPrivilege, skipped } } });
    } else {
      const reason = outcome.reason instanceof StatementsReadError ? outcome.reason.message : 'Reading pg_stat_statements failed';
      if (!(outcome.reason instanceof StatementsReadError)) console.error('[sync-production]', outcome.reason);
      results.push({ id, label, result: { type: 'error', error: reason } });
    }
  });
  if (readings.length === 0) {
    const detail = results.map((r) => `${r.label}: ${r.result.type === 'error' ? r.result.error : ''}`).join('; ');
    throw upstream(`No production connection could be read (${detail})`);
  }

  const rows = mergeConnections(
    readings.map(({ queries }) =>
      // production's texts carry the application's tags as CI's do (pg_stat_statements keeps the
      // first text of each statement, comments included): read the same way as at ingestion
      queries.map(({ hash, query, formattedQuery, calls, meanTimeMs }) => ({ hash, query, formattedQuery, calls, meanTimeMs, callSites: callSitesOf(query) })),
    ),
  );
  const newQueryCount = await upsertOnItsOwn(db, { environmentId, source: 'production', rows });
  return { queryCount: rows.length, newQueryCount, connections: results };
}
