// Production's schema as DDL, rebuilt from its catalogs with the pg_get_*def functions (a pg_dump
// of the matching major is not guaranteed to exist next to us), one reader per kind of object, in
// an order that mostly works: schemas and extensions, types, functions, tables, constraints,
// indexes, views. The shadow still runs it in rounds until nothing more succeeds, and decides what
// of it to rebuild at all (shadow/ddl.ts).
import { escapeIdentifier, escapeLiteral } from '../gateway/index.js';
import type { SnapshotDdl, SnapshotIndex, SystemCatalogQuery, ReadFilter } from './types.js';
import { allowedSchema, notFromExtension, schemaFilterParams, userSchema, type SchemaFilters } from '../shared/schema-filters.js';

type DdlEntry = SnapshotDdl;

/** `AND <column> = ANY($n)` when filtered, with the array as parameter $n; nothing otherwise. */
export function oidFilter(column: string, oids: number[] | undefined, params: unknown[]): string {
  if (!oids) return '';
  params.push(oids);
  return ` AND ${column} OPERATOR(pg_catalog.=) ANY ($${params.length}::pg_catalog.oid[])`;
}

/** The DDL name of a relation: schema and name as quote_ident prints them. */
export const relationKeySql = (ns: string, rel: string) => `pg_catalog.quote_ident(${ns}.nspname) || '.' || pg_catalog.quote_ident(${rel}.relname)`;

/** The application's schemas; public is left out, every database has it. */
async function readSchemas(q: SystemCatalogQuery, filters?: SchemaFilters): Promise<DdlEntry[]> {
  const rows = await q(
    `SELECT n.nspname AS name FROM pg_catalog.pg_namespace n WHERE ${userSchema('n')} AND n.nspname <> 'public' AND ${notFromExtension('pg_namespace', 'n.oid')} AND ${allowedSchema('n', '$1', '$2')} ORDER BY 1`,
    schemaFilterParams(filters),
  );
  return rows.map((r) => ({ kind: 'schema', name: String(r.name), sql: `CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(String(r.name))}` }));
}

/** Extensions in their schemas (plpgsql is always there). */
async function readExtensions(q: SystemCatalogQuery): Promise<DdlEntry[]> {
  const rows = await q(
    `SELECT e.extname AS name, n.nspname AS schema FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname <> 'plpgsql' ORDER BY 1`,
  );
  return rows.map((r) => ({
    kind: 'extension',
    name: String(r.name),
    sql: `CREATE EXTENSION IF NOT EXISTS ${escapeIdentifier(String(r.name))} SCHEMA ${escapeIdentifier(String(r.schema))}`,
  }));
}

