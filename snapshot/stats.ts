// What the planner reads besides the schema, from production: the server's version, block size,
// collation and the application's search_path; each relation's sizes (pg_class and the physical
// length, see shadow/relation-files.ts); column statistics (pg_stats); the planner settings a session may SET;
// and the actual extremes of indexed columns.
import { escapeIdentifier, readThroughColumnStatsHelper, type ReadOnlyTransaction } from '../gateway/index.js';
import { notFromExtension, userSchema } from '../shared/schema-filters.js';
import { oidFilter } from './schema.js';
import type {
  SystemCatalogQuery,
  ReadFilter,
  Row,
  SnapshotColumn,
  SnapshotColumnStats,
  SnapshotEndpoint,
  SnapshotHiddenStatistics,
  SnapshotRelation,
  Snapshot,
} from './types.js';

// The search_path the application's sessions start with, to resolve the unqualified names of its
// queries. Ours is pinned to pg_catalog, so it is worked out as PostgreSQL would: the most specific
// ALTER ROLE/DATABASE ... SET first, else the built-in default (a value set in postgresql.conf is
// not visible to an unprivileged role).
const APPLICATION_SEARCH_PATH = `coalesce(
  (SELECT pg_catalog.substr(setting, 13)
   FROM pg_catalog.pg_db_role_setting s CROSS JOIN LATERAL pg_catalog.unnest(s.setconfig) AS setting
   WHERE setting OPERATOR(pg_catalog.~~) 'search\\_path=%'
     AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()))
     AND s.setrole IN (0, (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user))
   ORDER BY s.setdatabase <> 0 AND s.setrole <> 0 DESC, s.setrole <> 0 DESC, s.setdatabase <> 0 DESC
   LIMIT 1),
  (SELECT boot_val FROM pg_catalog.pg_settings WHERE name = 'search_path'))`;

/** Version, application search_path, block size and collation of production. */
export async function readServerFacts(q: SystemCatalogQuery): Promise<Pick<Snapshot, 'serverVersionNum' | 'searchPath' | 'blockSize' | 'locale'>> {
  const [meta] = await q(`SELECT current_setting('server_version_num')::int AS v, ${APPLICATION_SEARCH_PATH} AS sp, current_setting('block_size')::int AS bs,
    (SELECT datcollate FROM pg_catalog.pg_database WHERE datname = current_database()) AS collate, (SELECT datctype FROM pg_catalog.pg_database WHERE datname = current_database()) AS ctype`);
  return {
    serverVersionNum: Number(meta!.v),
    searchPath: String(meta!.sp),
    blockSize: Number(meta!.bs),
    locale: { collate: String(meta!.collate), ctype: String(meta!.ctype) },
  };
}

/** Settings that change plans or costs; only ones a session may SET are replayed. */
export async function readSettings(q: SystemCatalogQuery): Promise<Record<string, string>> {
  const rows = await q(`SELECT name, setting FROM pg_catalog.pg_settings
             WHERE (category OPERATOR(pg_catalog.~~) 'Query Tuning%' OR name IN ('work_mem', 'hash_mem_multiplier', 'max_parallel_workers',
                    'effective_io_concurrency', 'maintenance_io_concurrency', 'jit'))
               AND context IN ('user', 'superuser')`);
  return Object.fromEntries(rows.map((r) => [String(r.name), String(r.setting)]));
}

/** Sizes of tables, materialized views, foreign tables and indexes: pg_class's and the physical one. With a filter: those tables and their indexes. */
export async function readRelations(q: SystemCatalogQuery, filter?: ReadFilter): Promise<SnapshotRelation[]> {
  const params: unknown[] = [];
  let only = '';
  if (filter) {
    params.push(filter.relations);
    only = ` AND (c.oid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
               OR c.oid IN (SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])))`;
  }
  const rows = await q(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind, c.relpages, c.reltuples::float8 AS reltuples, c.relallvisible,
                CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_relation_size(c.oid, 'main') / current_setting('block_size')::int ELSE 0 END AS blocks
              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p', 'm', 'f', 'i', 'I') AND ${userSchema('n')}${only} ORDER BY 1, 2`,
    params,
  );
  return rows.map((r) => ({
    schema: String(r.schema),
    name: String(r.name),
    kind: String(r.kind),
    relpages: Number(r.relpages),
    reltuples: Number(r.reltuples),
    relallvisible: Number(r.relallvisible),
    blocks: Number(r.blocks),
  }));
}

/** Columns of tables and views, with their type and its category. */
export async function readColumns(q: SystemCatalogQuery, filter?: ReadFilter): Promise<SnapshotColumn[]> {
  const params: unknown[] = [];
  const only = oidFilter('c.oid', filter?.relations, params);
  const rows = await q(
    `SELECT n.nspname AS schema, c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              t.typcategory AS category, a.attnotnull AS not_null
            FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE c.relkind IN ('r', 'p', 'm', 'f', 'v') AND a.attnum > 0 AND NOT a.attisdropped AND ${userSchema('n')}${only}
            ORDER BY 1, 2, a.attnum`,
    params,
  );
  return rows.map((r) => ({
    schema: String(r.schema),
    table: String(r.table),
    name: String(r.name),
    type: String(r.type),
    category: String(r.category),
    notNull: Boolean(r.not_null),
  }));
}

