// The catalog's two other sources: a query added by hand, and production's pg_stat_statements.
// Neither touches ciRunCount; both keep the newest text, as CI ingestion does.
import { and, eq, sql } from 'drizzle-orm';
import type { SyncProductionOutput } from '../../shared/ci';
import { catalogQueries, connections } from '../db/schema';
import type { Db } from '../db/store';
import { badRequest, conflict, isForeignKeyViolation, notFound, upstream } from '../errors';
import { newId } from '../ids';
import type { Secrets } from '../secrets';
import { requireEnvironment } from '../routers/environments';
import { addCalls, prepareOne, type CatalogRow } from './prepare';
import { rowsParameter } from './ingest';
import { rowsOf, withRetry } from './sql';
import { readDatabaseStatements, StatementsReadError, type DatabaseStatements } from './statements';

/** Adds or refreshes one query with lastSeenSource manual. Returns its hash and whether it was new. */
export async function addManualQuery(db: Db, environmentId: string, query: string, hash?: string): Promise<{ hash: string; created: boolean }> {
  let row: CatalogRow;
  try {
    row = await prepareOne(query, hash);
  } catch (error) {
    throw badRequest((error as Error).message, [{ path: 'query', message: (error as Error).message }]);
  }
  await requireEnvironment(db, environmentId);
  const now = new Date();
  try {
    const [result] = await db
      .insert(catalogQueries)
      .values({
        id: newId('q'),
        environmentId,
        hash: row.hash,
        query: row.query,
        formattedQuery: row.formattedQuery,
        firstSeenAt: now,
        lastSeenAt: now,
        lastSeenSource: 'manual',
        ciRunCount: 0,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [catalogQueries.environmentId, catalogQueries.hash],
        set: {
          query: sql`excluded.query`,
          formattedQuery: sql`excluded.formatted_query`,
          lastSeenAt: sql`greatest(${catalogQueries.lastSeenAt}, excluded.last_seen_at)`,
          lastSeenSource: 'manual',
          updatedAt: sql`excluded.updated_at`,
        },
      })
      .returning({ inserted: sql<boolean>`(xmax = 0)` });
    return { hash: row.hash, created: Boolean(result?.inserted) };
  } catch (error) {
    // the environment was deleted between the check and the insert
    if (isForeignKeyViolation(error)) throw notFound(`Environment ${environmentId}`);
    throw error;
  }
}

/** pg_stat_statements keeps 5,000 statements by default; a production catalog sync takes them all. */
const PRODUCTION_STATEMENT_LIMIT = 20_000;

export interface SyncDeps {
  db: Db;
  secrets: Secrets;
  /** Injected by tests; the real reader opens a read-only session. */
  read?: typeof readDatabaseStatements;
}

/**
 * Reads pg_stat_statements of every production connection of the environment (read only, in
 * parallel, each failure kept to its connection) and upserts the union into the catalog with
 * lastSeenSource production and the production figures. 409 without a production connection,
 * 502 when none of them could be read.
 */
export async function syncProduction({ db, secrets, read = readDatabaseStatements }: SyncDeps, environmentId: string): Promise<SyncProductionOutput> {
  const environment = await requireEnvironment(db, environmentId);
  const targets = await db
    .select({ id: connections.id, label: connections.label, sealed: connections.connectionStringEncrypted })
    .from(connections)
    .where(and(eq(connections.environmentId, environmentId), eq(connections.role, 'production')))
    .orderBy(connections.createdAt, connections.id);
  if (targets.length === 0) {
    throw conflict(`Environment "${environment.name}" has no connection with role production; add one (POST /env/${environmentId}/connections) and sync again`);
  }

  const settled = await Promise.allSettled(
    targets.map((target) => read(secrets.decrypt(target.sealed), { limit: PRODUCTION_STATEMENT_LIMIT })),
  );
  const results: SyncProductionOutput['connections'] = [];
  const read_: DatabaseStatements[] = [];
  settled.forEach((outcome, i) => {
    const { id, label } = targets[i]!;
    if (outcome.status === 'fulfilled') {
      read_.push(outcome.value);
      const { queries, insufficientPrivilege, skipped } = outcome.value;
      results.push({ id, label, result: { type: 'ok', value: { statements: queries.length, insufficientPrivilege, skipped } } });
    } else {
      const reason = outcome.reason instanceof StatementsReadError ? outcome.reason.message : 'Reading pg_stat_statements failed';
      if (!(outcome.reason instanceof StatementsReadError)) console.error('[sync-production]', outcome.reason);
      results.push({ id, label, result: { type: 'error', error: reason } });
    }
  });
  if (read_.length === 0) {
    const detail = results.map((r) => `${r.label}: ${r.result.type === 'error' ? r.result.error : ''}`).join('; ');
    throw upstream(`No production connection could be read (${detail})`);
  }

  // A primary and its replicas each count their own executions: calls add up, means are weighted.
  const merged = new Map<string, CatalogRow>();
  for (const statements of read_) {
    for (const q of statements.queries) {
      const seen = merged.get(q.hash);
      if (!seen) {
        const calls = addCalls(0, q.calls);
        merged.set(q.hash, { hash: q.hash, query: q.query, formattedQuery: q.formattedQuery, calls, meanTimeMs: q.meanTimeMs });
        continue;
      }
      const calls = addCalls(seen.calls ?? 0, q.calls);
      const weight = (seen.calls ?? 0) + q.calls;
      const meanTimeMs = weight > 0 ? ((seen.meanTimeMs ?? 0) * (seen.calls ?? 0) + q.meanTimeMs * q.calls) / weight : q.meanTimeMs;
      merged.set(q.hash, { ...seen, calls, meanTimeMs });
    }
  }
  const rows = [...merged.values()].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const newQueryCount = rows.length === 0 ? 0 : await upsertProduction(db, environmentId, rows);
  return { queryCount: rows.length, newQueryCount, connections: results };
}

async function upsertProduction(db: Db, environmentId: string, rows: CatalogRow[]): Promise<number> {
  const now = new Date().toISOString();
  try {
    return await withRetry(async () => {
      const [counted] = await rowsOf<{ new_query_count: number }>(
        db,
        sql`WITH input AS MATERIALIZED (
              SELECT * FROM json_to_recordset(${rowsParameter(rows)}::json)
                AS r(id text, hash text, query text, formatted_query text, calls bigint, mean_time_ms float8)
            ), upserted AS (
              INSERT INTO catalog_queries AS c (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at,
                                                last_seen_source, ci_run_count, production_calls, production_mean_time_ms,
                                                created_at, updated_at)
              SELECT id, ${environmentId}, hash, query, formatted_query, ${now}::timestamptz, ${now}::timestamptz,
                     'production', 0, calls, mean_time_ms, ${now}::timestamptz, ${now}::timestamptz
              FROM input ORDER BY hash
              ON CONFLICT (environment_id, hash) DO UPDATE SET
                query = excluded.query,
                formatted_query = excluded.formatted_query,
                last_seen_at = greatest(c.last_seen_at, excluded.last_seen_at),
                last_seen_source = 'production',
                production_calls = excluded.production_calls,
                production_mean_time_ms = excluded.production_mean_time_ms,
                updated_at = excluded.updated_at
              RETURNING (c.xmax = 0) AS inserted
            )
            SELECT (count(*) FILTER (WHERE inserted))::int AS new_query_count FROM upserted`,
      );
      return counted?.new_query_count ?? 0;
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound(`Environment ${environmentId}`);
    throw error;
  }
}
