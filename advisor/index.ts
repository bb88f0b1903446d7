// Query analysis with production statistics: plans, costs and index recommendations.
// analyzeQueries reads production and plans; readProductionSnapshot + analyzeSnapshot do the same
// in two steps, so a snapshot can be kept, reused and have a CI run's schema applied to it
// (applyRunSchema). See README.md for the method and its limits.
import type { IndexRecommendation, PlannedQuery, WorkloadBudget } from '../shared/analysis.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { candidateKey, candidatesFor, type CandidateOptions, type IndexCandidate } from './candidates.js';
import { snapshotCatalog } from './catalog.js';
import { btreeHeights, descentCost } from './descent.js';
import { createCandidates as buildCandidates, liveRunIndex, sizeCandidates, type LiveCandidate } from './live-candidates.js';
import { planObjectsReader } from './plan-objects.js';
import { costWith, rankIndexes, recommendFor, unplanned, type QueryInput } from './recommend.js';
import { claimKept, type KeptShadow } from './kept-shadows.js';
import {
  createShadowDatabase,
  extendFiles,
  extendRelations,
  reopenShadowDatabase,
  restoreRelationSizes,
  restoreStatistics,
  shrinkFiles,
  storageInfo,
  storeEndpointRows,
  tableFiles,
  type ExtendJob,
  type ShadowDatabase,
} from './shadow.js';
import { dropShadowAccess } from './shadow-access.js';
import { tryDrops, type DropTrial, type DropTrialResult } from './hidden-indexes.js';
import { startShadowServer, type ShadowServer } from './shadow-server.js';
import { sharedShadowSlots, type ShadowSlots } from './slots.js';
import { readSourceSnapshot, type ReadSourceOptions, type SourceSnapshot } from './source.js';
import { refusalReason } from './statement.js';
import { UsageCollector } from './usage.js';
import { annotateRecommendations, withSharedCandidates } from './workload.js';

export type { CandidateOptions, IndexCandidate } from './candidates.js';
export type { QueryInput } from './recommend.js';
export { rankIndexes } from './recommend.js';
export { applyRunSchema, type AppliedRunSchema } from './run-schema.js';
export type { SourceSnapshot, ReadSourceOptions } from './source.js';
export { planShape, indexesUsed, type PlanNode } from '../shared/plan.js';
export { startShadowServer, type ShadowServer } from './shadow-server.js';
export { sweepShadows, useShadowRegistry } from './cluster-registry.js';
export { keptKeyOf } from './kept-shadows.js';
export { embeddedBinaries, serverUser, startKeptCluster, type KeptCluster } from './postgres-process.js';
export { ShadowBusyError } from './busy.js';
export { ShadowSlots, sharedShadowSlots, shadowLimitsFromEnv, type ShadowLimits } from './slots.js';
export { resolveIndexNames, withoutIndexes, type DropTrial, type DropTrialResult, type ResolvedIndexes } from './hidden-indexes.js';

