import type { TableStats } from '../../shared/analyzer-schema';
import type { Gateway } from '../../gateway/index';
import { isoTimestamp, userSchema } from './filters';

export type TableStatsRow = TableStats & { oid: number; hasStorage: boolean; canSelect: boolean };

// Sizes read the relation files' lengths (total = table + indexes, which is what
// pg_total_relation_size adds up, without measuring every file twice) (an ACCESS SHARE lock each; lock_timeout keeps a migration
// holding ACCESS EXCLUSIVE from stalling us). A partitioned table has no storage of its own, so
// hasStorage asks whether any of its partitions holds a page: sample rows are fetched only then.
const tableStatsSql = `
SELECT c.oid,
       CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::float8 END AS "rowEstimate",
       c.relpages::float8 AS pages,
       size.table_bytes::float8 AS "tableBytes",
       size.indexes_bytes::float8 AS "indexesBytes",
       (size.table_bytes + size.indexes_bytes)::float8 AS "totalBytes",
       s.n_live_tup::float8 AS "liveTuples",
       s.n_dead_tup::float8 AS "deadTuples",
       s.seq_scan::float8 AS "seqScans",
       s.idx_scan::float8 AS "indexScans",
       ${isoTimestamp('s.last_vacuum')} AS "lastVacuum",
       ${isoTimestamp('s.last_autovacuum')} AS "lastAutovacuum",
       ${isoTimestamp('s.last_analyze')} AS "lastAnalyze",
       ${isoTimestamp('s.last_autoanalyze')} AS "lastAutoanalyze",
       CASE WHEN c.relkind = 'p'
            THEN EXISTS (SELECT 1 FROM pg_catalog.pg_partition_tree(c.oid) pt WHERE pt.isleaf AND pg_relation_size(pt.relid) > 0)
            ELSE pg_relation_size(c.oid) > 0 END AS "hasStorage",
       has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT') AS "canSelect"
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid
CROSS JOIN LATERAL (SELECT pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS indexes_bytes OFFSET 0) size
WHERE c.relkind IN ('r', 'p', 'm') AND ${userSchema('n')}`;

export function listTableStats(db: Gateway) {
  return db.rows<TableStatsRow>(tableStatsSql);
}
