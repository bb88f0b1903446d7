import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, isoTimestamp, notFromExtension, userSchema } from './filters';
import { indexBytes, indexDropStatement, indexFrom } from './index-fragments';

/** One index as index health judges it (analyzer/index-health.ts classifies). */
export interface IndexFactsRow {
  /** Of two equal indexes the older (lower oid, barring wraparound) is kept. */
  oid: number;
  schema: string;
  table: string;
  name: string;
  method: string;
  partitioned: boolean;
  unique: boolean;
  /** indisvalid and indisready: the planner may use it. */
  valid: boolean;
  ready: boolean;
  /** Backs a primary key, unique or exclusion constraint, or is the unique index a foreign key references. */
  backsConstraint: boolean;
  replicaIdentity: boolean;
  /** Key columns in order: attnum (0 = an expression), operator class, DESC/NULLS FIRST bits, collation. */
  keys: { attnum: number; opclass: number; option: number; collation: number }[];
  /** INCLUDE columns' attnums. */
  include: number[];
  predicate: string | null;
  /** The definition from USING on (or from ON for a partitioned index): equal for two indexes that are the same but for their names. */
  body: string;
  /** Foreign keys of the table, by their columns' attnums: an index leading with them serves deletes on the referenced table. */
  foreignKeys: { name: string; columns: number[] }[];
  /** idx_scan since the statistics were reset; a partitioned index adds its parts'. Null without statistics. */
  scans: number | null;
  bytes: number;
  definition: string;
  dropStatement: string;
}

// Every index of a user table except the parts of partitioned indexes (they are dropped with their
// parent). The body is pg_get_indexdef without "CREATE [UNIQUE] INDEX name": PostgreSQL prints
// operator classes, collations, orders, expressions, INCLUDE and the predicate in one canonical
// form, so two indexes with equal bodies (and uniqueness) are duplicates whatever their names.
// The name is printed with quote_ident, so its length is known exactly.
const indexFactsSql = `
WITH key_columns AS (
  SELECT i.indexrelid,
         json_agg(json_build_object(
           'attnum', k.attnum,
           'opclass', i.indclass[(k.n - 1)::int],
           'option', i.indoption[(k.n - 1)::int],
           'collation', i.indcollation[(k.n - 1)::int]) ORDER BY k.n) FILTER (WHERE k.n <= i.indnkeyatts) AS keys,
         coalesce(json_agg(k.attnum ORDER BY k.n) FILTER (WHERE k.n > i.indnkeyatts), '[]') AS include
  FROM pg_catalog.pg_index i
  CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
  GROUP BY i.indexrelid
),
foreign_keys AS (
  SELECT con.conrelid, json_agg(json_build_object('name', con.conname, 'columns', con.conkey) ORDER BY con.conname) AS keys
  FROM pg_catalog.pg_constraint con
  WHERE con.contype = 'f'
  GROUP BY con.conrelid
)
SELECT c.oid::int8::float8 AS oid,
       n.nspname AS schema,
       t.relname AS table,
       c.relname AS name,
       am.amname AS method,
       c.relkind = 'I' AS partitioned,
       i.indisunique AS unique,
       i.indisvalid AND i.indisready AS valid,
       i.indisready AS ready,
       EXISTS (SELECT 1 FROM pg_catalog.pg_constraint con
               WHERE con.conindid = i.indexrelid AND con.contype IN ('p', 'u', 'x', 'f')) AS "backsConstraint",
       i.indisreplident AS "replicaIdentity",
       kc.keys,
       kc.include,
       pg_get_expr(i.indpred, i.indrelid) AS predicate,
       pg_catalog.substr(pg_get_indexdef(i.indexrelid),
                         pg_catalog.length(CASE WHEN i.indisunique THEN 'CREATE UNIQUE INDEX ' ELSE 'CREATE INDEX ' END)
                         + pg_catalog.length(pg_catalog.quote_ident(c.relname)) + 1) AS body,
       coalesce(fk.keys, '[]') AS "foreignKeys",
       CASE WHEN c.relkind = 'I'
            THEN (SELECT sum(s.idx_scan) FROM pg_catalog.pg_partition_tree(c.oid) pt
                  JOIN pg_catalog.pg_stat_all_indexes s ON s.indexrelid = pt.relid WHERE pt.isleaf)
            ELSE (SELECT s.idx_scan FROM pg_catalog.pg_stat_all_indexes s WHERE s.indexrelid = i.indexrelid)
       END::float8 AS scans,
       ${indexBytes} AS bytes,
       pg_get_indexdef(i.indexrelid) AS definition,
       ${indexDropStatement} AS "dropStatement"
${indexFrom}
JOIN key_columns kc ON kc.indexrelid = i.indexrelid
LEFT JOIN foreign_keys fk ON fk.conrelid = i.indrelid
WHERE NOT c.relispartition AND t.relkind IN ('r', 'p', 'm') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')} AND ${notFromExtension('pg_class', 't.oid')}
ORDER BY n.nspname, t.relname, c.relname`;

// pg_stat_reset() sets it; null means the counters run since the database was created (or since
// the last crash, which also resets them).
const statsResetSql = `
SELECT ${isoTimestamp('d.stats_reset')} AS "statsReset"
FROM pg_catalog.pg_stat_database d
WHERE d.datname = pg_catalog.current_database()`;

export function listIndexFacts(db: Gateway, filters?: SchemaFilters) {
  return db.rows<IndexFactsRow>(indexFactsSql, schemaFilterParams(filters));
}

export async function readStatsReset(db: Gateway): Promise<string | null> {
  const [row] = await db.rows<{ statsReset: string | null }>(statsResetSql);
  return row?.statsReset ?? null;
}
