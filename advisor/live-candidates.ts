// Candidate indexes built in the shadow: created while the tables are still physically empty
// (building one on an extended table reads every zero page), hidden (indisvalid = false) until an
// EXPLAIN asks for them, and given the size they would have in production so the planner charges
// a scan of one what it would cost there.
import { candidateTarget, isCovered, type IndexCandidate } from './candidates.js';
import { columnSize } from './catalog.js';
import { explain, relationFile, restoreRelationStats, type ExtendJob } from './shadow.js';
import { SET_INDEXES_VALID } from './shadow-access.js';
import type { ShadowSession } from './shadow-session.js';
import { estimateBtreeHeight, estimateIndexPages } from './sizing.js';
import type { SourceIndex, SourceSnapshot } from './source.js';
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
}

/**
 * Builds the n-th candidate on the still-empty table, then hides it (indisvalid = false).
 * Undefined when PostgreSQL cannot build it, or when an index the source has covers it.
 */
export async function createCandidate(session: ShadowSession, c: IndexCandidate, n: number, snapshot: SourceSnapshot): Promise<LiveCandidate | undefined> {
  const name = `${CANDIDATE_NAME_PREFIX}${n}`;
  try {
    await session.query(`CREATE INDEX ${quoteIdent(name)} ON ${candidateTarget(c)}`);
  } catch {
    return undefined; // e.g. a type without a default operator class for the method
  }
  const tree = await indexTree(session, c.schema, name);
  // On a partitioned table CREATE INDEX attaches a partition's matching index instead of
  // building one; those existed before (lower oids) and must stay visible and keep their size.
  const own = tree.filter((r) => r.oid >= tree[0]!.oid);
  const oids = own.map((r) => r.oid);
  // The predicate as pg_get_expr prints it, the form the source's indexes were read in.
  const pred = await session.query<{ pred: string | null }>(`SELECT pg_catalog.pg_get_expr(indpred, indrelid) AS pred FROM pg_catalog.pg_index WHERE indexrelid = $1`, [oids[0]]);
  const normalized = { ...c, predicate: pred.rows[0]?.pred ?? null };
  const existing = snapshot.indexes.filter((i) => i.schema === c.schema && i.table === c.table);
  if (existing.some((e) => isCovered(normalized, e))) {
    await session.query(`DROP INDEX ${quoteIdent(c.schema)}.${quoteIdent(name)}`);
    return undefined;
  }
  await session.query(`SELECT ${SET_INDEXES_VALID}($1::oid[], false)`, [oids]);
  return { ...c, oids, names: new Set(own.map((r) => r.name)), pages: 0, heights: new Map() };
}

/** An index and its partition parts, the index first. */
async function indexTree(session: ShadowSession, schema: string, name: string): Promise<{ oid: number; name: string }[]> {
  const tree = await session.query<{ oid: number; name: string }>(
    // pg_partition_tree is empty for an index outside any partition tree, hence the UNION.
    `SELECT c.oid::int AS oid, c.relname AS name FROM pg_catalog.pg_class c
     WHERE c.oid = pg_catalog.to_regclass($1) OR c.oid IN (SELECT relid FROM pg_catalog.pg_partition_tree(pg_catalog.to_regclass($1)))
     ORDER BY c.oid = pg_catalog.to_regclass($1) DESC`,
    [`${escapeIdentifier(schema)}.${escapeIdentifier(name)}`],
  );
  return tree.rows;
}

/**
 * An index a CI run's schema adds (built with the schema, valid in every plan) in the shape
 * sizeCandidate takes, so it is sized as a candidate would be. Undefined when the shadow could not
 * build it, or for BRIN, whose real size is the few pages its build wrote. Other methods than GIN
 * are sized as a B-tree of the same columns; an expression key as an 8-byte column.
 */
export async function liveRunIndex(session: ShadowSession, index: SourceIndex): Promise<LiveCandidate | undefined> {
  if (index.am === 'brin') return undefined;
  const tree = await indexTree(session, index.schema, index.name);
  if (!tree.length) return undefined;
  return {
    schema: index.schema,
    table: index.table,
    am: index.am === 'gin' ? 'gin' : 'btree',
    keys: index.keys.map((k) => k ?? ''),
    include: index.include,
    predicate: index.predicate,
    oids: tree.map((r) => r.oid),
    names: new Set(tree.map((r) => r.name)),
    pages: 0,
    heights: new Map(),
  };
}

/**
 * Gives each part of a candidate the size and row count it would have in production; returns the
 * files to extend to that size (all candidates' files are extended together, see extendFiles).
 */
export async function sizeCandidate(session: ShadowSession, c: LiveCandidate, snapshot: SourceSnapshot): Promise<ExtendJob[]> {
  const parts = await session.query<{ index: number; name: string; schema: string; table: string; kind: string }>(
    `SELECT i.indexrelid::int AS index, i.indexrelid::pg_catalog.regclass::text AS name, n.nspname AS schema, t.relname AS table, t.relkind AS kind
     FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class t ON t.oid = i.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace WHERE i.indexrelid = ANY($1::oid[])`,
    [c.oids],
  );
  const files: ExtendJob[] = [];
  let total = 0;
  for (const part of parts.rows) {
    if (part.kind === 'p') continue; // the partitioned index itself has no storage
    const rel = snapshot.relations.find((r) => r.schema === part.schema && r.name === part.table);
    let tuples = Math.max(rel?.reltuples ?? 0, 0);
    if (c.predicate) {
      // The planner's own estimate of the rows the predicate keeps, from the restored statistics.
      const plan = await explain(session, `SELECT 1 FROM ONLY ${quoteIdent(part.schema)}.${quoteIdent(part.table)} WHERE ${c.predicate}`);
      tuples = Math.min(tuples, plan['Plan Rows']);
    }
    const stat = (column: string) => columnSize(snapshot, part.schema, part.table, column);
    const pages = estimateIndexPages({ am: c.am, keys: c.keys, include: c.include, tuples, unique: false, stat });
    total += pages;
    if (c.am === 'btree') c.heights.set(part.name.replace(/^.*\./, '').replace(/^"(.*)"$/, '$1'), estimateBtreeHeight(pages, stat(c.keys[0]!).avgWidth));
    await restoreRelationStats(session, part.index, { relpages: pages, reltuples: tuples, relallvisible: 0 });
    const file = await relationFile(session, part.index);
    if (file) files.push({ file, blocks: pages });
  }
  c.pages = total;
  return files;
}
