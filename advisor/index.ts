// Query analysis with production statistics: plans, costs and index recommendations.
// The one entry point is analyzeQueries; see README.md for the method and its limits.
import { readSourceSnapshot, type SourceSnapshot, type SourceColumnStats } from './source.js';
import { startShadowServer, type ShadowServer } from './shadow-server.js';
import {
  createShadowDatabase,
  restoreStatistics,
  restoreRelationStats,
  extendRelations,
  extendFiles,
  relationFile,
  storageInfo,
  storeEndpointRows,
  explain,
  type ExtendJob,
  type PlanNode,
  type ShadowDatabase,
} from './shadow.js';
import type { ShadowSession } from './shadow-session.js';
import { SET_INDEXES_VALID, dropShadowAccess } from './shadow-access.js';
import { refusalReason } from './statement.js';
import { sharedShadowSlots, type ShadowSlots } from './slots.js';
import { UsageCollector, candidatesFor, isCovered, loadParser, quoteIdent, type Catalog, type CandidateOptions, type IndexCandidate, type TableName, type ColumnInfo } from './candidates.js';
import { planShape, indexesUsed } from './plan.js';
import { estimateIndexPages, estimateBtreeHeight } from './sizing.js';

export type { PlanNode } from './shadow.js';
export type { CandidateOptions, IndexCandidate } from './candidates.js';
export { planShape, indexesUsed } from './plan.js';
export { startShadowServer, type ShadowServer } from './shadow-server.js';
export { ShadowBusyError } from './busy.js';
export { ShadowSlots, shadowLimitsFromEnv, type ShadowLimits } from './slots.js';

export interface QueryInput {
  /** The catalog's fingerprint; returned as is. */
  hash: string;
  /** SQL, possibly with $n placeholders (planned as a generic plan). */
  query: string;
  /** Production call count; weights the ranking. Missing means 1. */
  calls?: number;
}

export interface Recommendation {
  createIndex: string;
  /** schema.table */
  table: string;
  method: 'btree' | 'gin';
  columns: string[];
  include: string[];
  predicate: string | null;
  /** Cost of the query's plan before and after adding this index (after earlier ones of the list). */
  costBefore: number;
  costAfter: number;
  savedPct: number;
  /** (costBefore - costAfter) x calls. */
  totalSaved: number;
  /** Size the shadow planner assumed for the index, in pages. */
  estimatedPages: number;
}

export interface QueryAnalysis {
  hash: string;
  /** The plan production would choose now, from the shadow planner. */
  plan: PlanNode | null;
  cost: number | null;
  planShape: string | null;
  recommendations: Recommendation[];
  /** The plan with every recommendation of this query in place. */
  planAfter?: PlanNode;
  error?: string;
}

export interface IndexRecommendation extends Omit<Recommendation, 'costBefore' | 'costAfter' | 'savedPct'> {
  /** Hashes of the queries it helps. */
  queries: string[];
}

export interface AnalysisResult {
  queries: QueryAnalysis[];
  /** Every recommended index once, ranked by total time saved over all queries. */
  indexes: IndexRecommendation[];
  /** Schema objects the shadow could not rebuild, statistics it could not restore. */
  warnings: string[];
}

export interface AnalysisProgress {
  phase: 'snapshot' | 'shadow' | 'candidates' | 'queries' | 'done';
  done: number;
  total: number;
}

export interface AnalyzeOptions {
  /** A shadow server to reuse (it is not stopped); otherwise one is started and stopped. */
  shadow?: ShadowServer;
  candidates?: CandidateOptions;
  /** Smallest cost reduction, in percent of the query's cost, worth an index. Default 5. */
  minSavedPct?: number;
  /** Most indexes recommended for one query. Default 2. */
  maxIndexesPerQuery?: number;
  statementTimeoutMs?: number;
  onProgress?: (p: AnalysisProgress) => void;
  /** Caps concurrent analyses; default: the process-wide slots (SHADOW_MAX_CONCURRENT, SHADOW_QUEUE). */
  slots?: ShadowSlots;
}

export interface AnalyzeInput {
  /** Production connection string; used read-only, nothing is created or changed there. */
  source: string;
  queries: QueryInput[];
  options?: AnalyzeOptions;
}

/**
 * Reads statistics from `source`, plans every query in a shadow PostgreSQL 18 and proposes indexes.
 * Waits for a shadow slot first, before production is read; ShadowBusyError when the queue is full.
 */
