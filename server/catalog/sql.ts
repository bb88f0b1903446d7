// Small helpers for the catalog's hand-written SQL, which runs unchanged on PGlite and PostgreSQL.
import type { SQLWrapper } from 'drizzle-orm';
import type { Db } from '../db/store';
import { databaseErrorOf } from '../../shared/database-error';

type Executor = Pick<Db, 'execute'>;

/** Runs one statement and returns its rows; node-postgres and PGlite both answer with `rows`. */
export async function rowsOf<T extends Record<string, unknown>>(db: Executor, query: SQLWrapper): Promise<T[]> {
  const result = (await db.execute<T>(query)) as unknown as { rows: T[] };
  return result.rows;
}

// deadlock_detected and serialization_failure: the transaction did nothing and may simply run again.
// foreign_key_violation: the environment was deleted while we wrote; running a CI run's transaction
// again reads its repo link afresh and stores the run untagged (any other write fails again and
// answers 404, see upsert.ts).
const RETRYABLE = new Set(['40P01', '40001', '23503']);

/** Runs a transaction, again (a few times) when PostgreSQL aborted it for a reason that goes away. */
export async function withRetry<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const state = databaseErrorOf(error)?.code;
      if (attempt >= attempts || !state || !RETRYABLE.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
