// Reads everything the shadow planner needs from the production database, read-only: DDL rebuilt
// from catalogs with the pg_get_*def functions (a pg_dump of the matching major is not guaranteed
// to exist next to us), sizes from pg_class and pg_relation_size, column statistics from pg_stats,
// and the planner's settings. Every statement runs through the gateway, in one REPEATABLE READ, READ
// ONLY transaction with a timeout, and only PostgreSQL's own objects are named unqualified.
import { escapeIdentifier, escapeLiteral, openGateway, type ReadOnlyTransaction } from '../gateway/index.js';

export interface SourceRelation {
  schema: string;
  name: string;
  /** r table, p partitioned table, m materialized view, f foreign table, i index, I partitioned index */
  kind: string;
  relpages: number;
  reltuples: number;
  relallvisible: number;
  /** Physical size in blocks now: the planner scales pg_class's density by this, not by relpages. */
  blocks: number;
}

export interface SourceIndex {
  schema: string;
  table: string;
  name: string;
  am: string;
  /** Key columns by name; null for an expression. */
  keys: (string | null)[];
  include: string[];
  predicate: string | null;
  unique: boolean;
  /** The index's parent when it is a partition's part of a partitioned index. */
  parent: string | null;
  definition: string;
}

export interface SourceColumn {
  schema: string;
  table: string;
  name: string;
  type: string;
  /** Element type name of an array column, for GIN candidates. */
  category: string;
  notNull: boolean;
}

export interface SourceColumnStats {
  schema: string;
  table: string;
  column: string;
  inherited: boolean;
  /** pg_stats fields by name, arrays already in their text form. */
  values: Record<string, string | number | null>;
}

export interface SourceSnapshot {
  serverVersionNum: number;
  searchPath: string;
  blockSize: number;
  /** The database's collation, so the shadow can sort and compare text alike where the OS has it. */
  locale: { collate: string; ctype: string };
  /** Planner settings to replay in the shadow session. */
  settings: Record<string, string>;
  /** DDL in a workable order; shadow.ts still retries failures until no progress is made. */
  ddl: { kind: string; name: string; sql: string }[];
  /** Partition parts of partitioned indexes: the shadow renames its own to these names. */
  relations: SourceRelation[];
  indexes: SourceIndex[];
  columns: SourceColumn[];
  stats: SourceColumnStats[];
  /**
   * Actual smallest and largest values of columns that lead a plain B-tree index, read through
   * that index. The planner reads them itself (get_actual_variable_range) when a constant falls
   * beyond the histogram; the shadow stores them as two rows so its planner finds them too.
   */
  endpoints?: SourceEndpoint[];
}

export interface SourceEndpoint {
  schema: string;
  table: string;
  column: string;
  /** Text forms (DateStyle ISO), null when the column holds no value. */
  min: string | null;
  max: string | null;
}

