// Query analysis with production statistics: plans, costs and index recommendations.
// analyzeQueries reads production and plans; readProductionSnapshot + analyzeSnapshot do the same
// in two steps, so a snapshot can be kept, reused and have a CI run's schema applied to it
// (applyRunSchema). See docs/analysis.md for the method and its limits.
import type { ChoiceStop, IndexRecommendation, PlannedQuery, SavingPoint, WorkloadBudget } from '../shared/analysis.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { candidateKey, candidateTarget, candidatesFor, type CandidateOptions, type IndexCandidate } from './candidates.js';
import { snapshotCatalog } from './catalog.js';
import { btreeHeights, descentCost } from './descent.js';
import { createCandidates as buildCandidates, liveRunIndex, sizeCandidates, type LiveCandidate } from './live-candidates.js';
import { planObjectsReader } from './plan-objects.js';
import { chooseVerified, costWith, recommendFor, unplanned, type QueryInput } from './recommend.js';
import { claimKept, type KeptShadow } from './kept-shadows.js';
import { ddlKey, queryRefs, subsetSnapshot } from './scope.js';
import { createShadowDatabase, extendShadowDatabase, reopenShadowDatabase } from '../shadow/database.js';
import { explain } from '../shadow/explain.js';
import { extendFiles, extendRelations, shrinkFiles, storageInfo, tableFiles, type ExtendJob } from '../shadow/relation-files.js';
import { restoreRelationSizes, restoreStatistics } from '../shadow/statistics.js';
import { storeEndpointRows } from '../shadow/endpoint-rows.js';
import type { ShadowDatabase, ShadowServer } from '../shadow/types.js';
import { dropShadowAccess } from '../shadow/access.js';
import { tryDrops, type DropTrial, type DropTrialResult } from './hidden-indexes.js';
import { hiddenStatisticsWarnings, withStatisticsWarnings } from './hidden-statistics.js';
import { startShadowServer } from '../shadow/server.js';
import { sharedShadowSlots, type ShadowSlots } from '../shadow/slots.js';
import { readSourceSnapshot } from '../snapshot/read.js';
import type { ReadSourceOptions, SourceSnapshot } from '../snapshot/types.js';
import { refusalReason } from '../shadow/statement.js';
import { UsageCollector } from './usage.js';
import { annotateRecommendations, withSharedCandidates } from './workload.js';

export type { CandidateOptions, IndexCandidate } from './candidates.js';
export type { LiveCandidate } from './live-candidates.js';
export type { QueryInput } from './recommend.js';
export { chooseIndexes, chooseVerified, rankIndexes } from './recommend.js';
export { applyRunSchema, type AppliedRunSchema } from './run-schema.js';
export type { SourceSnapshot, ReadSourceOptions, SnapshotScope } from '../snapshot/types.js';
export type { ScopeRequest } from '../snapshot/types.js';
export { queryRefs, subsetSnapshot, missingFrom, mergeSnapshots, refsOfScope, unchangedFor, type MissingScope } from './scope.js';
export type { QueryRefs } from '../snapshot/types.js';
export { planShape, indexesUsed, type PlanNode } from '../shared/plan.js';
export { startShadowServer } from '../shadow/server.js';
export type { ShadowServer } from '../shadow/types.js';
export { refusalReason } from '../shadow/statement.js';
export { sweepShadows, useShadowRegistry } from '../shadow/cluster-registry.js';
export { keptKeyOf } from './kept-shadows.js';
export { embeddedBinaries, serverUser, startKeptCluster, type KeptCluster } from '../shadow/postgres-process.js';
export { ShadowBusyError } from '../shadow/busy.js';
export { ShadowSlots, sharedShadowSlots, shadowLimitsFromEnv, type ShadowLimits } from '../shadow/slots.js';
export { hiddenStatisticsWarnings } from './hidden-statistics.js';
export { resolveIndexNames, withoutIndexes, type DropTrial, type DropTrialResult, type ResolvedIndexes } from './hidden-indexes.js';

export interface AnalysisResult {
  queries: PlannedQuery[];
  /** Every recommended index once, ranked by total time saved over all queries. */
  indexes: IndexRecommendation[];
  /** The workload's cost after each step of the choice (knee.ts), and where and why it stopped. */
  savingCurve: SavingPoint[];
  stopReason: ChoiceStop;
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
  /**
   * Rebuild the whole snapshot in the shadow. By default the shadow carries only what the
   * queries (and drop trials) need (scope.ts), which plans them the same; a snapshot without a
   * dependency graph (read by an older version) is always rebuilt whole.
   */
  fullShadow?: boolean;
  /**
   * Scoring other index selections with the advisor's own what-if cost (bench:advisor): `extra`
   * names more candidates to build from each query's own, and `run` is called after the queries
   * are planned, in the same shadow, with every candidate built and the cost of a query with any
   * set of them.
   */
  whatIf?: WhatIfHook;
}

