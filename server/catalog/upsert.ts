// The one write path into an environment's catalog. A CI run, production's pg_stat_statements and
// a query added by hand all upsert their rows here; what each source changes is decided below.
//
// Every source: query and formattedQuery take the newest text; lastSeenAt moves forward, never
// back (concurrent writers may commit in any order); lastSeenSource names the source; firstSeenAt
// and createdAt are set once; updatedAt is the write's time. Then, per source (SOURCE_RULES in upsert.sql.ts):
//   ci          ciRunCount + 1, under the row lock, so concurrent runs never lose a count;
//   production  productionCalls and productionMeanTimeMs replaced by the latest reading
//               (pg_stat_statements counts are totals since its last reset, not increments);
//   manual      nothing more.
//
// One statement per write, whatever the number of rows (upsert.sql.ts).
import type { Db } from '../db/store';
import { isForeignKeyViolation, notFound } from '../errors';
import type { CatalogWrite } from './catalog-write';
import { rowsOf, withRetry } from './sql';
import { upsertStatement } from './upsert.sql';

/**
 * Upserts the rows into the environment's catalog by the rules of their source, in one statement;
 * returns how many were new. The caller decides about transactions and retries (see sql.ts).
 */
export async function upsertCatalog(db: Pick<Db, 'execute'>, write: CatalogWrite): Promise<number> {
  if (write.rows.length === 0 && !write.alongside) return 0;
  const [counted] = await rowsOf<{ new_query_count: number }>(db, upsertStatement(write));
  return counted?.new_query_count ?? 0;
}

/**
 * A write that is a request of its own (a production sync, a query added by hand), not part of a
 * CI run's transaction: run again when PostgreSQL aborted it for a reason that goes away, and 404
 * when the environment was deleted while it ran.
 */
export async function upsertOnItsOwn(db: Db, write: CatalogWrite): Promise<number> {
  try {
    return await withRetry(() => upsertCatalog(db, write));
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound(`Environment ${write.environmentId}`);
    throw error;
  }
}
