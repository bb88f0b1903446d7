// Candidate indexes built in the shadow: created while the tables are still physically empty
// (building one on an extended table reads every zero page), hidden (indisvalid = false) until an
// EXPLAIN asks for them, and given the size they would have in production so the planner charges
// a scan of one what it would cost there.
import { candidateTarget, isCovered, type IndexCandidate } from './candidates.js';
import { explain } from '../shadow/explain.js';
import { relationPath, type ExtendJob } from '../shadow/relation-files.js';
import { restoreRelationsStats } from '../shadow/statistics.js';
import { SET_INDEXES_VALID } from '../shadow/access.js';
import type { ShadowSession } from '../shadow/session.js';
import { sizeInputs } from './size-inputs.js';
import { estimateBtreeHeight, estimateIndexSize } from './sizing.js';
import type { SnapshotIndex, Snapshot } from '../snapshot/types.js';
import { escapeIdentifier, quoteIdent } from './sql-text.js';

/** The shadow's scratch names for candidates; plans shown to people name the index instead (recommend.ts). */
const CANDIDATE_NAME_PREFIX = 'qt_candidate_';

export interface LiveCandidate extends IndexCandidate {
  /** The index and, on a partitioned table, its partition parts. */
  oids: number[];
  names: Set<string>;
  pages: number;
  /** B-tree height each part would have in production, by index name. */
  heights: Map<string, number>;
  /** Why `pages` is an upper bound rather than an estimate (sizing.ts); absent when the statistics pin it down. */
  sizeUncertain?: string;
  /**
   * A partial candidate whose fixed value has under half the rows a value of that column has on
   * average (`status = 'refunded'`): a value the application singles out, which a partial index
   * serves best. Not set for one value among peers (`user_id = 1` of ten users).
   */
  rareValue?: boolean;
  /** A production index's uniqueness and definition (a CI run's schema adds it): its size depends on them. */
  unique?: boolean;
  definition?: string;
}

/** A candidate built but not yet looked at: its scratch name. */
interface Built {
  key: string;
  candidate: IndexCandidate;
  name: string;
}

/**
 * Builds each candidate, named from the `first`-th on, on the still-empty tables, then hides them
 * all (indisvalid = false). Null for one PostgreSQL cannot build, or that an index production has
 * covers. One CREATE INDEX each, then one statement for all: a kept shadow database holds
 * thousands of indexes, and every extra round trip per candidate is paid again in each CI run.
 */
