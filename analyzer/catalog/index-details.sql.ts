import { oidIn, type Rows } from './filters';
import { indexBytes, indexConstraintJoin, indexDropStatement, indexFields, indexFrom } from './index-fragments';

/**
 * One index of a chunk of the database, read once for the three parts that show indexes: the
 * schema's `indexes`, `disabledIndexes`, and `indexHealth` (its extra columns are read only when
 * asked for). Before, each part had its own statement over the whole database, in its own session:
 * every index was printed by pg_get_indexdef three times and opened for its size twice, each time
 * with that session's caches cold. Key columns come as arrays (attnums, options, operator classes,
 * collations) for the caller to name from the columns and operator classes it read: the grouped
 * joins that named them in SQL scanned pg_attribute whole, once per chunk.
 */
export interface IndexDetailsRow {
  oid: number;
  relationOid: number;
  schema: string;
  table: string;
  name: string;
  method: string;
  unique: boolean;
  primary: boolean;
  exclusion: boolean;
  partitioned: boolean;
  valid: boolean;
  ready: boolean;
  /** indkey: the table's attnums, 0 for an expression; the first keyCount are key columns, the rest INCLUDE. */
  keys: number[];
  keyCount: number;
  /** indoption of the key columns (1 = DESC, 2 = NULLS FIRST). */
  options: number[];
  /** indclass and indcollation of the key columns (oids). */
  opclasses: number[];
  collations: number[];
  /** Per column of indkey, the expression (null for a plain column); null when the index has none. */
  expressions: (string | null)[] | null;
  predicate: string | null;
  constraint: string | null;
  definition: string;
  /** Index health judges it: not a partition's part, on a table or materialized view (the caller leaves out those an extension owns). */
  checked: boolean;
  /** quote_ident(name): the definition past "CREATE [UNIQUE] INDEX <name>" is the index's body. */
  quotedName: string | null;
  replicaIdentity: boolean;
  scans: number | null;
  bytes: number | null;
  dropStatement: string | null;
}

// The Index columns are those of indexes.sql.ts, the health columns those of index-health.sql.ts,
// with the scans read from pg_stat_get_numscans (what pg_stat_all_indexes calls for each row), so that
// nothing computed for the whole database is joined to a chunk.
function indexDetailsSql(health: boolean): string {
  const healthColumns = health
    ? `,
       pg_catalog.quote_ident(c.relname) AS "quotedName",
       i.indisreplident AS "replicaIdentity",
       CASE WHEN NOT checked.value THEN NULL
            WHEN c.relkind = 'I'
            THEN (SELECT sum(pg_catalog.pg_stat_get_numscans(pt.relid)) FROM pg_catalog.pg_partition_tree(c.oid) pt WHERE pt.isleaf)
            ELSE pg_catalog.pg_stat_get_numscans(c.oid)
       END::float8 AS scans,
       CASE WHEN checked.value THEN ${indexBytes} END AS bytes,
       ${indexDropStatement} AS "dropStatement"`
    : `,
       NULL AS "quotedName", false AS "replicaIdentity", NULL AS scans, NULL AS bytes, NULL AS "dropStatement"`;
  return `
SELECT c.oid::int8::float8 AS oid,
       i.indrelid::int8::float8 AS "relationOid",
       ${indexFields},
       i.indkey::int2[] AS keys,
       i.indnkeyatts AS "keyCount",
       i.indoption::int2[] AS options,
       i.indclass::pg_catalog.oid[] AS opclasses,
       i.indcollation::pg_catalog.oid[] AS collations,
       CASE WHEN 0 = ANY (i.indkey::int2[])
            THEN (SELECT json_agg(CASE WHEN k.attnum = 0 THEN pg_get_indexdef(i.indexrelid, k.n::int, true) END ORDER BY k.n)
                  FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n))
       END AS expressions,
       pg_get_expr(i.indpred, i.indrelid, true) AS predicate,
       con.conname AS constraint,
       pg_get_indexdef(i.indexrelid) AS definition,
       checked.value AS checked${healthColumns}
${indexFrom}
${indexConstraintJoin}
CROSS JOIN LATERAL (SELECT NOT c.relispartition AND t.relkind IN ('r', 'p', 'm') AS value) checked
WHERE ${oidIn('i.indrelid', '$1')}
ORDER BY n.nspname, t.relname, c.relname`;
}

/** The indexes of the relations `relations` (oids), with what index health needs when `health`. */
export function indexDetailsOf(db: Rows, relations: number[], health: boolean) {
  return db.rows<IndexDetailsRow>(indexDetailsSql(health), [relations]);
}

/** Operator classes by oid: few, read whole. */
export async function listOpclasses(db: Rows): Promise<Map<number, { name: string; isDefault: boolean }>> {
  const rows = await db.rows<{ oid: number; name: string; isDefault: boolean }>(
    `SELECT oc.oid::int8::float8 AS oid, oc.opcname AS name, oc.opcdefault AS "isDefault" FROM pg_catalog.pg_opclass oc`,
  );
  return new Map(rows.map((row) => [row.oid, { name: row.name, isDefault: row.isDefault }]));
}

// The indexes a foreign key references (a unique index or primary key of the referenced table):
// they back a constraint, so index health never suggests dropping them. One pass over pg_constraint.
const referencedIndexesSql = `
SELECT DISTINCT con.conindid::int8::float8 AS oid
FROM pg_catalog.pg_constraint con
WHERE con.contype = 'f' AND con.conindid <> 0`;

export async function listReferencedIndexes(db: Rows): Promise<Set<number>> {
  return new Set((await db.rows<{ oid: number }>(referencedIndexesSql)).map((row) => row.oid));
}