/** Enums, domains and composite types: columns and functions are declared with them. */
async function readTypes(q: SystemCatalogQuery, filter?: ReadFilter): Promise<DdlEntry[]> {
  const params: unknown[] = [];
  const only = oidFilter('t.oid', filter?.types, params);
  const enums = await q(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name,
            array_agg(quote_literal(e.enumlabel) ORDER BY e.enumsortorder)::text[] AS labels
          FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
          WHERE ${userSchema('n')} AND ${notFromExtension('pg_type', 't.oid')}${only} GROUP BY 1 ORDER BY 1`,
    params,
  );
  const domains = await q(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name, format_type(t.typbasetype, t.typtypmod) AS base,
              t.typnotnull AS not_null,
              coalesce((SELECT array_agg(pg_get_constraintdef(c.oid)) FROM pg_catalog.pg_constraint c WHERE c.contypid = t.oid AND c.contype = 'c'), '{}')::text[] AS checks
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE t.typtype = 'd' AND ${userSchema('n')} AND ${notFromExtension('pg_type', 't.oid')}${only} ORDER BY 1`,
    params,
  );
  const composites = await q(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS name,
                 string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum) AS columns
               FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace JOIN pg_catalog.pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               WHERE ${userSchema('n')} AND ${notFromExtension('pg_type', 't.oid')}${only} GROUP BY 1 ORDER BY 1`,
    params,
  );
  return [
    ...enums.map((r) => ({ kind: 'type', name: String(r.name), sql: `CREATE TYPE ${r.name} AS ENUM (${(r.labels as string[]).join(', ')})` })),
    ...domains.map((r) => ({
      kind: 'type',
      name: String(r.name),
      sql: `CREATE DOMAIN ${r.name} AS ${r.base}${r.not_null ? ' NOT NULL' : ''} ${(r.checks as string[]).join(' ')}`,
    })),
    ...composites.map((r) => ({ kind: 'type', name: String(r.name), sql: `CREATE TYPE ${r.name} AS (${r.columns})` })),
  ];
}

/** SQL and PL/pgSQL functions and procedures, and the aggregates built on them. */
async function readFunctions(q: SystemCatalogQuery, filter?: ReadFilter): Promise<DdlEntry[]> {
  const params: unknown[] = [];
  const only = oidFilter('p.oid', filter?.functions, params);
  const functions = await q(
    `SELECT p.oid::regprocedure::text AS name, pg_get_functiondef(p.oid) AS def
              FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
              WHERE ${userSchema('n')} AND p.prokind IN ('f', 'p') AND l.lanname IN ('sql', 'plpgsql')
                AND ${notFromExtension('pg_proc', 'p.oid')}${only} ORDER BY 1`,
    params,
  );
  // User-defined aggregates (Pagila's group_concat) that views and queries call.
  const aggregates = await q(
    `SELECT p.oid::regprocedure::text AS name, quote_ident(n.nspname) || '.' || quote_ident(p.proname) AS qname,
                 pg_get_function_identity_arguments(p.oid) AS args, a.aggtransfn::regproc::text AS sfunc, format_type(a.aggtranstype, NULL) AS stype,
                 nullif(a.aggfinalfn::regproc::text, '-') AS ffunc, a.agginitval AS initcond
               FROM pg_catalog.pg_aggregate a JOIN pg_catalog.pg_proc p ON p.oid = a.aggfnoid JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
               WHERE a.aggkind = 'n' AND ${userSchema('n')} AND ${notFromExtension('pg_proc', 'p.oid')}${only} ORDER BY 1`,
    params,
  );
  return [
    ...functions.map((r) => ({ kind: 'function', name: String(r.name), sql: String(r.def) })),
    ...aggregates.map((r) => {
      const parts = [
        `SFUNC = ${r.sfunc}`,
        `STYPE = ${r.stype}`,
        ...(r.ffunc ? [`FINALFUNC = ${r.ffunc}`] : []),
        ...(r.initcond !== null ? [`INITCOND = ${escapeLiteral(String(r.initcond))}`] : []),
      ];
      return { kind: 'aggregate', name: String(r.name), sql: `CREATE AGGREGATE ${r.qname}(${r.args}) (${parts.join(', ')})` };
    }),
  ];
}

/**
 * Tables with their columns (types, collations, NOT NULL, generated expressions), partitioning and
 * reloptions. Materialized views and foreign tables become plain tables: the planner sizes all
 * three alike.
 */
async function readTables(q: SystemCatalogQuery, filter?: ReadFilter): Promise<DdlEntry[]> {
  const ddl: DdlEntry[] = [];
  const params: unknown[] = [];
  const only = oidFilter('c.oid', filter?.relations, params);
  for (const r of await q(
    `SELECT c.oid::int AS oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, c.relkind AS kind,
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
           WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relpersistence = 't' AND ${userSchema('n')}
             AND ${notFromExtension('pg_class', 'c.oid')}${only}
           ORDER BY c.relispartition, 2`,
    params,
  )) {
    const options = (r.options as string[] | null) ?? [];
    const withOptions = options.length ? ` WITH (${options.join(', ')})` : '';
    const partition = r.partkey ? ` PARTITION BY ${r.partkey}` : '';
    ddl.push({ kind: 'table', name: String(r.name), sql: `CREATE TABLE ${r.name} (${r.columns})${partition}${withOptions}` });
    // Attaching after creation keeps the column list production has, whatever its history.
    const of = String(r.name);
    if (r.is_partition && r.parent) ddl.push({ kind: 'attach', name: of, of, sql: `ALTER TABLE ${r.parent} ATTACH PARTITION ${r.name} ${r.bound}` });
    else if (r.parent) ddl.push({ kind: 'attach', name: of, of, sql: `ALTER TABLE ${r.name} INHERIT ${r.parent}` });
  }
  return ddl;
}

/** Keys, exclusion constraints, CHECKs and, last, foreign keys (the planner uses them for join estimates). */
async function readConstraints(q: SystemCatalogQuery, filter?: ReadFilter): Promise<DdlEntry[]> {
  const params: unknown[] = [];
  const only = oidFilter('k.conrelid', filter?.relations, params);
  const rows = await q(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table, quote_ident(k.conname) AS name, k.contype AS type,
                  pg_get_constraintdef(k.oid) AS def,
                  (SELECT ${relationKeySql('fn', 'fc')} FROM pg_catalog.pg_class fc JOIN pg_catalog.pg_namespace fn ON fn.oid = fc.relnamespace
                    WHERE fc.oid = k.confrelid) AS references
                FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE k.contype IN ('p', 'u', 'x', 'c', 'f') AND k.conparentid = 0 AND k.conislocal
                  AND c.relkind IN ('r', 'p', 'm', 'f') AND ${userSchema('n')} AND ${notFromExtension('pg_class', 'c.oid')}${only}
                ORDER BY CASE k.contype WHEN 'f' THEN 1 ELSE 0 END, 1, 2`,
    params,
  );
  return rows.map((r) => ({
    kind: r.type === 'f' ? 'foreign key' : 'constraint',
    name: String(r.name),
    sql: `ALTER TABLE ${r.table} ADD CONSTRAINT ${r.name} ${r.def}`,
    of: String(r.table),
    ...(r.type === 'f' && r.references ? { references: String(r.references) } : {}),
  }));
}

