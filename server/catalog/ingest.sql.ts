// The statements of a CI run's ingestion (ingest.ts) that the query builder cannot say plainly.
import { sql, type SQL } from 'drizzle-orm';
import type { IngestRunInput, RejectedQuery } from '../../shared/ci';
import type { CatalogRow } from './catalog-write';
import { inputRows } from './upsert.sql';

interface NewRun {
  id: string;
  input: IngestRunInput;
  queryCount: number;
  rejected: RejectedQuery[];
  now: string;
}

/**
 * Stores the run, tagged with its repository's environment. The environment is read in the same
 * statement that stores the run, so the run is tagged with the link as it stands at that moment;
 * later links and unlinks do not rewrite it. ON CONFLICT names the expression index on
 * (lower(repo), run_id): a concurrent post of the same run waits for the first, then inserts
 * nothing and returns no row.
 */
export function insertRun({ id, input, queryCount, rejected, now }: NewRun): SQL {
  return sql`
    INSERT INTO ci_runs (id, repo, run_id, environment_id, branch, commit_sha, pull_request, started_at,
                         query_count, new_query_count, rejected, created_at)
    SELECT ${id}, ${input.repo}, ${input.runId},
           (SELECT environment_id FROM repo_links WHERE lower(repo) = lower(${input.repo})),
           ${input.branch ?? null}, ${input.commitSha ?? null}, ${input.pullRequest ?? null}::int,
           ${input.startedAt ?? null}::timestamptz, ${queryCount}::int, 0, ${JSON.stringify(rejected)}::jsonb,
           ${now}::timestamptz
    ON CONFLICT ((lower(repo)), run_id) DO NOTHING
    RETURNING id, environment_id`;
}

/**
 * The CTE `run_queries`: the run's own list of queries, with the figures CI measured, read from the
 * write's `input` (upsert.sql.ts) so they are stored in the same statement as the catalog's rows.
 */
function runQueriesFromInput(runId: string): SQL {
  return sql`run_queries AS (
    INSERT INTO ci_run_queries (run_id, hash, query, formatted_query, calls, mean_time_ms, call_sites)
    SELECT ${runId}, hash, query, formatted_query, calls, mean_time_ms, coalesce(call_sites, '[]'::jsonb) FROM input
  )`;
}

/** An untagged run's queries, stored with it alone: no catalog to fold them into. */
export function insertUntaggedRunQueries(runId: string, rows: readonly CatalogRow[]): SQL {
  return sql`WITH ${inputRows(rows)}, ${runQueriesFromInput(runId)} SELECT 1`;
}

/**
 * The CTEs a tagged run adds to its catalog write (upsert.sql.ts's `alongside`): its own list of
 * queries, and its count of new catalog entries from the upsert's `upserted`.
 */
export function runQueriesAndNewCount(runId: string): SQL {
  return sql`${runQueriesFromInput(runId)}, counted AS (
    UPDATE ci_runs SET new_query_count = (SELECT count(*) FROM upserted WHERE inserted) WHERE id = ${runId}
  )`;
}