// Schemas that belong to PostgreSQL itself.
const SYSTEM_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname OPERATOR(pg_catalog.!~~) 'pg_temp%' AND n.nspname OPERATOR(pg_catalog.!~~) 'pg_toast_temp%'`;
// Objects created by an extension are recreated by CREATE EXTENSION, not one by one.
const notFromExtension = (oid: string, catalog: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.${catalog}'::pg_catalog.regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

const SQL = {
  schemas: `SELECT n.nspname AS name FROM pg_catalog.pg_namespace n WHERE ${SYSTEM_SCHEMAS} AND n.nspname <> 'public' AND ${notFromExtension('n.oid', 'pg_namespace')} ORDER BY 1`,
  extensions: `SELECT e.extname AS name, n.nspname AS schema FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname <> 'plpgsql' ORDER BY 1`,
  enums: `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name,
            array_agg(quote_literal(e.enumlabel) ORDER BY e.enumsortorder)::text[] AS labels
          FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
          WHERE ${SYSTEM_SCHEMAS} AND ${notFromExtension('t.oid', 'pg_type')} GROUP BY 1 ORDER BY 1`,
  domains: `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name, format_type(t.typbasetype, t.typtypmod) AS base,
              t.typnotnull AS not_null,
              coalesce((SELECT array_agg(pg_get_constraintdef(c.oid)) FROM pg_catalog.pg_constraint c WHERE c.contypid = t.oid AND c.contype = 'c'), '{}')::text[] AS checks
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE t.typtype = 'd' AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('t.oid', 'pg_type')} ORDER BY 1`,
  composites: `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name,
                 string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum) AS columns
               FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace JOIN pg_catalog.pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               WHERE ${SYSTEM_SCHEMAS} AND ${notFromExtension('t.oid', 'pg_type')} GROUP BY 1 ORDER BY 1`,
  functions: `SELECT p.oid::regprocedure::text AS name, pg_get_functiondef(p.oid) AS def
              FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
              WHERE ${SYSTEM_SCHEMAS} AND p.prokind IN ('f', 'p') AND l.lanname IN ('sql', 'plpgsql')
                AND ${notFromExtension('p.oid', 'pg_proc')} ORDER BY 1`,
  // User-defined aggregates (Pagila's group_concat) that views and queries call.
  aggregates: `SELECT p.oid::regprocedure::text AS name, quote_ident(n.nspname) || '.' || quote_ident(p.proname) AS qname,
                 pg_get_function_identity_arguments(p.oid) AS args, a.aggtransfn::regproc::text AS sfunc, format_type(a.aggtranstype, NULL) AS stype,
                 nullif(a.aggfinalfn::regproc::text, '-') AS ffunc, a.agginitval AS initcond
               FROM pg_catalog.pg_aggregate a JOIN pg_catalog.pg_proc p ON p.oid = a.aggfnoid JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
               WHERE a.aggkind = 'n' AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('p.oid', 'pg_proc')} ORDER BY 1`,
  // Materialized views and foreign tables become plain tables: the planner sizes all three alike.
  tables: `SELECT c.oid::int AS oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, c.relkind AS kind,
             c.relispartition AS is_partition,
             CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partkey,
             CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound,
             (SELECT quote_ident(pn.nspname) || '.' || quote_ident(pc.relname) FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class pc ON pc.oid = i.inhparent
                JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace WHERE i.inhrelid = c.oid LIMIT 1) AS parent,
             c.reloptions::text[] AS options,
             coalesce((SELECT string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod)
                  || CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
                       THEN ' COLLATE ' || (SELECT quote_ident(cn.nspname) || '.' || quote_ident(co.collname) FROM pg_catalog.pg_collation co JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = a.attcollation) ELSE '' END
                  || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                  -- The planner expands virtual generated columns into their expression.
                  || CASE WHEN a.attgenerated <> '' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ')'
                       || CASE a.attgenerated WHEN 's' THEN ' STORED' ELSE ' VIRTUAL' END ELSE '' END, ', ' ORDER BY a.attnum)
                FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
                LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS columns
           FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relpersistence = 't' AND ${SYSTEM_SCHEMAS}
             AND ${notFromExtension('c.oid', 'pg_class')}
           ORDER BY c.relispartition, 2`,
  constraints: `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table, quote_ident(k.conname) AS name, k.contype AS type,
                  pg_get_constraintdef(k.oid) AS def
                FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE k.contype IN ('p', 'u', 'x', 'c', 'f') AND k.conparentid = 0 AND k.conislocal
                  AND c.relkind IN ('r', 'p', 'm', 'f') AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('c.oid', 'pg_class')}
                ORDER BY CASE k.contype WHEN 'f' THEN 1 ELSE 0 END, 1, 2`,
  views: `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, pg_get_viewdef(c.oid) AS def
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'v' AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('c.oid', 'pg_class')} ORDER BY 2`,
  indexes: `SELECT n.nspname AS schema, t.relname AS table, c.relname AS name, am.amname AS am, i.indisunique AS unique,
              pg_get_indexdef(i.indexrelid) AS definition,
              (SELECT array_agg(CASE WHEN k.attnum = 0 THEN NULL ELSE a.attname END ORDER BY k.ord)
                 FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, ord)
                 LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)::text[] AS keys,
              coalesce((SELECT array_agg(a.attname ORDER BY k.ord)
                 FROM unnest(i.indkey[i.indnkeyatts:]) WITH ORDINALITY k(attnum, ord)
                 JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum), '{}')::text[] AS include,
              pg_get_expr(i.indpred, i.indrelid) AS predicate,
              (SELECT pc.relname FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class pc ON pc.oid = h.inhparent WHERE h.inhrelid = c.oid LIMIT 1) AS parent,
              EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x')) AS from_constraint
            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace JOIN pg_catalog.pg_am am ON am.oid = c.relam
            WHERE i.indisvalid AND t.relkind IN ('r', 'p', 'm') AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('t.oid', 'pg_class')}
            ORDER BY 1, 2, 3`,
  relations: `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind, c.relpages, c.reltuples::float8 AS reltuples, c.relallvisible,
                CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_relation_size(c.oid, 'main') / current_setting('block_size')::int ELSE 0 END AS blocks
              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p', 'm', 'f', 'i', 'I') AND ${SYSTEM_SCHEMAS} ORDER BY 1, 2`,
  columns: `SELECT n.nspname AS schema, c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              t.typcategory AS category, a.attnotnull AS not_null
            FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE c.relkind IN ('r', 'p', 'm', 'f', 'v') AND a.attnum > 0 AND NOT a.attisdropped AND ${SYSTEM_SCHEMAS}
            ORDER BY 1, 2, a.attnum`,
  // Columns the planner may probe for their actual extremes: the leading column of a valid,
  // non-partial B-tree index with the type's default operator class and the column's collation
  // (get_actual_variable_range only uses such an index). Leaf tables only: partitioned parents have
  // no index the planner scans.
  endpointColumns: `SELECT DISTINCT n.nspname AS schema, t.relname AS table, a.attname AS column
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
              AND ${SYSTEM_SCHEMAS} AND ${notFromExtension('t.oid', 'pg_class')}
            ORDER BY 1, 2, 3`,
  // Settings that change plans or costs; only ones a session may SET are replayed.
  settings: `SELECT name, setting FROM pg_catalog.pg_settings
             WHERE (category OPERATOR(pg_catalog.~~) 'Query Tuning%' OR name IN ('work_mem', 'hash_mem_multiplier', 'max_parallel_workers',
                    'effective_io_concurrency', 'maintenance_io_concurrency', 'jit'))
               AND context IN ('user', 'superuser')`,
};

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