export interface AnalysisResult {
  queries: PlannedQuery[];
  /** Every recommended index once, ranked by total time saved over all queries. */
  indexes: IndexRecommendation[];
  /** Schema objects the shadow could not rebuild, statistics it could not restore. */
  warnings: string[];
  /** With `dropTrials`: each index's queries planned with and without it (hidden-indexes.ts). */
  dropTrials?: DropTrialResult[];
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
  /** A budget for the indexes chosen for the whole workload (`indexes`): most indexes, most bytes. */
  budget?: WorkloadBudget;
  statementTimeoutMs?: number;
  onProgress?: (p: AnalysisProgress) => void;
  /** Caps concurrent analyses; default: the process-wide slots (SHADOW_MAX_CONCURRENT, SHADOW_QUEUE). */
  slots?: ShadowSlots;
  /**
   * With `shadow`: keep the shadow database built for this key on that server and plan in it
   * again when asked with the same key (kept-shadows.ts). The same key must mean the same
   * snapshot, schema differences applied included, e.g. `snapshotId + digest`.
   */
  reuseKey?: string;
  /** Indexes to try dropping, after the queries are planned, in the same shadow (hidden-indexes.ts). */
  dropTrials?: DropTrial[];
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

/**
 * Reads schema, sizes and statistics from production, read-only, through the gateway (one
 * REPEATABLE READ, READ ONLY transaction). Takes no shadow slot: nothing is planned.
 */
export function readProductionSnapshot(connectionString: string, options: ReadSourceOptions = {}): Promise<SourceSnapshot> {
  return readSourceSnapshot(connectionString, options);
}

/**
 * Plans `queries` on a snapshot read earlier (possibly with a run's schema applied) and proposes
 * indexes. Waits for a shadow slot like analyzeQueries; ShadowBusyError when the queue is full.
 * Each query's plan and cost depend on that query alone, so results can be cached per query and
 * snapshot; its recommendations and alternatives may also use another query's candidate that
 * extends one of its own (workload.ts), each still a valid plan of that query.
 */
export async function analyzeSnapshot(snapshot: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions = {}): Promise<AnalysisResult> {
  return (opts.slots ?? sharedShadowSlots()).run(() => planSnapshot(snapshot, queries, opts));
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

/** What one query brings before anything is planned: its candidates, or why it is not planned. */
interface PreparedQuery {
  candidates: IndexCandidate[];
  error: string | undefined;
  /** Not exactly one plannable statement: never sent to the shadow. */
  refused: boolean;
}

async function planSnapshot(snapshot: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions): Promise<AnalysisResult> {
  const progress = opts.onProgress ?? (() => undefined);
  await loadParser();
  progress({ phase: 'shadow', done: 0, total: 1 });
  const server = opts.shadow ?? (await startShadowServer());
  const claim = opts.shadow && opts.reuseKey !== undefined ? await claimKept(opts.shadow, opts.reuseKey) : undefined;
  const dbName = claim?.kept?.built.name ?? `shadow_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  let db: ShadowDatabase | undefined;
  let kept: KeptShadow | undefined;
  let failed = false;
  try {
    // Parse every query and gather its candidates before any relation is extended (see shadow.ts).
    const prepared = prepareQueries(snapshot, queries, opts.candidates);
    let shadow: PreparedShadow;
    if (claim?.kept) {
      kept = claim.kept;
      shadow = await reuseShadow(server, kept, snapshot, prepared, opts, progress);
    } else {
      shadow = await buildShadow(server, dbName, snapshot, prepared, opts, progress);
      if (claim) kept = { key: opts.reuseKey!, ...shadow.kept };
    }
    db = shadow.db;

    const heights = btreeHeights(snapshot);
    for (const c of [...shadow.live.values(), ...shadow.runIndexes]) for (const [name, h] of c.heights) heights.set(name, h);
    const cpuOperatorCost = Number(snapshot.settings.cpu_operator_cost ?? 0.0025);
    const costOf = costWith((plan) => descentCost(plan, heights, cpuOperatorCost));
    const limits = { minSavedPct: opts.minSavedPct ?? 5, maxPerQuery: opts.maxIndexesPerQuery ?? 2 };
    const objectsOf = planObjectsReader(snapshot);
    const results: PlannedQuery[] = [];
    for (const [i, q] of queries.entries()) {
      progress({ phase: 'queries', done: i, total: queries.length });
      const p = prepared[i]!;
      if (p.refused) {
        results.push(unplanned(q.hash, p.error!));
        continue;
      }
      const candidates = p.candidates.map((c) => shadow.live.get(candidateKey(c))).filter((c): c is LiveCandidate => !!c);
      const planned = await recommendFor(db.session, q, candidates, p.error, limits, costOf);
      // From the plan as it is: recommendations are not applied in it.
      results.push({ ...planned, ...objectsOf(planned.plan) });
    }
    annotateRecommendations(results, snapshot);
    const dropTrials = opts.dropTrials?.length ? await tryDrops(db.session, opts.dropTrials, costOf) : undefined;
    progress({ phase: 'done', done: queries.length, total: queries.length });
    return { queries: results, indexes: rankIndexes(results, opts.budget), warnings: [...shadow.warnings], ...(dropTrials && { dropTrials }) };
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    // Closed before the claim is released: the next analysis may shrink the tables' files.
    if (db) await db.close().catch(() => undefined);
    if (!opts.shadow) await server.stop();
    else {
      claim?.release(failed ? undefined : kept);
      if (!claim || failed) await dropShadowAccess(server, dbName).catch(() => undefined);
    }
  }
}

/** A shadow database ready to plan on: its session, candidates and the run schema's indexes, sized. */
interface PreparedShadow {
  db: ShadowDatabase;
  /** Candidates of these queries, by candidateKey. */
  live: Map<string, LiveCandidate>;
  runIndexes: LiveCandidate[];
  warnings: string[];
  /** What a kept database remembers of its build. */
  kept: Omit<KeptShadow, 'key'>;
}

/** Builds the shadow database from the snapshot: schema, endpoint rows, candidates, statistics, sizes. */
async function buildShadow(
  server: ShadowServer,
  dbName: string,
  snapshot: SourceSnapshot,
  prepared: PreparedQuery[],
  opts: AnalyzeOptions,
  progress: (p: AnalysisProgress) => void,
): Promise<PreparedShadow> {
  const db = await createShadowDatabase(server, snapshot, dbName, snapshot.locale, opts.statementTimeoutMs);
  try {
    const warnings = [...db.notCopied, ...db.ddlErrors.map((e) => `DDL not rebuilt: ${e.error}: ${e.sql.slice(0, 200)}`)];
    progress({ phase: 'shadow', done: 1, total: 1 });
    // Before candidates are built, so they hold the two rows as the real index would.
    await storeEndpointRows(db, snapshot);
    const built = await createCandidates(db, newCandidates(prepared, new Map()), 1, snapshot, progress);
    const tables = await tableFiles(db, snapshot.relations);

    await restoreStatistics(db, snapshot).then((r) => warnings.push(...r.warnings));
    const relations = await extendRelations(server, db, snapshot.relations);
    const candidateFiles: ExtendJob[] = [];
    candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
    const runIndexes = await sizeRunIndexes(db, snapshot, candidateFiles, warnings);
    const storage = await storageInfo(server, db.session);
    await extendFiles(server, storage, candidateFiles);
    const live = liveOf(built);
    const kept = { storage, built: { name: db.name, ddlErrors: db.ddlErrors, notCopied: db.notCopied }, warnings, tables, candidates: built, runIndexes, nextCandidate: built.size + 1, relations };
    return { db, live, runIndexes, warnings, kept };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/**
 * A kept database: a new session, and the candidates it does not have yet built on tables
 * shrunk back to their built length, then everything grown again (kept-shadows.ts).
 */
async function reuseShadow(
  server: ShadowServer,
  kept: KeptShadow,
  snapshot: SourceSnapshot,
  prepared: PreparedQuery[],
  opts: AnalyzeOptions,
  progress: (p: AnalysisProgress) => void,
): Promise<PreparedShadow> {
  const missing = newCandidates(prepared, kept.candidates);
  // No session is open on the database now: the last analysis closed its own.
  if (missing.size > 0) await shrinkFiles(server, kept.storage, kept.tables);
  const db = await reopenShadowDatabase(server, snapshot, kept.built, opts.statementTimeoutMs);
  try {
    progress({ phase: 'shadow', done: 1, total: 1 });
    if (missing.size > 0) {
      const built = await createCandidates(db, missing, kept.nextCandidate, snapshot, progress);
      kept.nextCandidate += missing.size;
      // CREATE INDEX wrote its table's size to pg_class (index_update_stats).
      await restoreRelationSizes(db, snapshot);
      await extendFiles(server, kept.storage, kept.relations);
      const candidateFiles: ExtendJob[] = [];
      candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
      for (const [key, c] of built) kept.candidates.set(key, c);
      await extendFiles(server, kept.storage, candidateFiles);
    }
    return { db, live: liveOf(kept.candidates), runIndexes: kept.runIndexes, warnings: kept.warnings, kept };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/**
 * Sizes the indexes a CI run's schema adds (snapshot.runIndexes) as candidates are sized; adds
 * their files to `files`. Those the shadow could not build are reported in `warnings`.
 */
async function sizeRunIndexes(db: ShadowDatabase, snapshot: SourceSnapshot, files: ExtendJob[], warnings: string[]): Promise<LiveCandidate[]> {
  const sized: LiveCandidate[] = [];
  for (const { schema, name } of snapshot.runIndexes ?? []) {
    const index = snapshot.indexes.find((i) => i.schema === schema && i.name === name);
    if (!index) continue;
    const live = await liveRunIndex(db.session, index);
    if (!live) {
      if (index.am !== 'brin') warnings.push(`index ${schema}.${name} of the run's schema was not built in the shadow`);
      continue;
    }
    files.push(...(await sizeCandidates(db.session, [live], snapshot)));
    // Descent costs are B-tree's; other methods sized like one do not get them.
    if (index.am !== 'btree') live.heights.clear();
    sized.push(live);
  }
  return sized;
}

