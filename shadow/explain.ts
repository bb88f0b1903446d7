// EXPLAIN in a shadow database with exactly the chosen candidate indexes valid. Candidate indexes
// are built while the tables are still physically empty (building one on an extended table reads
// every zero page: 0.3 s per 160 MB measured) and then marked invalid. An EXPLAIN that tries some
// of them flips indisvalid in a transaction that is always rolled back, so every plan sees exactly
// the indexes it asks for and nothing else.
import type { PlanNode } from '../shared/plan.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { SET_INDEXES_VALID } from './access.js';
import type { ShadowSession } from './session.js';

/**
 * EXPLAIN (GENERIC_PLAN) with exactly the given candidate indexes valid. Always rolled back, so
 * the flipped flags never outlive the statement; the flip goes through the superuser's function
 * (access.ts), the EXPLAIN through ShadowSession.explain (one statement, refused otherwise).
 */
export async function explain(session: ShadowSession, sql: string, validIndexOids: number[] = []): Promise<PlanNode> {
  await loadParser(); // the statement gate parses with libpg_query
  // Nothing to flip and nothing to probe: one round trip, in its own implicit transaction.
  if (!validIndexOids.length && session.knows(sql)) return session.explain(sql);
  if (!validIndexOids.every((oid) => Number.isSafeInteger(oid) && oid > 0)) throw new Error(`not index oids: ${validIndexOids.join(', ')}`);
  // indcheckxmin false: the updated pg_index row is new, and a set flag would hide the index.
  // Oids are integers read from the shadow's system catalogs, so the statement is ours alone.
  if (validIndexOids.length) await session.beginWith(`SELECT ${SET_INDEXES_VALID}('{${validIndexOids.join(',')}}'::pg_catalog.oid[], true)`);
  else await session.query('BEGIN');
  try {
    return await session.explain(sql);
  } finally {
    await session.query('ROLLBACK');
  }
}