export async function analyzeQueries(input: AnalyzeInput): Promise<AnalysisResult> {
  return (input.options?.slots ?? sharedShadowSlots()).run(() => readAndAnalyze(input));
}

async function readAndAnalyze(input: AnalyzeInput): Promise<AnalysisResult> {
  const opts = input.options ?? {};
  const progress = opts.onProgress ?? (() => undefined);
  progress({ phase: 'snapshot', done: 0, total: 1 });
  // Through the gateway: read-only transactions, pinned search_path, timeouts, the marker.
  const snapshot = await readSourceSnapshot(input.source, { statementTimeoutMs: opts.statementTimeoutMs });
  progress({ phase: 'snapshot', done: 1, total: 1 });
  return planSnapshot(snapshot, input.queries, opts);
}

interface LiveCandidate extends IndexCandidate {
  id: string;
  /** The index and, on a partitioned table, its partition parts. */
  oids: number[];
  names: Set<string>;
  pages: number;
  /** B-tree height each part would have in production, by index name. */
  heights: Map<string, number>;
}

/** analyzeQueries on an already read snapshot (the analyzer and tests can cache one). */
export async function analyzeSnapshot(snapshot: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions = {}): Promise<AnalysisResult> {
  return (opts.slots ?? sharedShadowSlots()).run(() => planSnapshot(snapshot, queries, opts));
}

