// "What if this index were dropped", answered in the shadow only; production is never touched.
// Two ways, for two questions:
// - a what-if analysis (the API's hiddenIndexes): the indexes are taken out of the snapshot before
//   the shadow is built (withoutIndexes), as a CI run's schema drops one (run-schema.ts): the shadow
//   never has them, so every query is planned, and candidates are chosen, as after a real DROP INDEX.
// - a what-if drop of one index, whose outcome is its drop effect on the queries that use it
//   (planWhatIfDrops): in a shadow already built, each query is planned with the index and then
//   with it marked invalid inside a transaction that is rolled back (the planner skips an index
//   with indisvalid false, as it skips candidates). One shadow serves every index tried, so an
//   analysis can try each index index health lists.
import { loadParser } from '../shared/sql-fingerprint.js';
import type { PlanNode } from '../shared/plan.js';
import { dropIndex } from './run-schema.js';
import { SET_INDEXES_VALID } from '../shadow/access.js';
import type { ShadowSession } from '../shadow/session.js';
import type { SnapshotIndex, Snapshot } from '../snapshot/types.js';
import { escapeIdentifier } from './sql-text.js';
import type { QueryInput } from './recommend.js';

export interface ResolvedIndexes {
  /** The indexes named, each once. */
  indexes: SnapshotIndex[];
  /** Names that are no index of the snapshot (or not one that can be dropped alone), with why. */
  problems: { position: number; name: string; message: string }[];
}

/** "schema.name", or a name alone; either part may be double-quoted as SQL writes it. */
function parseName(text: string): { schema?: string; name: string }[] {
  const readings: { schema?: string; name: string }[] = [];
  const part = '"((?:[^"]|"")+)"|([^."]+)';
  const qualified = new RegExp(`^(?:${part})\\.(?:${part})$`).exec(text);
  const unquote = (quoted: string | undefined, plain: string | undefined) => (quoted !== undefined ? quoted.replace(/""/g, '"') : plain!);
  if (qualified) readings.push({ schema: unquote(qualified[1], qualified[2]), name: unquote(qualified[3], qualified[4]) });
  const single = new RegExp(`^(?:${part})$`).exec(text);
  if (single) readings.push({ name: unquote(single[1], single[2]) });
  // A name that itself holds a dot, unquoted.
  readings.push({ name: text });
  return readings;
}

/**
 * Resolves names as the plans' own index names are resolved (plan-objects.ts): schema-qualified
 * exactly; a name alone is the index of that name, the first schema of the search_path when
 * several schemas have one.
 */
export function resolveIndexNames(snapshot: Snapshot, names: readonly string[]): ResolvedIndexes {
  const path = snapshot.searchPath
    .split(',')
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
    .filter((s) => s && s !== '$user');
  const found = new Map<string, SnapshotIndex>();
  const problems: ResolvedIndexes['problems'] = [];
  names.forEach((text, position) => {
    let match: SnapshotIndex | undefined;
    let ambiguous: string[] = [];
    for (const reading of parseName(text)) {
      const same = snapshot.indexes.filter((i) => i.name === reading.name && (reading.schema === undefined || i.schema === reading.schema));
      if (same.length === 1) match = same[0];
      else if (same.length > 1) {
        match = path.map((s) => same.find((i) => i.schema === s)).find((i) => i !== undefined);
        if (!match) ambiguous = same.map((i) => `${i.schema}.${i.name}`);
      }
      if (match) break;
    }
    if (!match) {
      const message = ambiguous.length
        ? `Index "${text}" is in several schemas (${ambiguous.join(', ')}); name it with its schema.`
        : `No index "${text}" in the database.`;
      problems.push({ position, name: text, message });
      return;
    }
    if (match.parent) {
      problems.push({
        position,
        name: text,
        message: `Index "${text}" is a partition's part of ${match.schema}.${match.parent}; hide ${match.schema}.${match.parent} instead.`,
      });
      return;
    }
    found.set(`${match.schema}.${match.name}`, match);
  });
  return { indexes: [...found.values()], problems };
}

/** The snapshot without these indexes (and their partitions' parts, and a constraint one backs). */
export function withoutIndexes(snapshot: Snapshot, indexes: readonly SnapshotIndex[]): Snapshot {
  const out: Snapshot = {
    ...snapshot,
    ddl: [...snapshot.ddl],
    relations: [...snapshot.relations],
    indexes: [...snapshot.indexes],
    runIndexes: (snapshot.runIndexes ?? []).filter((r) => !indexes.some((i) => i.schema === r.schema && i.name === r.name)),
  };
  for (const index of indexes) dropIndex(out, index);
  return out;
}

/** An index to try dropping, and the queries whose plans read it. */
export interface WhatIfDrop {
  schema: string;
  name: string;
  queries: QueryInput[];
}

export interface WhatIfDropResult {
  schema: string;
  name: string;
  /** Per query planned: its cost with the index and without it. */
  queries: { hash: string; costBefore: number; costAfter: number }[];
  /** Why the index could not be tried at all. */
  error: string | null;
}

/** Plans each what-if drop's queries with and without its index in a built shadow (see the top of this file). */
export async function planWhatIfDrops(session: ShadowSession, drops: readonly WhatIfDrop[], costOf: (plan: PlanNode) => number): Promise<WhatIfDropResult[]> {
  await loadParser(); // the statement gate parses with libpg_query
  const results: WhatIfDropResult[] = [];
  for (const drop of drops) {
    const oids = await indexTreeOids(session, drop.schema, drop.name);
    if (oids.length === 0) {
      results.push({
        schema: drop.schema,
        name: drop.name,
        queries: [],
        error: 'Not in the shadow: the production snapshot the analysis planned on does not have it.',
      });
      continue;
    }
    const queries: WhatIfDropResult['queries'] = [];
    for (const q of drop.queries) {
      try {
        const before = costOf(await explainWithout(session, q.query, []));
        const after = costOf(await explainWithout(session, q.query, oids));
        queries.push({ hash: q.hash, costBefore: before, costAfter: after });
      } catch {
        // A query that does not plan in the shadow planned with no cost either: nothing to compare.
      }
    }
    results.push({ schema: drop.schema, name: drop.name, queries, error: null });
  }
  return results;
}

/** EXPLAIN with these indexes marked invalid, rolled back. */
async function explainWithout(session: ShadowSession, sql: string, indexOids: number[]): Promise<PlanNode> {
  await session.query('BEGIN');
  try {
    if (indexOids.length) await session.query(`SELECT ${SET_INDEXES_VALID}($1::oid[], false)`, [indexOids]);
    return await session.explain(sql);
  } finally {
    await session.query('ROLLBACK');
  }
}

/** The index and, for a partitioned one, its partitions' parts (pg_partition_tree is empty for an index outside any tree). */
async function indexTreeOids(session: ShadowSession, schema: string, name: string): Promise<number[]> {
  const tree = await session.query<{ oid: number }>(
    `SELECT c.oid::int AS oid FROM pg_catalog.pg_class c
     WHERE c.relkind IN ('i', 'I')
       AND (c.oid = pg_catalog.to_regclass($1) OR c.oid IN (SELECT relid FROM pg_catalog.pg_partition_tree(pg_catalog.to_regclass($1))))`,
    [`${escapeIdentifier(schema)}.${escapeIdentifier(name)}`],
  );
  return tree.rows.map((r) => r.oid);
}
