// Production's statistics restored in a shadow database: pg_class sizes (pg_restore_relation_stats)
// and pg_stats per column (pg_restore_attribute_stats), for the relations the shadow has.
import type { Snapshot } from '../snapshot/types.js';
import { oidOf, oidsOf } from './oids.js';
import type { ShadowSession } from './session.js';
import type { ShadowDatabase } from './types.js';

interface RelationSize {
  relpages: number;
  reltuples: number;
  relallvisible: number;
}

/** pg_restore_relation_stats for one relation of the shadow (by oid). */
export async function restoreRelationStats(session: ShadowSession, oid: number, stats: RelationSize): Promise<void> {
  await restoreRelationsStats(session, [{ oid, ...stats }]);
}

/**
 * Relations restored per statement. Each restore locks its relation until the statement's
 * transaction ends, and the server's lock table holds a few thousand locks in all (64 per
 * connection): a workload with thousands of candidate indexes would run out of shared memory in
 * one statement.
 */
export const RESTORE_BATCH = 500;

/** pg_restore_relation_stats for many relations of the shadow (by oid), RESTORE_BATCH to a statement. */
export async function restoreRelationsStats(session: ShadowSession, relations: (RelationSize & { oid: number })[]): Promise<void> {
  for (let i = 0; i < relations.length; i += RESTORE_BATCH) await restoreBatch(session, relations.slice(i, i + RESTORE_BATCH));
}

async function restoreBatch(session: ShadowSession, relations: (RelationSize & { oid: number })[]): Promise<void> {
  await session.query(
    `SELECT pg_catalog.pg_restore_relation_stats('schemaname', n.nspname::text, 'relname', c.relname::text, 'relpages', u.relpages, 'reltuples', u.reltuples, 'relallvisible', u.relallvisible)
     FROM ROWS FROM (pg_catalog.unnest($1::oid[]), pg_catalog.unnest($2::int[]), pg_catalog.unnest($3::real[]), pg_catalog.unnest($4::int[])) AS u(oid, relpages, reltuples, relallvisible)
     JOIN pg_catalog.pg_class c ON c.oid = u.oid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
    [
      relations.map((r) => r.oid),
      relations.map((r) => Math.round(r.relpages)),
      relations.map((r) => r.reltuples),
      relations.map((r) => Math.round(r.relallvisible)),
    ],
  );
}

const ATTRIBUTE_TYPES: Record<string, string> = {
  null_frac: 'real',
  avg_width: 'integer',
  n_distinct: 'real',
  most_common_vals: 'text',
  most_common_freqs: 'real[]',
  histogram_bounds: 'text',
  correlation: 'real',
  most_common_elems: 'text',
  most_common_elem_freqs: 'real[]',
  elem_count_histogram: 'real[]',
  range_length_histogram: 'text',
  range_empty_frac: 'real',
  range_bounds_histogram: 'text',
};

/** Restores pg_class sizes and pg_stats of every relation production has and the shadow knows. */
export async function restoreStatistics(db: ShadowDatabase, snapshot: Snapshot): Promise<{ warnings: string[] }> {
  const { session } = db;
  const warnings: string[] = [];
  for (const r of snapshot.relations) {
    const oid = await oidOf(session, r.schema, r.name);
    if (oid === undefined) continue;
    await restoreRelationStats(session, oid, r).catch((e: Error) => warnings.push(`${r.schema}.${r.name}: ${e.message}`));
  }
  for (const s of snapshot.stats) {
    const args: unknown[] = [s.schema, s.table, s.column, s.inherited];
    const parts: string[] = [];
    for (const [field, value] of Object.entries(s.values)) {
      if (value === null || !ATTRIBUTE_TYPES[field]) continue;
      args.push(value);
      parts.push(`'${field}', $${args.length}::${ATTRIBUTE_TYPES[field]}`);
    }
    // By column name, for an expression index too: pg_stats lists its statistics under the index's
    // name, and the index rebuilt from the same definition names its expression columns alike.
    await session
      .query(
        `SELECT pg_catalog.pg_restore_attribute_stats('schemaname', $1::text, 'relname', $2::text, 'attname', $3::text, 'inherited', $4::boolean${parts.length ? ', ' + parts.join(', ') : ''})`,
        args,
      )
      .catch((e: Error) => warnings.push(`${s.schema}.${s.table}.${s.column}: ${e.message}`));
  }
  return { warnings };
}

/** Restores pg_class sizes only: what building an index overwrites of its table (index_update_stats). */
export async function restoreRelationSizes(db: ShadowDatabase, snapshot: Snapshot): Promise<void> {
  const oids = await oidsOf(db.session, snapshot.relations);
  const known = snapshot.relations.flatMap((r, i) => (oids[i] === undefined ? [] : [{ ...r, oid: oids[i]! }]));
  // A relation that failed here was reported when the database was built; the others still get theirs.
  await restoreRelationsStats(db.session, known).catch(async () => {
    for (const r of known) await restoreRelationStats(db.session, r.oid, r).catch(() => undefined);
  });
}