type Row = Record<string, unknown>;

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

export interface ReadSourceOptions {
  /** Cap on each statement of the snapshot. Default 60 s. */
  statementTimeoutMs?: number;
}

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
export async function readSource(tx: ReadOnlyTransaction, options: ReadSourceOptions = {}): Promise<SourceSnapshot> {
  const q = (sql: string): Promise<Row[]> => tx.rows<Row>(sql);
  const [meta] = await q(`SELECT current_setting('server_version_num')::int AS v, ${APPLICATION_SEARCH_PATH} AS sp, current_setting('block_size')::int AS bs,
    (SELECT datcollate FROM pg_catalog.pg_database WHERE datname = current_database()) AS collate, (SELECT datctype FROM pg_catalog.pg_database WHERE datname = current_database()) AS ctype`);
  const version = Number(meta!.v);
  const statsColumns = (await q(`SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = 'pg_catalog.pg_stats'::pg_catalog.regclass AND attnum > 0`)).map((r) => String(r.attname));
  const fields = STATS_FIELDS.filter((f) => statsColumns.includes(f));
  const statsSql = `SELECT schemaname, tablename, attname, inherited, ${fields.map((f) => (ARRAY_TEXT_FIELDS.has(f) ? `${f}::text AS ${f}` : f)).join(', ')}
                    FROM pg_catalog.pg_stats s WHERE s.schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`;

  const ddl: SourceSnapshot['ddl'] = [];
  for (const r of await q(SQL.schemas)) ddl.push({ kind: 'schema', name: String(r.name), sql: `CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(String(r.name))}` });
  for (const r of await q(SQL.extensions))
    ddl.push({ kind: 'extension', name: String(r.name), sql: `CREATE EXTENSION IF NOT EXISTS ${escapeIdentifier(String(r.name))} SCHEMA ${escapeIdentifier(String(r.schema))}` });
  for (const r of await q(SQL.enums)) ddl.push({ kind: 'type', name: String(r.name), sql: `CREATE TYPE ${r.name} AS ENUM (${(r.labels as string[]).join(', ')})` });
  for (const r of await q(SQL.domains))
    ddl.push({ kind: 'type', name: String(r.name), sql: `CREATE DOMAIN ${r.name} AS ${r.base}${r.not_null ? ' NOT NULL' : ''} ${(r.checks as string[]).join(' ')}` });
  for (const r of await q(SQL.composites)) ddl.push({ kind: 'type', name: String(r.name), sql: `CREATE TYPE ${r.name} AS (${r.columns})` });
  for (const r of await q(SQL.functions)) ddl.push({ kind: 'function', name: String(r.name), sql: String(r.def) });
  for (const r of await q(SQL.aggregates)) {
    const parts = [`SFUNC = ${r.sfunc}`, `STYPE = ${r.stype}`, ...(r.ffunc ? [`FINALFUNC = ${r.ffunc}`] : []), ...(r.initcond !== null ? [`INITCOND = ${escapeLiteral(String(r.initcond))}`] : [])];
    ddl.push({ kind: 'aggregate', name: String(r.name), sql: `CREATE AGGREGATE ${r.qname}(${r.args}) (${parts.join(', ')})` });
  }
  for (const r of await q(SQL.tables)) {
    const options = (r.options as string[] | null) ?? [];
    const withOptions = options.length ? ` WITH (${options.join(', ')})` : '';
    const partition = r.partkey ? ` PARTITION BY ${r.partkey}` : '';
    ddl.push({ kind: 'table', name: String(r.name), sql: `CREATE TABLE ${r.name} (${r.columns})${partition}${withOptions}` });
    // Attaching after creation keeps the column list the source has, whatever its history.
    if (r.is_partition && r.parent) ddl.push({ kind: 'attach', name: String(r.name), sql: `ALTER TABLE ${r.parent} ATTACH PARTITION ${r.name} ${r.bound}` });
    else if (r.parent) ddl.push({ kind: 'attach', name: String(r.name), sql: `ALTER TABLE ${r.name} INHERIT ${r.parent}` });
  }
  for (const r of await q(SQL.constraints))
    ddl.push({ kind: r.type === 'f' ? 'foreign key' : 'constraint', name: String(r.name), sql: `ALTER TABLE ${r.table} ADD CONSTRAINT ${r.name} ${r.def}` });
  const indexRows = await q(SQL.indexes);
  for (const r of indexRows) {
    // Constraint indexes come with their constraint; partition parts come with their parent.
    if (r.from_constraint || r.parent) continue;
    // pg_get_indexdef says ON ONLY for a partitioned index (pg_dump attaches parts one by one);
    // without ONLY, CREATE INDEX builds or attaches the parts itself.
    ddl.push({ kind: 'index', name: String(r.name), sql: String(r.definition).replace(/ ON ONLY /, ' ON ') });
  }
  for (const r of await q(SQL.views)) ddl.push({ kind: 'view', name: String(r.name), sql: `CREATE VIEW ${r.name} AS ${r.def}` });

  const snapshot: SourceSnapshot = {
    serverVersionNum: version,
    searchPath: String(meta!.sp),
    blockSize: Number(meta!.bs),
    locale: { collate: String(meta!.collate), ctype: String(meta!.ctype) },
    settings: Object.fromEntries((await q(SQL.settings)).map((r) => [String(r.name), String(r.setting)])),
    ddl,
    relations: (await q(SQL.relations)).map((r) => ({
      schema: String(r.schema),
      name: String(r.name),
      kind: String(r.kind),
      relpages: Number(r.relpages),
      reltuples: Number(r.reltuples),
      relallvisible: Number(r.relallvisible),
      blocks: Number(r.blocks),
    })),
    indexes: indexRows.map((r) => ({
      schema: String(r.schema),
      table: String(r.table),
      name: String(r.name),
      am: String(r.am),
      keys: (r.keys as (string | null)[] | null) ?? [],
      include: (r.include as string[] | null) ?? [],
      predicate: (r.predicate as string | null) ?? null,
      unique: Boolean(r.unique),
      parent: (r.parent as string | null) ?? null,
      definition: String(r.definition),
    })),
    columns: (await q(SQL.columns)).map((r) => ({
      schema: String(r.schema),
      table: String(r.table),
      name: String(r.name),
      type: String(r.type),
      category: String(r.category),
      notNull: Boolean(r.not_null),
    })),
    stats: (await q(statsSql)).map((r) => ({
      schema: String(r.schemaname),
      table: String(r.tablename),
      column: String(r.attname),
      inherited: Boolean(r.inherited),
      values: Object.fromEntries(fields.map((f) => [f, (r[f] as string | number | null) ?? null])),
    })),
  };
  snapshot.endpoints = await readEndpoints(tx, options.statementTimeoutMs);
  return snapshot;
}

/**
 * Each endpoint is two index-only probes (ORDER BY col [DESC] LIMIT 1 over the column's B-tree
 * index, as the planner does). Each runs under a savepoint with a short timeout: a column that
 * cannot be read (privileges, lock, a planner that would not use the index) is left out.
 */
async function readEndpoints(tx: ReadOnlyTransaction, statementTimeoutMs?: number): Promise<SourceEndpoint[]> {
  const out: SourceEndpoint[] = [];
  const timeout = Math.max(1, Math.min(5_000, Math.round(statementTimeoutMs ?? 5_000)));
  const ident = escapeIdentifier;
  for (const r of await tx.rows<Row>(SQL.endpointColumns)) {
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
