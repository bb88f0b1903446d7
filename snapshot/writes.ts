// How often production writes each table: what a new index would cost it. pg_stat_user_tables'
// counters since the database's statistics were last reset (else since the server started), summed
// over a partitioned table's partitions, turned into rates per second. Read in the snapshot's
// read-only transaction like the rest (read.ts).
import { oidFilter } from './schema.js';
import type { SystemCatalogQuery, ReadFilter, SnapshotTableWrites } from './types.js';

export async function readTableWrites(q: SystemCatalogQuery, filter?: ReadFilter): Promise<SnapshotTableWrites[]> {
  const params: unknown[] = [];
  const only = oidFilter('c.oid', filter?.relations, params);
  const rows = await q(
    `WITH since AS (
      SELECT coalesce(d.stats_reset, pg_catalog.pg_postmaster_start_time()) AS at
      FROM pg_catalog.pg_stat_database d WHERE d.datname = pg_catalog.current_database())
    SELECT n.nspname AS schema, c.relname AS table, sum(s.n_tup_ins)::float8 AS inserted, sum(s.n_tup_upd)::float8 AS updated,
           sum(s.n_tup_hot_upd)::float8 AS hot, sum(s.n_tup_del)::float8 AS deleted,
           pg_catalog.date_part('epoch', pg_catalog.now() OPERATOR(pg_catalog.-) (SELECT at FROM since))::float8 AS seconds,
           pg_catalog.to_char((SELECT at FROM since) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
    FROM pg_catalog.pg_stat_user_tables s
    JOIN pg_catalog.pg_class c ON c.oid = coalesce(pg_catalog.pg_partition_root(s.relid), s.relid)
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE true${only}
    GROUP BY 1, 2 ORDER BY 1, 2`,
    params,
  );
  return rows.map((r) => ({
    schema: String(r.schema),
    table: String(r.table),
    inserted: Number(r.inserted),
    updated: Number(r.updated),
    hotUpdated: Number(r.hot),
    deleted: Number(r.deleted),
    seconds: Math.max(Number(r.seconds), 1),
    since: String(r.since),
  }));
}