/** The advisor's what-if cost, for a bench to score other index selections with. */
export interface WhatIf {
  /** Every candidate built in the shadow, sized as the advisor sizes it (pages). */
  live: LiveCandidate[];
  /** Each query's own candidates (after sharing between queries), in the order of the queries. */
  candidatesOf: IndexCandidate[][];
  /** The query's cost (as the advisor compares costs) with these candidates and no other. */
  cost(query: number, indexes: LiveCandidate[]): Promise<number>;
  results: PlannedQuery[];
}

export interface WhatIfHook {
  extra?: (candidatesOf: IndexCandidate[][]) => IndexCandidate[];
  run: (whatIf: WhatIf) => Promise<void>;
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
  // Only what the queries need (source-scope.ts), unless the whole schema is to be rebuilt.
  await loadParser();
  const texts = [...input.queries, ...(opts.dropTrials ?? []).flatMap((t) => t.queries)].map((q) => q.query).filter((sql) => !refusalReason(sql));
  const trialTables = (opts.dropTrials ?? []).map((t) => ({ schema: t.schema, name: t.name }));
  const scope = opts.fullShadow ? undefined : { names: queryRefs(texts), ...(trialTables.length && { indexes: trialTables }) };
  // Through the gateway: read-only transactions, pinned search_path, timeouts, the marker.
  const snapshot = await readSourceSnapshot(input.source, { statementTimeoutMs: opts.statementTimeoutMs, ...(scope && { scope }) });
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

/**
 * The part of the snapshot the queries and drop trials need (scope.ts), or all of it. A text that
 * is refused is never planned, so it needs nothing.
 */
function shadowScope(snapshot: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions): SourceSnapshot {
  if (opts.fullShadow || !snapshot.graph) return snapshot;
  const texts = [...queries, ...(opts.dropTrials ?? []).flatMap((t) => t.queries)].map((q) => q.query).filter((sql) => !refusalReason(sql));
  const keyOf = new Map(Object.entries(snapshot.graph.relations).map(([key, r]) => [`${r.schema}\u0000${r.name}`, key]));
  const trialTables = (opts.dropTrials ?? []).flatMap((t) => {
    const index = snapshot.indexes.find((i) => i.schema === t.schema && i.name === t.name);
    const key = index && keyOf.get(`${index.schema}\u0000${index.table}`);
    return key ? [key] : [];
  });
  return subsetSnapshot(snapshot, queryRefs(texts), { used: trialTables });
}

async function planSnapshot(whole: SourceSnapshot, queries: QueryInput[], opts: AnalyzeOptions): Promise<AnalysisResult> {
  const progress = opts.onProgress ?? (() => undefined);
  await loadParser();
  // Only what these queries need goes into the shadow; everything below reads that part.
  const snapshot = shadowScope(whole, queries, opts);
  progress({ phase: 'shadow', done: 0, total: 1 });
  const server = opts.shadow ?? (await startShadowServer());
  let claim = opts.shadow && opts.reuseKey !== undefined ? await claimKept(opts.shadow, opts.reuseKey) : undefined;
  if (claim?.kept && !canGrow(claim.kept, snapshot)) {
    // It lacks what only a new database can have (a schema or extension): built anew under the same key.
    await dropShadowAccess(server, claim.kept.built.name).catch(() => undefined);
    claim = { kept: undefined, release: claim.release };
  }
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
    const session = db.session;
    const cost = async (i: number, indexes: LiveCandidate[]) => costOf(await explain(session, queries[i]!.query, indexes.flatMap((c) => c.oids)));
    if (opts.whatIf) await opts.whatIf.run({ live: [...shadow.live.values()], candidatesOf: prepared.map((p) => p.candidates), cost, results });
    const byStatement = new Map([...shadow.live.values()].map((c) => [`CREATE INDEX ON ${candidateTarget(c)}`, c]));
    const workloadCost = async (statements: string[]) => {
      const indexes = statements.flatMap((s) => byStatement.get(s) ?? []);
      let total = 0;
      for (const [i, r] of results.entries()) if (r.plan) total += (await cost(i, indexes)) * (queries[i]!.calls ?? 1);
      return total;
    };
    const choice = await chooseVerified(results, opts.budget ?? {}, workloadCost);
    progress({ phase: 'done', done: queries.length, total: queries.length });
    const planned = withStatisticsWarnings(snapshot, results);
    const warnings = [...shadow.warnings, ...hiddenStatisticsWarnings(snapshot, planned)];
    return { queries: planned, ...choice, warnings, ...(dropTrials && { dropTrials }) };
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
    const extra = opts.whatIf?.extra?.(prepared.map((p) => p.candidates)) ?? [];
    const built = await createCandidates(db, newCandidates(prepared, new Map(), extra), 1, snapshot, progress);
    const tables = await tableFiles(db, snapshot.relations);

    await restoreStatistics(db, snapshot).then((r) => warnings.push(...r.warnings));
    const relations = await extendRelations(server, db, snapshot.relations);
    const candidateFiles: ExtendJob[] = [];
    candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
    const runIndexes = await sizeRunIndexes(db, snapshot, candidateFiles, warnings);
    const storage = await storageInfo(server, db.session);
    await extendFiles(server, storage, candidateFiles);
    const live = liveOf(built);
    const kept = {
      storage,
      built: { name: db.name, ddlErrors: db.ddlErrors, notCopied: db.notCopied },
      warnings,
      tables,
      candidates: built,
      runIndexes,
      nextCandidate: built.size + 1,
      relations,
      ddl: new Set(snapshot.ddl.map(ddlKey)),
      restored: new Set(snapshot.relations.map(relationId)),
    };
    return { db, live, runIndexes, warnings, kept };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

const relationId = (r: { schema: string; name: string }) => `${r.schema}\u0000${r.name}`;

/** A kept database can take the rest of this snapshot unless that needs a schema or extension it was not built with. */
function canGrow(kept: KeptShadow, snapshot: SourceSnapshot): boolean {
  return snapshot.ddl.every((d) => kept.ddl.has(ddlKey(d)) || (d.kind !== 'schema' && d.kind !== 'extension'));
}

/**
 * A kept database: a new session; the relations these queries need that it does not have yet
 * added (their DDL, endpoint rows, statistics, sizes: a shadow grows with the queries planned in
 * it, scope.ts) and the candidates it does not have yet built, both on tables shrunk back to their
 * built length, then everything grown again (kept-shadows.ts).
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
  // What the database lacks of this part. A table arrives with its partitions, children and
  // indexes when a query reads it, so a partition is never attached later to a table the database
  // holds candidates on (CREATE INDEX builds those on a table queries read, whose partitions are
  // all there): an attachment would give it parts of them, valid.
  const newDdl = snapshot.ddl.filter((d) => !kept.ddl.has(ddlKey(d)));
  const newRelations = snapshot.relations.filter((r) => !kept.restored.has(relationId(r)));
  const grow = newDdl.length > 0 || newRelations.length > 0;
  // No session is open on the database now: the last analysis closed its own.
  if (missing.size > 0 || grow) await shrinkFiles(server, kept.storage, kept.tables);
  const db = await reopenShadowDatabase(server, snapshot, kept.built, opts.statementTimeoutMs);
  try {
    let added: SourceSnapshot | undefined;
    if (grow) {
      const extended = await extendShadowDatabase(db, snapshot, newDdl);
      if (!extended) throw new Error('the kept shadow database cannot take the schema or extension these queries need');
      for (const d of newDdl) kept.ddl.add(ddlKey(d));
      kept.warnings.push(...extended.notCopied, ...extended.ddlErrors.map((e) => `DDL not rebuilt: ${e.error}: ${e.sql.slice(0, 200)}`));
      // What this part of the snapshot brings: endpoint rows (before candidates, as in a build) and statistics.
      const tables = new Set(newRelations.map(relationId));
      added = {
        ...snapshot,
        relations: newRelations,
        stats: snapshot.stats.filter((s) => tables.has(relationId({ schema: s.schema, name: s.table }))),
        endpoints: (snapshot.endpoints ?? []).filter((e) => tables.has(relationId({ schema: e.schema, name: e.table }))),
      };
      await storeEndpointRows(db, added);
    }
    progress({ phase: 'shadow', done: 1, total: 1 });
    if (missing.size > 0 || grow) {
      const built = missing.size > 0 ? await createCandidates(db, missing, kept.nextCandidate, snapshot, progress) : new Map<string, LiveCandidate | null>();
      kept.nextCandidate += missing.size;
      if (added) {
        kept.tables.push(...(await tableFiles(db, added.relations)));
        await restoreStatistics(db, added).then((r) => kept.warnings.push(...r.warnings));
        for (const r of added.relations) kept.restored.add(relationId(r));
      }
      // CREATE INDEX wrote its table's size to pg_class (index_update_stats).
      await restoreRelationSizes(db, snapshot);
      await extendFiles(server, kept.storage, kept.relations);
      if (added) kept.relations.push(...(await extendRelations(server, db, added.relations)));
      const candidateFiles: ExtendJob[] = [];
      candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
      for (const [key, c] of built) kept.candidates.set(key, c);
      // The run schema's indexes built now, with the relations added.
      const builtNow = new Set(newDdl.filter((d) => d.kind === 'index').map((d) => d.name));
      const runIndexes = await sizeRunIndexes(db, snapshot, candidateFiles, kept.warnings, (_schema, name) => builtNow.has(name));
      kept.runIndexes.push(...runIndexes);
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
async function sizeRunIndexes(
  db: ShadowDatabase,
  snapshot: SourceSnapshot,
  files: ExtendJob[],
  warnings: string[],
  wanted: (schema: string, name: string) => boolean = () => true,
): Promise<LiveCandidate[]> {
  const sized: LiveCandidate[] = [];
  for (const { schema, name } of snapshot.runIndexes ?? []) {
    if (!wanted(schema, name)) continue;
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

/** The distinct candidates of every query (and `extra`) that `known` does not hold yet, by candidateKey. */
function newCandidates(prepared: PreparedQuery[], known: ReadonlyMap<string, unknown>, extra: IndexCandidate[] = []): Map<string, IndexCandidate> {
  const unique = new Map<string, IndexCandidate>();
  for (const c of [...prepared.flatMap((p) => p.candidates), ...extra]) if (!known.has(candidateKey(c))) unique.set(candidateKey(c), c);
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
