// The plan cache: a query's plan, cost and recommendations against one production snapshot
// with one set of schema differences applied (digest '' for production's own schema). A query's
// plan and cost do not depend on the other queries planned with it, so results are cached per
// query hash and only the misses are planned. Its recommendations and alternatives may also use
// an index another query planned with it suggested (docs/analysis.md, the whole workload): the
// first planning is kept, and the workload's choice reads every query's alternatives from here.
// Two callers planning the same miss at once both plan it; the second insert does nothing.
import { and, eq, sql } from 'drizzle-orm';
import {
  analyzeSnapshot,
  hiddenStatisticsWarnings,
  ShadowSlots,
  sharedShadowSlots,
  type QueryInput,
  type ShadowServer,
  type Snapshot,
} from '../../advisor/index';
import type { PlannedQuery, Recommendation } from '../../shared/analysis';
import type { PlanNode } from '../../shared/plan';
import { queryPlans } from '../db/schema';
import type { Db } from '../db/store';
import { isForeignKeyViolation } from '../errors';
import { insertPlans } from './cache.sql';
import type { WarmShadows } from './shadows';

export interface CachedPlan {
  hash: string;
  cost: number | null;
  planShape: string | null;
  /** Only when asked for (`withPlans`): the rest of the time they are dead weight. */
  plan: PlanNode | null;
  planAfter: PlanNode | null;
  recommendations: Recommendation[];
  /** Every index that alone saves the query enough: what the workload's choice (rankIndexes) picks from. */
  alternatives: Recommendation[];
  /** Schema-qualified indexes and tables the plan uses, before any recommendation. */
  indexesUsed: string[];
  tablesUsed: string[];
  error: string | null;
  plannedAt: Date;
}

export interface PlanCachedInput {
  environmentId: string;
  /** The stored snapshot the plans are made against (production_snapshots.id). */
  snapshotId: string;
  /** That snapshot with the schema differences of `digest` applied. */
  snapshot: Snapshot;
  /** '' for production's own schema. */
  digest: string;
  queries: readonly QueryInput[];
  /** Read plan and planAfter from the cache too (Analyze stores them per query). */
  withPlans?: boolean;
  shadows?: WarmShadows;
  /** Shadow slots to plan in; default the process-wide ones. */
  slots?: ShadowSlots;
  /** Rebuild the whole snapshot in the shadow rather than what the queries need (advisor's AnalyzeOptions.fullShadow). */
  fullShadow?: boolean;
  /** Queries planned so far, cache hits included, out of all of them. */
  onProgress?: (done: number, total: number) => void;
}

export interface PlanCachedResult {
  plans: Map<string, CachedPlan>;
  /** Queries that were not in the cache and were planned now. */
  planned: number;
  warnings: string[];
}

/** analyzeSnapshot takes a slot of its own: planCached has taken one already, around the warm server. */
const INSIDE_A_SLOT = new ShadowSlots({ maxConcurrent: Number.MAX_SAFE_INTEGER, queue: 0 });

/** Rows read from the cache per statement, so a catalog of thousands stays one modest query each. */
const READ_CHUNK = 1000;

/**
 * Every query's plan against (snapshot, digest): cached rows, and the misses planned now and cached.
 * A recommendation's totalSaved is weighted by the calls given here, whoever planned it first.
 */