/**
 * A text that is not exactly one plannable statement is refused here and never sent; one the
 * candidate reader cannot follow is still planned, with the parse error kept beside its plan.
 */
function prepareQueries(snapshot: SourceSnapshot, queries: QueryInput[], options: CandidateOptions | undefined): PreparedQuery[] {
  const catalog = snapshotCatalog(snapshot);
  const prepared = queries.map((q): PreparedQuery => {
    const refused = refusalReason(q.query);
    if (refused) return { candidates: [], error: refused, refused: true };
    try {
      const usages = new UsageCollector(catalog).collect(q.query);
      return { candidates: candidatesFor(usages, catalog, options), error: undefined, refused: false };
    } catch (e) {
      return { candidates: [], error: `parse: ${(e as Error).message}`, refused: false };
    }
  });
  // Other queries' candidates that extend a query's own are tried on it too: the workload's choice needs them.
  const shared = withSharedCandidates(prepared.map((p) => p.candidates));
  return prepared.map((p, i) => ({ ...p, candidates: p.refused ? [] : shared[i]! }));
}

/** The distinct candidates of every query that `known` does not hold yet, by candidateKey. */
function newCandidates(prepared: PreparedQuery[], known: ReadonlyMap<string, unknown>): Map<string, IndexCandidate> {
  const unique = new Map<string, IndexCandidate>();
  for (const p of prepared) for (const c of p.candidates) if (!known.has(candidateKey(c))) unique.set(candidateKey(c), c);
  return unique;
}

/** Builds each candidate once, named from the `first`-th on; null for one not built or covered. */
function createCandidates(
  db: ShadowDatabase,
  unique: Map<string, IndexCandidate>,
  first: number,
  snapshot: SourceSnapshot,
  progress: (p: AnalysisProgress) => void,
): Promise<Map<string, LiveCandidate | null>> {
  return buildCandidates(db.session, unique, first, snapshot, (done, total) => progress({ phase: 'candidates', done, total }));
}

function liveOf(candidates: ReadonlyMap<string, LiveCandidate | null>): Map<string, LiveCandidate> {
  const live = new Map<string, LiveCandidate>();
  for (const [key, c] of candidates) if (c) live.set(key, c);
  return live;
}