/** Valid indexes, as DDL and as the columns and predicate that tell whether one covers a candidate. */
async function readIndexes(q: SystemCatalogQuery, filter?: ReadFilter): Promise<{ ddl: DdlEntry[]; indexes: SnapshotIndex[] }> {
  const params: unknown[] = [];
  const only = oidFilter('i.indrelid', filter?.relations, params);
  const rows = await q(
    `SELECT n.nspname AS schema, t.relname AS table, c.relname AS name, am.amname AS am, i.indisunique AS unique,
              ${relationKeySql('n', 't')} AS of,
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
            WHERE i.indisvalid AND t.relkind IN ('r', 'p', 'm') AND ${userSchema('n')} AND ${notFromExtension('pg_class', 't.oid')}${only}
            ORDER BY 1, 2, 3`,
    params,
  );
  const ddl: DdlEntry[] = [];
  for (const r of rows) {
    // Constraint indexes come with their constraint; partition parts come with their parent.
    if (r.from_constraint || r.parent) continue;
    // pg_get_indexdef says ON ONLY for a partitioned index (pg_dump attaches parts one by one);
    // without ONLY, CREATE INDEX builds or attaches the parts itself.
    ddl.push({ kind: 'index', name: String(r.name), of: String(r.of), sql: String(r.definition).replace(/ ON ONLY /, ' ON ') });
  }
  const indexes = rows.map((r) => ({
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
  }));
  return { ddl, indexes };
}

async function readViews(q: SystemCatalogQuery, filter?: ReadFilter): Promise<DdlEntry[]> {
  const params: unknown[] = [];
  const only = oidFilter('c.oid', filter?.relations, params);
  const rows = await q(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, pg_get_viewdef(c.oid) AS def
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'v' AND ${userSchema('n')} AND ${notFromExtension('pg_class', 'c.oid')}${only} ORDER BY 2`,
    params,
  );
  return rows.map((r) => ({ kind: 'view', name: String(r.name), sql: `CREATE VIEW ${r.name} AS ${r.def}` }));
}

/**
 * Every kind of object as DDL, in the order they depend on each other, and the indexes as read;
 * with a filter, only those objects (schemas and extensions are always read whole: they are few).
 * A scoped read keeps every foreign key of its tables, `references` saying which table each needs.
 */
export async function readSchemaDdl(
  q: SystemCatalogQuery,
  filter?: ReadFilter,
  schemaFilters?: SchemaFilters,
): Promise<{ ddl: DdlEntry[]; indexes: SnapshotIndex[] }> {
  const ddl = [
    ...(await readSchemas(q, schemaFilters)),
    ...(await readExtensions(q)),
    ...(await readTypes(q, filter)),
    ...(await readFunctions(q, filter)),
    ...(await readTables(q, filter)),
    ...(await readConstraints(q, filter)),
  ];
  const indexes = await readIndexes(q, filter);
  ddl.push(...indexes.ddl, ...(await readViews(q, filter)));
  return { ddl, indexes: indexes.indexes };
}