const STATS_FIELDS = [
  'null_frac',
  'avg_width',
  'n_distinct',
  'most_common_vals',
  'most_common_freqs',
  'histogram_bounds',
  'correlation',
  'most_common_elems',
  'most_common_elem_freqs',
  'elem_count_histogram',
  'range_length_histogram',
  'range_empty_frac',
  'range_bounds_histogram',
] as const;
const ARRAY_TEXT_FIELDS = new Set(['most_common_vals', 'histogram_bounds', 'most_common_elems', 'range_length_histogram', 'range_bounds_histogram']);

/**
 * pg_stats of every column the reading role may see, each field production's version has. Arrays
 * of values come as text: their element type is the column's, which only the shadow can parse.
 * With `only`: the statistics of those relations (tables, and indexes for their expressions).
 * Columns pg_stats hides from the role come from the administrator's helper when it is installed
 * (gateway/column-stats-helper.ts): only for relations of `relations`, never over pg_stats' own rows.
 */
export async function readStats(
  tx: ReadOnlyTransaction,
  relations: { schema: string; name: string }[],
  only?: { schema: string; name: string }[],
  statementTimeoutMs?: number,
): Promise<SnapshotColumnStats[]> {
  const q: SystemCatalogQuery = (sql, params) => tx.rows<Row>(sql, params ?? []);
  const statsColumns = (await q(`SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = 'pg_catalog.pg_stats'::pg_catalog.regclass AND attnum > 0`)).map(
    (r) => String(r.attname),
  );
  const fields = STATS_FIELDS.filter((f) => statsColumns.includes(f));
  const params: unknown[] = [];
  let scoped = '';
  if (only) {
    params.push(
      only.map((r) => r.schema),
      only.map((r) => r.name),
    );
    scoped = ` AND (s.schemaname, s.tablename) IN (SELECT u.s, u.t FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.name[]), pg_catalog.unnest($2::pg_catalog.name[])) AS u(s, t))`;
  }
  const statement = (from: string) =>
    `SELECT schemaname, tablename, attname, inherited, ${fields.map((f) => (ARRAY_TEXT_FIELDS.has(f) ? `${f}::text AS ${f}` : f)).join(', ')}
                    FROM ${from} s WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema')${scoped} ORDER BY 1, 2, 3`;
  const own = (await q(statement('pg_catalog.pg_stats'), params)).map((r) => statsRow(r, fields));
  const helped = await readThroughColumnStatsHelper<Row>(tx, statement, params, { statementTimeoutMs: Math.min(5_000, statementTimeoutMs ?? 5_000) });
  if (!helped) return own;
  const known = new Set(relations.map((r) => `${r.schema}\u0000${r.name}`));
  const key = (s: SnapshotColumnStats) => `${s.schema}\u0000${s.table}\u0000${s.column}\u0000${s.inherited}`;
  const seen = new Set(own.map(key));
  const added = helped.map((r) => statsRow(r, fields)).filter((s) => known.has(`${s.schema}\u0000${s.table}`) && !seen.has(key(s)) && seen.add(key(s)));
  return [...own, ...added];
}

/** One row of pg_stats, or of the helper's answer (someone else's data): every field as pg_stats types it, or null. */
function statsRow(r: Row, fields: readonly string[]): SnapshotColumnStats {
  return {
    schema: String(r.schemaname),
    table: String(r.tablename),
    column: String(r.attname),
    inherited: r.inherited === true,
    values: Object.fromEntries(fields.map((f) => [f, fieldValue(r[f], ARRAY_TEXT_FIELDS.has(f))])),
  };
}

function fieldValue(value: unknown, text: boolean): string | number | null {
  if (value === null || value === undefined) return null;
  if (text) return typeof value === 'string' ? value : null;
  if (typeof value === 'number') return value;
  // real[] (most_common_freqs...) arrives parsed, as an array of numbers; the shadow casts it back
  if (Array.isArray(value) && value.every((v) => v === null || typeof v === 'number')) return value as unknown as string;
  return null;
}

/**
 * Tables (and materialized views) with columns pg_stats hides from the role: those it may not
 * SELECT, or every column while row security applies to it. `statistics` says whether the table
 * ever had any: 'never_analyzed' when pg_class counts no rows yet (-1) and no ANALYZE is recorded,
 * which production plans with the same defaults.
 */