export async function createCandidates(
  session: ShadowSession,
  unique: ReadonlyMap<string, IndexCandidate>,
  first: number,
  snapshot: Snapshot,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<Map<string, LiveCandidate | null>> {
  const result = new Map<string, LiveCandidate | null>();
  const built: Built[] = [];
  let n = 0;
  for (const [key, candidate] of unique) {
    onProgress(n, unique.size);
    const name = `${CANDIDATE_NAME_PREFIX}${first + n++}`;
    result.set(key, null);
    try {
      await session.query(`CREATE INDEX ${quoteIdent(name)} ON ${candidateTarget(candidate)}`);
      built.push({ key, candidate, name });
    } catch {
      // e.g. a type without a default operator class for the method
    }
  }
  const trees = await indexTrees(
    session,
    built.map((b) => [b.candidate.schema, b.name]),
  );
  const hidden: number[] = [];
  const covered: string[] = [];
  for (const b of built) {
    const tree = trees.get(`${b.candidate.schema}.${b.name}`) ?? [];
    if (!tree.length) continue;
    // On a partitioned table CREATE INDEX attaches a partition's matching index instead of
    // building one; those existed before (lower oids) and must stay visible and keep their size.
    const own = tree.filter((r) => r.oid >= tree[0]!.oid);
    // The predicate as pg_get_expr prints it, the form production's indexes were read in.
    const normalized = { ...b.candidate, predicate: tree[0]!.predicate };
    const existing = snapshot.indexes.filter((i) => i.schema === b.candidate.schema && i.table === b.candidate.table);
    if (existing.some((e) => isCovered(normalized, e))) {
      covered.push(`${quoteIdent(b.candidate.schema)}.${quoteIdent(b.name)}`);
      continue;
    }
    hidden.push(...own.map((r) => r.oid));
    result.set(b.key, { ...b.candidate, oids: own.map((r) => r.oid), names: new Set(own.map((r) => r.name)), pages: 0, heights: new Map() });
  }
  if (covered.length) await session.query(`DROP INDEX ${covered.join(', ')}`);
  if (hidden.length) await session.query(`SELECT ${SET_INDEXES_VALID}($1::oid[], false)`, [hidden]);
  return result;
}

interface TreeRow {
  oid: number;
  name: string;
  predicate: string | null;
}

/**
 * Each index and its partition parts, the index first, by `schema.name` of the index (unquoted),
 * with the index's predicate as pg_get_expr prints it. An index that does not exist has no entry.
 */
async function indexTrees(session: ShadowSession, indexes: [schema: string, name: string][]): Promise<Map<string, TreeRow[]>> {
  const trees = new Map<string, TreeRow[]>();
  if (!indexes.length) return trees;
  const rows = await session.query<TreeRow & { key: string }>(
    // pg_partition_tree is empty for an index outside any partition tree, hence the UNION.
    `SELECT u.key, c.oid::int AS oid, c.relname AS name, pg_catalog.pg_get_expr(i.indpred, i.indrelid) AS predicate
     FROM (SELECT k AS key, pg_catalog.to_regclass(q) AS root FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) AS a(k, q)) u
     CROSS JOIN LATERAL (SELECT u.root AS relid UNION SELECT t.relid FROM pg_catalog.pg_partition_tree(u.root) t) part
     JOIN pg_catalog.pg_class c ON c.oid = part.relid
     JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     WHERE u.root IS NOT NULL
     ORDER BY u.key, c.oid = u.root DESC, c.oid`,
    [indexes.map(([schema, name]) => `${schema}.${name}`), indexes.map(([schema, name]) => `${escapeIdentifier(schema)}.${escapeIdentifier(name)}`)],
  );
  for (const r of rows.rows) {
    const tree = trees.get(r.key) ?? [];
    tree.push({ oid: r.oid, name: r.name, predicate: r.predicate });
    trees.set(r.key, tree);
  }
  return trees;
}

/**
 * An index a CI run's schema adds (built with the schema, valid in every plan) in the shape
 * sizeCandidate takes, so it is sized as a candidate would be. Undefined when the shadow could not
 * build it, or for BRIN, whose real size is the few pages its build wrote. Other methods than GIN
 * are sized as a B-tree of the same columns; an expression key as an 8-byte column.
 */
export async function liveRunIndex(session: ShadowSession, index: SnapshotIndex): Promise<LiveCandidate | undefined> {
  if (index.am === 'brin') return undefined;
  const tree = (await indexTrees(session, [[index.schema, index.name]])).get(`${index.schema}.${index.name}`) ?? [];
  if (!tree.length) return undefined;
  return {
    schema: index.schema,
    table: index.table,
    am: index.am === 'gin' ? 'gin' : 'btree',
    keys: index.keys.map((k) => k ?? ''),
    include: index.include,
    predicate: index.predicate,
    unique: index.unique,
    definition: index.definition,
    oids: tree.map((r) => r.oid),
    names: new Set(tree.map((r) => r.name)),
    pages: 0,
    heights: new Map(),
  };
}

/**
 * Gives each part of every candidate the size and row count it would have in production (pages,
 * heights); returns the files to extend to that size (extended together, see extendFiles). The
 * parts are read, and their sizes restored, in one statement each for all candidates.
 */
export async function sizeCandidates(session: ShadowSession, candidates: LiveCandidate[], snapshot: Snapshot): Promise<ExtendJob[]> {
  if (!candidates.length) return [];
  const parts = await session.query<{ index: number; name: string; schema: string; table: string; kind: string; path: string | null }>(
    `SELECT i.indexrelid::int AS index, i.indexrelid::pg_catalog.regclass::text AS name, n.nspname AS schema, t.relname AS table, t.relkind AS kind,
            pg_catalog.pg_relation_filepath(i.indexrelid) AS path
     FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class t ON t.oid = i.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
     WHERE i.indexrelid = ANY($1::oid[])`,
    [candidates.flatMap((c) => c.oids)],
  );
  const byOid = new Map(parts.rows.map((p) => [p.index, p]));
  const shapeOf = sizeInputs(snapshot);
  const files: ExtendJob[] = [];
  const restores: { oid: number; pages: number; tuples: number }[] = [];
  for (const c of candidates) {
    let total = 0;
    const uncertain = new Set<string>();
    for (const oid of c.oids) {
      const part = byOid.get(oid);
      if (!part || part.kind === 'p') continue; // the partitioned index itself has no storage
      const rel = snapshot.relations.find((r) => r.schema === part.schema && r.name === part.table);
      let tuples = Math.max(rel?.reltuples ?? 0, 0);
      if (c.predicate) {
        // The planner's own estimate of the rows the predicate keeps, from the restored statistics.
        const plan = await explain(session, `SELECT 1 FROM ONLY ${quoteIdent(part.schema)}.${quoteIdent(part.table)} WHERE ${c.predicate}`);
        tuples = Math.min(tuples, plan['Plan Rows']);
      }
      const shape = shapeOf({ ...c, schema: part.schema, table: part.table }, tuples);
      const { pages, why } = estimateIndexSize(shape);
      total += pages;
      if (why) uncertain.add(why);
      if (c.fixes?.length && rel && rel.reltuples > 0) {
        // The share of rows the fixed value has against the share a value of these columns has on average.
        const typical = c.fixes.reduce((p, f) => p / Math.max(shape.stat(f).distinct, 1), 1);
        if (tuples / rel.reltuples < typical / 2) c.rareValue = true;
      }
      if (c.am === 'btree')
        c.heights.set(part.name.replace(/^.*\./, '').replace(/^"(.*)"$/, '$1'), estimateBtreeHeight(pages, shape.stat(c.keys[0]!).avgWidth));
      restores.push({ oid, pages, tuples });
      const file = relationPath(part.path);
      if (file) files.push({ file, blocks: pages });
    }
    c.pages = total;
    if (uncertain.size) c.sizeUncertain = [...uncertain].join('; ');
  }
  await restoreRelationsStats(
    session,
    restores.map((r) => ({ oid: r.oid, relpages: r.pages, reltuples: r.tuples, relallvisible: 0 })),
  );
  return files;
}
