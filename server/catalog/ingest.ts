// CI run ingestion: store the run, tag it with its repository's environment and fold its queries
// into that environment's catalog, all in one transaction.
//
// Shape of the work, per run:
//   1. outside any transaction: has this (repo, runId) been stored already? Then answer with it.
//   2. fingerprint and de-duplicate the queries (CPU only, no locks held, on a worker thread: prepare-pool.ts);
//   3. BEGIN; INSERT the run ... ON CONFLICT DO NOTHING (a concurrent twin waits for ours, then
//      does nothing and reads ours); one statement that inserts the run's queries, upserts them
//      into the catalog (upsert.ts: ci_run_count + 1 under the row lock, hash order) and records
//      how many were new; the CI database's schema when the run carries one; COMMIT.
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { IngestRunInput, IngestRunOutput, RejectedQuery } from '../../shared/ci';
import { ciRunSchemas, ciRuns } from '../db/schema';
import type { Db } from '../db/store';
import { newId } from '../ids';
import { prepareRun } from './prepare-pool';
import { insertRun, insertUntaggedRunQueries, runQueriesAndNewCount } from './ingest.sql';
import { rowsOf, withRetry } from './sql';
import { upsertCatalog } from './upsert';

export interface IngestResult extends IngestRunOutput {
  /** false when the run had been stored before: the REST answer is then 200, not 201. */
  created: boolean;
}

interface RunRow extends Record<string, unknown> {
  id: string;
  environment_id: string | null;
  query_count: number;
  new_query_count: number;
  rejected: RejectedQuery[] | string;
}

const toResult = (row: RunRow, created: boolean): IngestResult => ({
  id: row.id,
  environmentId: row.environment_id,
  queryCount: row.query_count,
  newQueryCount: row.new_query_count,
  // jsonb arrives parsed from both drivers; a string would mean a driver without the jsonb parser
  rejected: typeof row.rejected === 'string' ? (JSON.parse(row.rejected) as RejectedQuery[]) : row.rejected,
  created,
});

async function findRun(db: Pick<Db, 'select'>, repo: string, runId: string): Promise<RunRow | undefined> {
  const [row] = await db
    .select({
      id: ciRuns.id,
      environment_id: ciRuns.environmentId,
      query_count: ciRuns.queryCount,
      new_query_count: ciRuns.newQueryCount,
      rejected: ciRuns.rejected,
    })
    .from(ciRuns)
    .where(and(eq(sql`lower(${ciRuns.repo})`, sql`lower(${repo})`), eq(ciRuns.runId, runId)));
  return row;
}

/** Stores one CI run; idempotent on (repo, runId), also when the same run is posted concurrently. */
export async function ingestRun(db: Db, input: IngestRunInput): Promise<IngestResult> {
  const existing = await findRun(db, input.repo, input.runId);
  if (existing) return toResult(existing, false);

  const { rows, rejected } = await prepareRun(input.queries);

  return withRetry(() =>
    db.transaction(async (tx) => {
      const now = new Date().toISOString();
      const id = newId('run');
      // raw, unlike findRun: the insert reads the repo link in the same statement and names the
      // expression index in ON CONFLICT (ingest.sql.ts)
      const [inserted] = await rowsOf<{ id: string; environment_id: string | null }>(tx, insertRun({ id, input, queryCount: rows.length, rejected, now }));
      if (!inserted) {
        // A concurrent post of the same run committed first (ON CONFLICT waited for it): answer with it.
        const twin = await findRun(tx, input.repo, input.runId);
        if (!twin) throw new Error('CI run vanished between conflict and read');
        return toResult(twin, false);
      }

      if (input.schema) {
        // The CI database's schema, stored with the run so its verdict can plan against it.
        const digest = createHash('sha256').update(JSON.stringify(input.schema)).digest('hex');
        await tx.insert(ciRunSchemas).values({ runId: id, digest, schema: input.schema });
      }

      const environmentId = inserted.environment_id;
      if (rows.length === 0) {
        return { id, environmentId, queryCount: 0, newQueryCount: 0, rejected, created: true };
      }
      // The run's own list of queries, with the figures CI measured, whether or not it has a catalog.
      if (environmentId === null) {
        // Untagged run: its queries are kept with it, the catalogs are not touched.
        await tx.execute(insertUntaggedRunQueries(id, rows));
        return { id, environmentId, queryCount: rows.length, newQueryCount: 0, rejected, created: true };
      }
      const newQueryCount = await upsertCatalog(tx, {
        environmentId,
        source: 'ci',
        rows,
        now,
        alongside: runQueriesAndNewCount(id),
      });
      return { id, environmentId, queryCount: rows.length, newQueryCount, rejected, created: true };
    }),
  );
}
