// The statement of one catalog write (upsert.ts runs it): every row of the write in one INSERT ...
// ON CONFLICT, whatever their number. The rows travel as one JSON parameter unpacked by
// json_to_recordset (a VALUES list would bind a parameter per field, and PostgreSQL takes 65,535),
// and are upserted in hash order, so two writers sharing rows lock them in the same order and queue
// behind each other instead of deadlocking. What each source changes is SOURCE_RULES.
import { sql, type SQL } from 'drizzle-orm';
import { CALL_SITE_LIMITS } from '../../shared/call-sites';
import { newId } from '../ids';
import type { CatalogRow, CatalogSource, CatalogWrite } from './catalog-write';

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

/** The whole statement of one write; its one row is new_query_count. */
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
