// The parts of an index that the statements reading indexes (indexes.sql.ts, index-details.sql.ts,
// index-health.sql.ts) read the same way, so that they agree on what an index is. Each fragment
// uses the aliases `indexFrom` introduces: i (pg_index), c (the index's pg_class), t (its table),
// n (the table's schema), am (its access method).

/** An index with its table, the table's schema and the index's access method. */
export const indexFrom = `FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
JOIN pg_catalog.pg_am am ON am.oid = c.relam`;

/** The Index fields that are the catalogs' columns as they are (a partitioned index is relkind I). */
export const indexFields = `n.nspname AS schema,
       t.relname AS table,
       c.relname AS name,
       am.amname AS method,
       i.indisunique AS unique,
       i.indisprimary AS primary,
       i.indisexclusion AS exclusion,
       c.relkind = 'I' AS partitioned,
       i.indisvalid AS valid,
       i.indisready AS ready`;

/** The primary key, unique or exclusion constraint the index backs (as `con`), if any. */
export const indexConstraintJoin = `LEFT JOIN pg_catalog.pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u', 'x')`;

/** Its bytes on disk: a partitioned index has no storage of its own, its leaf parts have. */
export const indexBytes = `CASE WHEN c.relkind = 'I'
            THEN (SELECT coalesce(sum(pg_relation_size(pt.relid)), 0) FROM pg_catalog.pg_partition_tree(c.oid) pt WHERE pt.isleaf)
            ELSE pg_relation_size(c.oid)
       END::float8`;

/** The statement that drops it without blocking writes, where PostgreSQL can (not for a partitioned index). */
export const indexDropStatement = `pg_catalog.format(CASE WHEN c.relkind = 'I' THEN 'DROP INDEX %I.%I;' ELSE 'DROP INDEX CONCURRENTLY %I.%I;' END,
                         n.nspname, c.relname)`;
