// Query analysis with production statistics: plans, costs and index recommendations.
// analyzeQueries reads production and plans; readSnapshot + analyzeSnapshot do the same
// in two steps, so a snapshot can be kept, reused and have a CI run's schema applied to it
// (applyRunSchema). See docs/analysis.md for the method and its limits.
import { loadParser } from '../shared/sql-fingerprint.js';
import type { QueryInput } from './recommend.js';
import { queryRefs } from './scope.js';
import { sharedShadowSlots } from '../shadow/slots.js';
import { readSnapshot } from '../snapshot/read.js';
import type { Snapshot } from '../snapshot/types.js';
import { refusalReason } from '../shadow/statement.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeInput } from './types.js';
import { planSnapshot } from './pipeline.js';

export type { CandidateOptions, IndexCandidate } from './candidates.js';
export type { LiveCandidate } from './live-candidates.js';
export type { QueryInput } from './recommend.js';
export { chooseIndexes, chooseVerified, rankIndexes } from './recommend.js';
export { plannedCost, type PlannedCost } from './planned-cost.js';
export { applyRunSchema, type AppliedRunSchema } from './run-schema.js';
export type { Snapshot, ReadSnapshotOptions, SnapshotScope } from '../snapshot/types.js';
// Reads schema, sizes and statistics from production, read-only, through the gateway (one
// REPEATABLE READ, READ ONLY transaction). Takes no shadow slot: nothing is planned.
export { readSnapshot } from '../snapshot/read.js';
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
export { hiddenStatisticsWarnings, withQueryStatisticsWarnings } from './hidden-statistics.js';
export { resolveIndexNames, withoutIndexes, type WhatIfDrop, type WhatIfDropResult, type ResolvedIndexes } from './what-if-drops.js';
export type { AnalysisResult, AnalysisProgress, AnalyzeOptions, WhatIf, WhatIfHook, AnalyzeInput } from './types.js';

/**
 * Reads statistics from production (`connectionString`), plans every query in a shadow PostgreSQL 18 and proposes indexes.
 * Waits for a shadow slot first, before production is read; ShadowBusyError when the queue is full.
 */
export async function analyzeQueries(input: AnalyzeInput): Promise<AnalysisResult> {
  return (input.options?.slots ?? sharedShadowSlots()).run(() => readAndAnalyze(input));
}

/**
 * Plans `queries` on a snapshot read earlier (possibly with a run's schema applied) and proposes
 * indexes. Waits for a shadow slot like analyzeQueries; ShadowBusyError when the queue is full.
 * Each query's plan and cost depend on that query alone, so results can be cached per query and
 * snapshot; its recommendations and alternatives may also use another query's candidate that
 * extends one of its own (workload.ts), each still a valid plan of that query.
 */
export async function analyzeSnapshot(snapshot: Snapshot, queries: QueryInput[], opts: AnalyzeOptions = {}): Promise<AnalysisResult> {
  return (opts.slots ?? sharedShadowSlots()).run(() => planSnapshot(snapshot, queries, opts));
}

async function readAndAnalyze(input: AnalyzeInput): Promise<AnalysisResult> {
  const opts = input.options ?? {};
  const progress = opts.onProgress ?? (() => undefined);
  progress({ phase: 'snapshot', done: 0, total: 1 });
  // Only what the queries need (snapshot/scope.ts), unless the whole schema is to be rebuilt.
  await loadParser();
  const texts = [...input.queries, ...(opts.whatIfDrops ?? []).flatMap((t) => t.queries)].map((q) => q.query).filter((sql) => !refusalReason(sql));
  const dropTables = (opts.whatIfDrops ?? []).map((t) => ({ schema: t.schema, name: t.name }));
  const scope = opts.fullShadow ? undefined : { names: queryRefs(texts), ...(dropTables.length && { indexes: dropTables }) };
  // Through the gateway: read-only transactions, pinned search_path, timeouts, the marker.
  const snapshot = await readSnapshot(input.connectionString, { statementTimeoutMs: opts.statementTimeoutMs, ...(scope && { scope }) });
  progress({ phase: 'snapshot', done: 1, total: 1 });
  return planSnapshot(snapshot, input.queries, opts);
}
