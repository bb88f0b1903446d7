// The one write path into an environment's catalog. A CI run, production's pg_stat_statements and
// a query added by hand all upsert their rows here; what each source changes is decided below.
//
// Every source: query and formattedQuery take the newest text; lastSeenAt moves forward, never
// back (concurrent writers may commit in any order); lastSeenSource names the source; firstSeenAt
// and createdAt are set once; updatedAt is the write's time. Then, per source (SOURCE_RULES):
//   ci          ciRunCount + 1, under the row lock, so concurrent runs never lose a count;
//   production  productionCalls and productionMeanTimeMs replaced by the latest reading
//               (pg_stat_statements counts are totals since its last reset, not increments);
//   manual      nothing more.
//
// One statement per write, whatever the number of rows: the rows travel as one JSON parameter
// unpacked by json_to_recordset, and are upserted in hash order, so two writers sharing rows lock
// them in the same order and queue behind each other instead of deadlocking.
import { sql, type SQL } from 'drizzle-orm';
import { CALL_SITE_LIMITS, type CallSite } from '../../shared/call-sites';
import type { SOURCES } from '../../shared/environments';
import type { Db } from '../db/store';
import { isForeignKeyViolation, notFound } from '../errors';
import { newId } from '../ids';
import { rowsOf, withRetry } from './sql';

export type CatalogSource = (typeof SOURCES)[number];

/** One statement as a source saw it, distinct by hash within a write. */
export interface CatalogRow {
  hash: string;
  query: string;
  formattedQuery: string;
  calls: number | null;
  meanTimeMs: number | null;
  /** Where the statement comes from, read from its comments at ingestion (none when absent). */
  callSites?: readonly CallSite[];
}

interface SourceRule {
  /** A sighting is one more CI run: a new row starts at 1, an existing one adds 1. Else 0 and unchanged. */
  countsCiRun: boolean;
  /** The rows' calls and mean time are production's: stored as productionCalls/productionMeanTimeMs. */
  recordsProductionFigures: boolean;
}

const SOURCE_RULES: Record<CatalogSource, SourceRule> = {
  ci: { countsCiRun: true, recordsProductionFigures: false },
  production: { countsCiRun: false, recordsProductionFigures: true },
  manual: { countsCiRun: false, recordsProductionFigures: false },
};

interface CatalogWrite {
  environmentId: string;
  source: CatalogSource;
  rows: readonly CatalogRow[];
  /** The write's time (ISO 8601); a CI run passes its own so the run and its rows agree. */
  now?: string;
  /**
   * More data-modifying CTEs for the same statement, after the upsert: they may read `input` (the
   * rows) and `upserted` (hash, inserted). A CI run stores its query list and its count of new
   * queries this way, in the one statement.
   */
  alongside?: SQL;
}

/** The rows as one JSON parameter: any number of rows in one bind. */
function rowsParameter(rows: readonly CatalogRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: newId('q'),
      hash: r.hash,
      // no NUL to strip: the input schemas refuse text PostgreSQL cannot hold (shared/validation.ts)
      query: r.query,
      formatted_query: r.formattedQuery,
      calls: r.calls,
      mean_time_ms: r.meanTimeMs,
      call_sites: r.callSites ?? [],
    })),
  );
}

/** The CTE `input`: the rows (id, hash, query, formatted_query, calls, mean_time_ms, call_sites), unpacked once. */
export function inputRows(rows: readonly CatalogRow[]): SQL {
  return sql`input AS MATERIALIZED (
    SELECT * FROM json_to_recordset(${rowsParameter(rows)}::json)
      AS r(id text, hash text, query text, formatted_query text, calls bigint, mean_time_ms float8, call_sites jsonb)
  )`;
}

/** The whole statement of one write; its one row is new_query_count. Exported for its tests. */
export function upsertStatement({ environmentId, source, rows, now = new Date().toISOString(), alongside }: CatalogWrite): SQL {
  const rule = SOURCE_RULES[source];
  const ciRunCount = rule.countsCiRun ? sql`1` : sql`0`;
  const productionFigures = rule.recordsProductionFigures ? sql`calls, mean_time_ms` : sql`NULL::bigint, NULL::float8`;
  const perSource: SQL[] = [];
  if (rule.countsCiRun) perSource.push(sql`ci_run_count = c.ci_run_count + 1,`);
  if (rule.recordsProductionFigures) {
    perSource.push(sql`production_calls = excluded.production_calls, production_mean_time_ms = excluded.production_mean_time_ms,`);
  }
  // xmax = 0 only on the rows this statement inserted
  return sql`WITH ${inputRows(rows)}, upserted AS (
      INSERT INTO catalog_queries AS c (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at,
                                        last_seen_source, ci_run_count, production_calls, production_mean_time_ms,
                                        call_sites, created_at, updated_at)
      SELECT id, ${environmentId}, hash, query, formatted_query, ${now}::timestamptz, ${now}::timestamptz,
             ${source}::text, ${ciRunCount}, ${productionFigures}, coalesce(call_sites, '[]'::jsonb),
             ${now}::timestamptz, ${now}::timestamptz
      FROM input ORDER BY hash
      ON CONFLICT (environment_id, hash) DO UPDATE SET
        query = excluded.query,
        formatted_query = excluded.formatted_query,
        last_seen_at = greatest(c.last_seen_at, excluded.last_seen_at),
        last_seen_source = excluded.last_seen_source,
        ${sql.join(perSource, sql` `)}
        -- the newest sighting's call sites first, then the ones kept, each once, bounded
        call_sites = (
          SELECT coalesce(jsonb_agg(site ORDER BY first), '[]'::jsonb)
          FROM (SELECT site, min(n) AS first
                FROM jsonb_array_elements(excluded.call_sites || c.call_sites) WITH ORDINALITY AS t(site, n)
                GROUP BY site ORDER BY min(n) LIMIT ${CALL_SITE_LIMITS.perCatalogQuery}) AS kept
        ),
        updated_at = excluded.updated_at
      RETURNING hash, (c.xmax = 0) AS inserted
    )${alongside ? sql`, ${alongside}` : sql``}
    SELECT (count(*) FILTER (WHERE inserted))::int AS new_query_count FROM upserted`;
}

/**
 * Upserts the rows into the environment's catalog by the rules of their source, in one statement;
 * returns how many were new. The caller decides about transactions and retries (see sql.ts).
 */
export async function upsertCatalog(db: Pick<Db, 'execute'>, write: CatalogWrite): Promise<number> {
  if (write.rows.length === 0 && !write.alongside) return 0;
  const [counted] = await rowsOf<{ new_query_count: number }>(db, upsertStatement(write));
  return counted?.new_query_count ?? 0;
}

/**
 * A write that is a request of its own (a production sync, a query added by hand), not part of a
 * CI run's transaction: run again when PostgreSQL aborted it for a reason that goes away, and 404
 * when the environment was deleted while it ran.
 */
export async function upsertOnItsOwn(db: Db, write: CatalogWrite): Promise<number> {
  try {
    return await withRetry(() => upsertCatalog(db, write));
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound(`Environment ${write.environmentId}`);
    throw error;
  }
}