export async function readHiddenStatistics(
  q: SystemCatalogQuery,
  stats: readonly SnapshotColumnStats[],
  filter?: ReadFilter,
): Promise<SnapshotHiddenStatistics[]> {
  const params: unknown[] = [];
  const only = oidFilter('c.oid', filter?.relations, params);
  const rows = await q(
    `SELECT n.nspname AS schema, c.relname AS table, pg_catalog.array_agg(a.attname::text ORDER BY a.attnum) AS columns,
              c.reltuples >= 0 OR pg_catalog.pg_stat_get_last_analyze_time(c.oid) IS NOT NULL
                OR pg_catalog.pg_stat_get_last_autoanalyze_time(c.oid) IS NOT NULL AS analyzed
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE c.relkind IN ('r', 'p', 'm') AND ${userSchema('n')}${only}
              AND NOT (pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT') AND NOT (c.relrowsecurity AND pg_catalog.row_security_active(c.oid)))
            GROUP BY n.nspname, c.relname, c.reltuples, c.oid
            ORDER BY 1, 2`,
    params,
  );
  const read = new Set(stats.map((s) => `${s.schema}\u0000${s.table}\u0000${s.column}`));
  return rows.flatMap((r) => {
    const [schema, table] = [String(r.schema), String(r.table)];
    // what the helper returned is no longer hidden
    const columns = (r.columns as string[]).filter((column) => !read.has(`${schema}\u0000${table}\u0000${column}`));
    if (columns.length === 0) return [];
    return [{ schema, table, columns, statistics: r.analyzed === true ? ('hidden' as const) : ('never_analyzed' as const) }];
  });
}

/**
 * Actual smallest and largest values of the columns the planner may probe for them. Each endpoint
 * is two index-only probes (ORDER BY col [DESC] LIMIT 1 over the column's B-tree index, as the
 * planner does). Each runs under a savepoint with a short timeout: a column that cannot be read
 * (privileges, lock, a planner that would not use the index) is left out.
 *
 * A probe counts as a scan of the index in production's statistics (idx_scan), and "never scanned
 * since the statistics were reset" is how a user finds an unused index (index health). So a column
 * is not probed while any B-tree index that leads with it has never been scanned: reading
 * production must not make its unused indexes look used. The shadow then takes that column's
 * extremes from its statistics, as for a column no index leads with.
 */
export async function readEndpoints(tx: ReadOnlyTransaction, statementTimeoutMs?: number, filter?: ReadFilter): Promise<SnapshotEndpoint[]> {
  const out: SnapshotEndpoint[] = [];
  const timeout = Math.max(1, Math.min(5_000, Math.round(statementTimeoutMs ?? 5_000)));
  const ident = escapeIdentifier;
  // Columns the planner may probe for their actual extremes: the leading column of a valid,
  // non-partial B-tree index with the type's default operator class and the column's collation
  // (get_actual_variable_range only uses such an index). Leaf tables only: partitioned parents have
  // no index the planner scans.
  const params: unknown[] = [];
  const only = oidFilter('t.oid', filter?.relations, params);
  const columns = await tx.rows<Row>(
    `SELECT DISTINCT n.nspname AS schema, t.relname AS table, a.attname AS column
            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace JOIN pg_catalog.pg_am am ON am.oid = c.relam
            JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
            JOIN pg_catalog.pg_opclass oc ON oc.oid = i.indclass[0]
            JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
            LEFT JOIN pg_catalog.pg_type base ON base.oid = ty.typbasetype AND ty.typtype = 'd'
            JOIN pg_catalog.pg_proc output ON output.oid = ty.typoutput
            JOIN pg_catalog.pg_language ol ON ol.oid = output.prolang
            WHERE am.amname = 'btree' AND i.indisvalid AND i.indpred IS NULL AND i.indkey[0] <> 0 AND oc.opcdefault
              AND i.indcollation[0] = a.attcollation AND t.relkind = 'r' AND t.reltuples > 0
              -- read as the text the type's output function prints (no cast, which a user may define):
              -- scalar types whose output function is C or internal, which only a superuser can create
              AND coalesce(base.typtype, ty.typtype) IN ('b', 'e') AND ol.lanname IN ('internal', 'c')
              AND ${userSchema('n')} AND ${notFromExtension('pg_class', 't.oid')}
              AND NOT EXISTS (
                SELECT 1 FROM pg_catalog.pg_index j JOIN pg_catalog.pg_class jc ON jc.oid = j.indexrelid JOIN pg_catalog.pg_am jam ON jam.oid = jc.relam
                WHERE j.indrelid = t.oid AND j.indkey[0] = a.attnum AND jam.amname = 'btree'
                  AND coalesce(pg_catalog.pg_stat_get_numscans(j.indexrelid), 0) = 0)${only}
            ORDER BY 1, 2, 3`,
    params,
  );
  for (const r of columns) {
    const [schema, table, column] = [String(r.schema), String(r.table), String(r.column)];
    const rel = `ONLY ${ident(schema)}.${ident(table)}`;
    const col = ident(column);
    // The values come back as the server printed them (raw), never through a cast.
    const read = await tx.attempt(
      () =>
        tx.rows<{ min: string | null; max: string | null }>(
          `SELECT (SELECT ${col} FROM ${rel} WHERE ${col} IS NOT NULL ORDER BY ${col} LIMIT 1) AS min,
                  (SELECT ${col} FROM ${rel} WHERE ${col} IS NOT NULL ORDER BY ${col} DESC LIMIT 1) AS max`,
          [],
          { raw: true },
        ),
      { statementTimeoutMs: timeout },
    );
    if (!read.ok) continue;
    const [row] = read.value;
    out.push({ schema, table, column, min: row?.min ?? null, max: row?.max ?? null });
  }
  return out;
}