export async function planCached(db: Db, input: PlanCachedInput): Promise<PlanCachedResult> {
  const queries = uniqueByHash(input.queries);
  const total = queries.length;
  const plans = await readCached(
    db,
    input,
    queries.map((q) => q.hash),
  );
  const misses = queries.filter((q) => !plans.has(q.hash));
  const hits = total - misses.length;
  input.onProgress?.(hits, total);
  let warnings: string[] = [];
  if (misses.length > 0) {
    // The warm server keeps the database built for this snapshot and schema between calls.
    const reuseKey = JSON.stringify([input.snapshotId, input.digest]);
    const plan = (shadow: ShadowServer | undefined) =>
      analyzeSnapshot(input.snapshot, misses, {
        shadow,
        reuseKey,
        slots: INSIDE_A_SLOT,
        ...(input.fullShadow && { fullShadow: true }),
        onProgress: (p) => {
          if (p.phase === 'queries') input.onProgress?.(hits + p.done, total);
        },
      });
    // The slot first, then a warm server: a job waiting for a slot holds no server, and one refused
    // (ShadowBusyError) never starts one.
    const result = await (input.slots ?? sharedShadowSlots()).run(() => (input.shadows ? input.shadows.use(plan, reuseKey) : plan(undefined)));
    warnings = result.warnings;
    const plannedAt = new Date();
    for (const q of result.queries) plans.set(q.hash, fromPlanned(q, plannedAt));
    await store(db, input, result.queries, plannedAt);
    input.onProgress?.(total, total);
  }
  const calls = new Map(queries.map((q) => [q.hash, q.calls ?? 1]));
  for (const p of plans.values()) {
    p.recommendations = weighted(p.recommendations, calls.get(p.hash) ?? 1);
    p.alternatives = weighted(p.alternatives, calls.get(p.hash) ?? 1);
  }
  // From the snapshot and the plans, so that a run answered from the cache warns as well.
  return { plans, planned: misses.length, warnings: [...new Set([...warnings, ...hiddenStatisticsWarnings(input.snapshot, [...plans.values()])])] };
}

function uniqueByHash(queries: readonly QueryInput[]): QueryInput[] {
  const byHash = new Map<string, QueryInput>();
  for (const q of queries) if (!byHash.has(q.hash)) byHash.set(q.hash, q);
  return [...byHash.values()];
}

const weighted = (recommendations: Recommendation[], calls: number): Recommendation[] =>
  recommendations.map((r) => ({ ...r, totalSaved: (r.costBefore - r.costAfter) * calls }));

function fromPlanned(q: PlannedQuery, plannedAt: Date): CachedPlan {
  return {
    hash: q.hash,
    cost: q.cost,
    planShape: q.planShape,
    plan: q.plan,
    planAfter: q.planAfter,
    recommendations: q.recommendations,
    alternatives: q.alternatives ?? [],
    indexesUsed: q.indexesUsed ?? [],
    tablesUsed: q.tablesUsed ?? [],
    error: q.error,
    plannedAt,
  };
}

async function readCached(db: Db, input: PlanCachedInput, hashes: string[]): Promise<Map<string, CachedPlan>> {
  const plans = new Map<string, CachedPlan>();
  for (let i = 0; i < hashes.length; i += READ_CHUNK) {
    const chunk = JSON.stringify(hashes.slice(i, i + READ_CHUNK));
    const rows = await db
      .select({
        hash: queryPlans.hash,
        cost: queryPlans.cost,
        planShape: queryPlans.planShape,
        plan: input.withPlans ? queryPlans.plan : sql<PlanNode | null>`NULL::jsonb`,
        planAfter: input.withPlans ? queryPlans.planAfter : sql<PlanNode | null>`NULL::jsonb`,
        recommendations: queryPlans.recommendations,
        alternatives: queryPlans.alternatives,
        indexesUsed: queryPlans.indexesUsed,
        tablesUsed: queryPlans.tablesUsed,
        error: queryPlans.error,
        plannedAt: queryPlans.plannedAt,
      })
      .from(queryPlans)
      .where(
        and(
          eq(queryPlans.environmentId, input.environmentId),
          eq(queryPlans.snapshotId, input.snapshotId),
          eq(queryPlans.schemaDigest, input.digest),
          sql`${queryPlans.hash} IN (SELECT jsonb_array_elements_text(${chunk}::jsonb))`,
        ),
      );
    for (const row of rows) plans.set(row.hash, row);
  }
  return plans;
}

async function store(db: Db, input: PlanCachedInput, planned: PlannedQuery[], plannedAt: Date): Promise<void> {
  if (planned.length === 0) return;
  try {
    // The snapshot may have been pruned while these were planned: then there is nothing to cache into.
    await db.execute(insertPlans(input, planned, plannedAt));
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
  }
}
