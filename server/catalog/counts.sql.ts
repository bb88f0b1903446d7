// The statements over catalog_counts, the per-environment change rows that the triggers on
// catalog_queries append (counts.ts says how they are read and folded).
import { sql, type SQL } from 'drizzle-orm';

/** One row: the sum of the environment's change rows (of one source, or all) and how many rows it summed. */
export function countsTotal(environmentId: string, source?: string): SQL {
  return sql`
    SELECT coalesce(sum(n), 0)::int AS total, count(*)::int AS rows
    FROM catalog_counts
    WHERE environment_id = ${environmentId} ${source ? sql`AND source = ${source}` : sql``}`;
}

/**
 * Replaces the environment's change rows by their sums, in one statement. Safe beside writers (their
 * new rows are not in this statement's snapshot, so they stay) and beside another fold (the rows it
 * deleted first are skipped here, and its sums are not visible to this statement).
 */
export function foldCountsStatement(environmentId: string): SQL {
  return sql`
    WITH gone AS (DELETE FROM catalog_counts WHERE environment_id = ${environmentId} RETURNING source, n)
    INSERT INTO catalog_counts (environment_id, source, n)
    SELECT ${environmentId}, source, sum(n) FROM gone GROUP BY source HAVING sum(n) <> 0`;
}