async function planSnapshot(snapshot: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions): Promise<AnalysisResult> {
  const progress = opts.onProgress ?? (() => undefined);
  const minSavedPct = opts.minSavedPct ?? 5;
  const maxPerQuery = opts.maxIndexesPerQuery ?? 2;
  await loadParser();
  progress({ phase: 'shadow', done: 0, total: 1 });
  const server = opts.shadow ?? (await startShadowServer());
  const dbName = `shadow_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  let db: ShadowDatabase | undefined;
  try {
    db = await createShadowDatabase(server, snapshot, dbName, snapshot.locale, opts.statementTimeoutMs);
    const warnings = [...db.notCopied, ...db.ddlErrors.map((e) => `DDL not rebuilt: ${e.error}: ${e.sql.slice(0, 200)}`)];
    const catalog = makeCatalog(snapshot);
    progress({ phase: 'shadow', done: 1, total: 1 });

    // Parse every query and gather its candidates before any relation is extended (see shadow.ts).
    // A text that is not exactly one plannable statement is refused here and never sent.
    const perQuery = queries.map((q) => {
      const refused = refusalReason(q.query);
      if (refused) return { usages: [], candidates: [], error: refused, refused: true };
      try {
        const usages = new UsageCollector(catalog).collect(q.query);
        return { usages, candidates: candidatesFor(usages, catalog, opts.candidates), error: undefined as string | undefined, refused: false };
      } catch (e) {
        return { usages: [], candidates: [], error: `parse: ${(e as Error).message}`, refused: false };
      }
    });
    // Before candidates are built, so they hold the two rows as the real index would.
    await storeEndpointRows(db, snapshot);
    const unique = new Map<string, IndexCandidate>();
    for (const p of perQuery) for (const c of p.candidates) unique.set(candidateKey(c), c);
    const live = new Map<string, LiveCandidate>();
    let n = 0;
    for (const [key, c] of unique) {
      progress({ phase: 'candidates', done: n++, total: unique.size });
      const created = await createCandidate(db.session, c, n, snapshot);
      if (created) live.set(key, created);
    }

    await restoreStatistics(db, snapshot).then((r) => warnings.push(...r.warnings));
    await extendRelations(server, db, snapshot.relations);
    const candidateFiles: ExtendJob[] = [];
    for (const c of live.values()) candidateFiles.push(...(await sizeCandidate(db.session, c, snapshot)));
    await extendFiles(server, await storageInfo(server, db.session), candidateFiles);

    const heights = existingHeights(snapshot);
    for (const c of live.values()) for (const [name, h] of c.heights) heights.set(name, h);
    const descent = descentCorrection(heights, Number(snapshot.settings.cpu_operator_cost ?? 0.0025));
    const results: QueryAnalysis[] = [];
    for (const [i, q] of queries.entries()) {
      progress({ phase: 'queries', done: i, total: queries.length });
      const p = perQuery[i]!;
      if (p.refused) {
        results.push({ hash: q.hash, plan: null, cost: null, planShape: null, recommendations: [], error: p.error });
        continue;
      }
      const candidates = p.candidates.map((c) => live.get(candidateKey(c))).filter((c): c is LiveCandidate => !!c);
      results.push(await analyzeOne(db.session, q, candidates, p.error, { minSavedPct, maxPerQuery }, descent));
    }
    progress({ phase: 'done', done: queries.length, total: queries.length });
    return { queries: results, indexes: rankIndexes(results), warnings };
  } finally {
    if (db) await db.close();
    if (!opts.shadow) await server.stop();
    else await dropShadowAccess(server, dbName).catch(() => undefined);
  }
}

const candidateKey = (c: IndexCandidate) => `${c.schema}.${c.table}|${c.am}|${c.keys.join(',')}|${c.include.join(',')}|${c.predicate ?? ''}`;

function makeCatalog(snapshot: SourceSnapshot): Catalog {
  const tables = new Map<string, Map<string, ColumnInfo>>();
  const kinds = new Map(snapshot.relations.map((r) => [`${r.schema}.${r.name}`, r]));
  for (const c of snapshot.columns) {
    const k = `${c.schema}.${c.table}`;
    if (!['r', 'p', 'm'].includes(kinds.get(k)?.kind ?? '')) continue;
    if (!tables.has(k)) tables.set(k, new Map());
    tables.get(k)!.set(c.name, { type: c.type, category: c.category });
  }
  const stats = new Map<string, SourceColumnStats>();
  for (const s of snapshot.stats) {
    const k = `${s.schema}.${s.table}.${s.column}`;
    // A partitioned parent's own statistics are the inherited ones.
    if (!stats.has(k) || s.inherited === (kinds.get(`${s.schema}.${s.table}`)?.kind === 'p')) stats.set(k, s);
  }
  const path = snapshot.searchPath
    .split(',')
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
    .filter((s) => s && s !== '$user');
  return {
    resolve(schema, name) {
      for (const s of schema ? [schema] : ['pg_catalog', ...path]) if (tables.has(`${s}.${name}`)) return { schema: s, table: name };
      return undefined;
    },
    columns: (t) => tables.get(`${t.schema}.${t.table}`),
    distinct(t, column) {
      const s = stats.get(`${t.schema}.${t.table}.${column}`);
      const rows = kinds.get(`${t.schema}.${t.table}`)?.reltuples ?? 0;
      const nd = Number(s?.values.n_distinct ?? 200);
      return nd < 0 ? -nd * Math.max(rows, 1) : nd;
    },
  };
}

/** Builds a candidate on the still-empty table, then hides it (indisvalid = false). */
async function createCandidate(session: ShadowSession, c: IndexCandidate, n: number, snapshot: SourceSnapshot): Promise<LiveCandidate | undefined> {
  const name = `qt_candidate_${n}`;
  const sql = `CREATE INDEX ${quoteIdent(name)} ON ${candidateTarget(c)}`;
  try {
    await session.query(sql);
  } catch {
    return undefined; // e.g. a type without a default operator class for the method
  }
  const tree = await session.query<{ oid: number; name: string }>(
    // pg_partition_tree is empty for an index outside any partition tree, hence the UNION.
    `SELECT c.oid::int AS oid, c.relname AS name FROM pg_catalog.pg_class c
     WHERE c.oid = pg_catalog.to_regclass($1) OR c.oid IN (SELECT relid FROM pg_catalog.pg_partition_tree(pg_catalog.to_regclass($1)))
     ORDER BY c.oid = pg_catalog.to_regclass($1) DESC`,
    [`${quoteIdent(c.schema)}.${quoteIdent(name)}`],
  );
  // On a partitioned table CREATE INDEX attaches a partition's matching index instead of
  // building one; those existed before (lower oids) and must stay visible and keep their size.
  const own = tree.rows.filter((r) => r.oid >= tree.rows[0]!.oid);
  const oids = own.map((r) => r.oid);
  const pred = await session.query<{ pred: string | null }>(`SELECT pg_catalog.pg_get_expr(indpred, indrelid) AS pred FROM pg_catalog.pg_index WHERE indexrelid = $1`, [oids[0]]);
  const normalized = { ...c, predicate: pred.rows[0]?.pred ?? null };
  const existing = snapshot.indexes.filter((i) => i.schema === c.schema && i.table === c.table);
  if (existing.some((e) => isCovered(normalized, e))) {
    await session.query(`DROP INDEX ${quoteIdent(c.schema)}.${quoteIdent(name)}`);
    return undefined;
  }
  await session.query(`SELECT ${SET_INDEXES_VALID}($1::oid[], false)`, [oids]);
  return { ...c, id: name, oids, names: new Set(own.map((r) => r.name)), pages: 0, heights: new Map() };
}

function candidateTarget(c: IndexCandidate): string {
  return (
    `${quoteIdent(c.schema)}.${quoteIdent(c.table)}${c.am === 'btree' ? '' : ` USING ${c.am}`} (${c.keys.map(quoteIdent).join(', ')})` +
    (c.include.length ? ` INCLUDE (${c.include.map(quoteIdent).join(', ')})` : '') +
    (c.predicate ? ` WHERE ${c.predicate}` : '')
  );
}

/**
 * Gives each part of a candidate the size and row count it would have in production; returns the
 * files to extend to that size (all candidates' files are extended together, see extendFiles).
 */
async function sizeCandidate(session: ShadowSession, c: LiveCandidate, snapshot: SourceSnapshot): Promise<ExtendJob[]> {
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
    const stat = (column: string) => columnStats(snapshot, part.schema, part.table, column);
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

function columnStats(snapshot: SourceSnapshot, schema: string, table: string, column: string) {
  const s = snapshot.stats.find((x) => x.schema === schema && x.table === table && x.column === column && !x.inherited);
  const rel = snapshot.relations.find((r) => r.schema === schema && r.name === table);
  const nd = Number(s?.values.n_distinct ?? -1);
  return {
    avgWidth: Number(s?.values.avg_width ?? 8),
    nullFrac: Number(s?.values.null_frac ?? 0),
    distinct: nd < 0 ? -nd * Math.max(rel?.reltuples ?? 1, 1) : nd,
  };
}

async function analyzeOne(
  session: ShadowSession,
  q: QueryInput,
  candidates: LiveCandidate[],
  parseError: string | undefined,
  limits: { minSavedPct: number; maxPerQuery: number },
  descent: (plan: PlanNode) => number = () => 0,
): Promise<QueryAnalysis> {
  const costOf = (plan: PlanNode) => Math.round((plan['Total Cost'] + descent(plan)) * 100) / 100;
  let base: PlanNode;
  try {
    base = await explain(session, q.query);
  } catch (e) {
    return { hash: q.hash, plan: null, cost: null, planShape: null, recommendations: [], error: (e as Error).message };
  }
  const result: QueryAnalysis = {
    hash: q.hash,
    plan: base,
    cost: costOf(base),
    planShape: planShape(base),
    recommendations: [],
    ...(parseError ? { error: parseError } : {}),
  };
  const calls = q.calls ?? 1;
  const chosen: LiveCandidate[] = [];
  let current = base;
  for (let round = 0; round < limits.maxPerQuery; round++) {
    const tried: { c: LiveCandidate; plan: PlanNode }[] = [];
    for (const c of candidates) {
      if (chosen.includes(c)) continue;
      let plan: PlanNode;
      try {
        plan = await explain(session, q.query, [...chosen, c].flatMap((x) => x.oids));
      } catch {
        continue;
      }
      const used = indexesUsed(plan);
      if ([...c.names].some((n) => used.has(n))) tried.push({ c, plan });
    }
    if (tried.length === 0) break;
    const best = Math.min(...tried.map((t) => costOf(t.plan)));
    // Near-ties go to the smaller index: it costs less to keep and the planner sees no difference.
    const pick = tried
      .filter((t) => costOf(t.plan) <= best + Math.max(0.01 * best, 0.01))
      .sort((a, b) => a.c.pages - b.c.pages || a.c.keys.length + a.c.include.length - (b.c.keys.length + b.c.include.length))[0]!;
    const before = costOf(current);
    const after = costOf(pick.plan);
    const savedPct = before > 0 ? ((before - after) / before) * 100 : 0;
    if (savedPct < limits.minSavedPct) break;
    chosen.push(pick.c);
    current = pick.plan;
    result.recommendations.push({
      createIndex: `CREATE INDEX ON ${candidateTarget(pick.c)}`,
      table: `${pick.c.schema}.${pick.c.table}`,
      method: pick.c.am,
      columns: pick.c.keys,
      include: pick.c.include,
      predicate: pick.c.predicate,
      costBefore: before,
      costAfter: after,
      savedPct: Math.round(savedPct * 10) / 10,
      totalSaved: (before - after) * calls,
      estimatedPages: pick.c.pages,
    });
  }
  if (chosen.length) result.planAfter = nameCandidates(current, chosen);
  return result;
}

/** Production B-tree heights of the source's indexes, estimated from their page counts. */
function existingHeights(snapshot: SourceSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  const pages = new Map(snapshot.relations.filter((r) => r.kind === 'i').map((r) => [`${r.schema}.${r.name}`, Math.max(r.blocks, r.relpages)]));
  for (const i of snapshot.indexes) {
    if (i.am !== 'btree') continue;
    const first = i.keys[0];
    const width = first ? columnStats(snapshot, i.schema, i.table, first).avgWidth : 8;
    out.set(i.name, estimateBtreeHeight(pages.get(`${i.schema}.${i.name}`) ?? 1, width));
  }
  return out;
}

/**
 * What the shadow's plan is not charged for B-tree descents. The shadow's indexes hold at most
 * two rows, so _bt_getrootheight says 0 and btcostestimate charges every scan
 * height x 50 x cpu_operator_cost less than production does. Alone that is 0.125 a level, but
 * an index probed on the inner side of a nested loop pays it once per outer row, and once per
 * partition: a nested loop over a partitioned table can look 30% cheaper than it is (measured:
 * 59k vs 84k, and production chose a hash join instead). The plan's own node costs are left as
 * PostgreSQL gave them; the advisor compares and reports costs with this added.
 */
function descentCorrection(heights: Map<string, number>, cpuOperatorCost: number): (plan: PlanNode) => number {
  // `loops`: how often the node runs; `fraction`: the share of its output a Limit above reads,
  // reset by nodes that read all their input before returning a row.
  const walk = (node: PlanNode, loops: number, fraction: number): number => {
    let sum = 0;
    const name = node['Index Name'];
    if (typeof name === 'string' && /Index/.test(node['Node Type'])) sum += (heights.get(name) ?? 0) * 50 * cpuOperatorCost * loops * fraction;
    const children = node.Plans ?? [];
    const outerRows = children.find((c) => c['Parent Relationship'] === 'Outer')?.['Plan Rows'] ?? 1;
    const type = node['Node Type'];
    const blocking = type === 'Sort' || type === 'Incremental Sort' || type === 'Hash' || type === 'Materialize' || (type === 'Aggregate' && node.Strategy !== 'Sorted');
    for (const child of children) {
      let childLoops = loops;
      let childFraction = blocking ? 1 : fraction;
      if (type === 'Nested Loop' && child['Parent Relationship'] === 'Inner') childLoops = loops * Math.max(outerRows, 1);
      if (type === 'Materialize' || type === 'Hash') childLoops = 1;
      // A Limit runs its input for a fraction of its rows (the planner scales the cost alike).
      if (type === 'Limit') childFraction = fraction * Math.min(1, node['Plan Rows'] / Math.max(child['Plan Rows'], 1));
      sum += walk(child, childLoops, childFraction);
    }
    return sum;
  };
  return (plan) => walk(plan, 1, 1);
}

/** Marker that starts the name of a recommended index in a plan (the client shows it as such). */
export const RECOMMENDED_INDEX_PREFIX = 'recommended: ';

/** The shadow's scratch index names (qt_candidate_7) replaced by what the index is, for readers. */
function nameCandidates(plan: PlanNode, chosen: LiveCandidate[]): PlanNode {
  const labels = new Map<string, string>();
  for (const c of chosen) for (const name of c.names) labels.set(name, `${RECOMMENDED_INDEX_PREFIX}${candidateTarget(c)}`);
  const walk = (node: PlanNode): PlanNode => {
    const copy: PlanNode = { ...node };
    const name = copy['Index Name'];
    if (typeof name === 'string' && labels.has(name)) copy['Index Name'] = labels.get(name)!;
    if (Array.isArray(copy.Plans)) copy.Plans = copy.Plans.map(walk);
    return copy;
  };
  return walk(plan);
}

function rankIndexes(results: QueryAnalysis[]): IndexRecommendation[] {
  const byStatement = new Map<string, IndexRecommendation>();
  for (const r of results) {
    for (const rec of r.recommendations) {
      const { costBefore: _b, costAfter: _a, savedPct: _p, ...rest } = rec;
      const entry = byStatement.get(rec.createIndex);
      if (entry) {
        entry.totalSaved += rec.totalSaved;
        entry.queries.push(r.hash);
      } else byStatement.set(rec.createIndex, { ...rest, queries: [r.hash] });
    }
  }
  return [...byStatement.values()].sort((a, b) => b.totalSaved - a.totalSaved);
}

export type { TableName };
