import { escapeIdentifier, type Gateway } from '../../gateway/index';

export interface StatementsInfo {
  /** Entries pg_stat_statements evicted to make room since its last full reset. */
  dealloc: number;
  /** When every entry was last reset (pg_stat_statements_reset() with no arguments). */
  statsReset: string;
}

/** pg_stat_statements_info (extension 1.9, PostgreSQL 14+); null when the view is not there. */
export async function readStatementsInfo(db: Gateway): Promise<StatementsInfo | null> {
  const [extension] = await db.rows<{ schema: string; hasInfo: boolean }>(`
SELECT n.nspname AS schema,
       EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relname = 'pg_stat_statements_info') AS "hasInfo"
FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'pg_stat_statements'`);
  if (!extension?.hasInfo) return null;
  const [row] = await db.rows<StatementsInfo>(
    `SELECT dealloc::float8 AS dealloc, stats_reset::text AS "statsReset" FROM ${escapeIdentifier(extension.schema)}.pg_stat_statements_info`,
  );
  return row ?? null;
}
