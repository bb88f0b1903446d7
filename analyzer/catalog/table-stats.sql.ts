import type { TableStats } from '../../shared/analyzer-schema';
import { isoTimestamp, oidIn, userSchema, type Rows } from './filters';

export type TableStatsRow = TableStats & { oid: number; hasStorage: boolean; canSelect: boolean };

/** A row's TableStats: without what only sampling and joining by oid need. */
export function toTableStats(row: TableStatsRow): TableStats {
  const { oid: _oid, hasStorage: _hasStorage, canSelect: _canSelect, ...stats } = row;
  return stats;
}

// Sizes read the relation files' lengths (total = table + indexes, which is what
// pg_total_relation_size adds up, without measuring every file twice) (an ACCESS SHARE lock each; lock_timeout keeps a migration
// holding ACCESS EXCLUSIVE from stalling us). A partitioned table has no storage of its own, so
// hasStorage asks whether any of its partitions holds a page: sample rows are fetched only then.
// The statistics columns come from pg_stat_all_tables for the whole database. A chunk calls the
// functions that view calls, for its own tables only: joined to a chunk, the view (an aggregate over
// every table and index) would be computed whole for each chunk.
const fromView = {
  liveTuples: 's.n_live_tup',
  deadTuples: 's.n_dead_tup',
  seqScans: 's.seq_scan',
  indexScans: 's.idx_scan',
  lastVacuum: 's.last_vacuum',
  lastAutovacuum: 's.last_autovacuum',
  lastAnalyze: 's.last_analyze',
  lastAutoanalyze: 's.last_autoanalyze',
  join: 'LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid',
};
const fromFunctions = {
  liveTuples: 'pg_catalog.pg_stat_get_live_tuples(c.oid)',
  deadTuples: 'pg_catalog.pg_stat_get_dead_tuples(c.oid)',
  seqScans: 'pg_catalog.pg_stat_get_numscans(c.oid)',
  indexScans: '(SELECT sum(pg_catalog.pg_stat_get_numscans(i.indexrelid)) FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid)',
  lastVacuum: 'pg_catalog.pg_stat_get_last_vacuum_time(c.oid)',
  lastAutovacuum: 'pg_catalog.pg_stat_get_last_autovacuum_time(c.oid)',
  lastAnalyze: 'pg_catalog.pg_stat_get_last_analyze_time(c.oid)',
  lastAutoanalyze: 'pg_catalog.pg_stat_get_last_autoanalyze_time(c.oid)',
  join: '',
};

const tableStatsSql = (scope: string, stats: typeof fromView) => `
SELECT c.oid,
       CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::float8 END AS "rowEstimate",
       c.relpages::float8 AS pages,
       size.table_bytes::float8 AS "tableBytes",
       size.indexes_bytes::float8 AS "indexesBytes",
       (size.table_bytes + size.indexes_bytes)::float8 AS "totalBytes",
       ${stats.liveTuples}::float8 AS "liveTuples",
       ${stats.deadTuples}::float8 AS "deadTuples",
       ${stats.seqScans}::float8 AS "seqScans",
       ${stats.indexScans}::float8 AS "indexScans",
       ${isoTimestamp(stats.lastVacuum)} AS "lastVacuum",
       ${isoTimestamp(stats.lastAutovacuum)} AS "lastAutovacuum",
       ${isoTimestamp(stats.lastAnalyze)} AS "lastAnalyze",
       ${isoTimestamp(stats.lastAutoanalyze)} AS "lastAutoanalyze",
       CASE WHEN c.relkind = 'p'
            THEN EXISTS (SELECT 1 FROM pg_catalog.pg_partition_tree(c.oid) pt WHERE pt.isleaf AND pg_relation_size(pt.relid) > 0)
            ELSE pg_relation_size(c.oid) > 0 END AS "hasStorage",
       has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT') AS "canSelect"
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
${stats.join}
CROSS JOIN LATERAL (SELECT pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS indexes_bytes OFFSET 0) size
WHERE c.relkind IN ('r', 'p', 'm') AND ${scope}`;

export function listTableStats(db: Rows) {
  return db.rows<TableStatsRow>(tableStatsSql(userSchema('n'), fromView));
}

/** Statistics and sizes of the tables among `relations` (oids). */
export function tableStatsOf(db: Rows, relations: number[]) {
  return db.rows<TableStatsRow>(tableStatsSql(oidIn('c.oid', '$1'), fromFunctions), [relations]);
}
