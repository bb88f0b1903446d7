// "Analyze" for an environment: a background job that plans every catalog query with the
// statistics of the environment's production connection (advisor/) and stores plans, costs and
// index recommendations. The production database is only read; see docs/analysis.md. Plans come
// through the plan cache the CI verdicts use (verdict/cache.ts): against the current production
// snapshot, only queries not planned on it yet are planned again.
import { and, eq, ne } from 'drizzle-orm';
import { chooseIndexes, resolveIndexNames, withQueryStatisticsWarnings, type ShadowSlots } from '../../advisor/index';
import { messageOf, redactConnectionString } from '../../gateway/index';
import type { AnalysisStatus, ChoiceStop, IndexRecommendation, PlannedQuery, SavingPoint, WorkloadBudget } from '../../shared/analysis';
import type { DropEffect, IndexHealth } from '../../shared/index-health';
import type { SchemaFilters } from '../../shared/schema-filters';
import { analysisRuns, catalogQueries, queryAnalyses } from '../db/schema';
import type { Db } from '../db/store';
import { badRequest, isUniqueViolation, upstream } from '../errors';
import { newId } from '../ids';
import type { Services } from '../services-type';
import type { RunningQueue } from '../queue/index';
import { requireProductionConnections } from '../domain/connections';
import { planCached } from '../verdict/cache';
import { warmShadows } from '../verdict/shadows';
import { currentSnapshot, type StoredSnapshot } from '../verdict/snapshots';
import { healthWithEffects, inputsOf, readIndexFindings, whatIfResult, type PlanningContext } from './what-if';
import { toStatus } from './results';
import { upsertQueryAnalyses, type QueryAnalysisRow } from './jobs.sql';
import { copyCostsToRuns } from './run-costs.sql';
import { emitNewRecommendations } from '../webhooks/new-recommendations';

interface AnalysisResult {
  queries: PlannedQuery[];
  indexes: IndexRecommendation[];
  /** The workload's choice step by step, and where and why it stopped; absent with no query to plan. */
  savingCurve?: SavingPoint[];
  stopReason?: ChoiceStop;
  warnings: string[];
  /** Production's index health with drop effects; absent when it could not be read (a warning says why), or in a what-if analysis. */
  indexHealth?: IndexHealth;
  /** A what-if analysis: what planning without the dropped indexes cost the catalog. */
  hiddenEffect?: DropEffect;
}

export interface AnalysisOptions {
  /** The production connection's schema filters: index health reads only the schemas they allow. */
  schemaFilters?: SchemaFilters;
  /** Shadow slots to plan in (tests); default the process-wide ones. */
  slots?: ShadowSlots;
  /** A budget for the indexes chosen for the whole workload. */
  budget?: WorkloadBudget;
  /**
   * Plan every query as if these indexes (name or schema.name) were dropped: a what-if analysis.
   * Its plans and costs are kept on the analysis only: the catalog's costs, and the CI runs that
   * copy them, stay production's.
   */
  hiddenIndexes?: string[];
}

/**
 * The indexes a what-if analysis drops (hiddenIndexes), resolved against production's current snapshot (schema.name each), or a 400
 * naming every one that is no index there. Reads production when no fresh snapshot is stored.
 */
async function resolveDropped(services: Services, environmentId: string, names: string[], connectionString: string): Promise<string[]> {
  let snapshot: StoredSnapshot;
  try {
    snapshot = await currentSnapshot(services, environmentId, { maxAgeMs: services.config.snapshotMaxAgeSeconds * 1000 });
  } catch (error) {
    throw upstream(`Production could not be read to find hiddenIndexes: ${redactConnectionString(messageOf(error), connectionString)}`);
  }
  const resolved = resolveIndexNames(snapshot.snapshot, names);
  if (resolved.problems.length) {
    throw badRequest(
      `Unknown index: ${resolved.problems.map((p) => JSON.stringify(p.name)).join(', ')}. ${resolved.problems.map((p) => p.message).join(' ')}`,
      resolved.problems.map((p) => ({ path: `hiddenIndexes.${p.position}`, message: p.message })),
    );
  }
  return resolved.indexes.map((i) => `${i.schema}.${i.name}`).sort();
}

const ANALYSIS_JOB = 'analyze';

/** What is sent on the queue: everything the job needs, as JSON (any server process may run it). */
interface AnalysisJob extends Record<string, unknown> {
  analysisId: string;
  environmentId: string;
  budget?: WorkloadBudget;
  hiddenIndexes: string[];
}

/** Analyses sent by this process, so tests and the demo can wait for them, whoever runs them. */
const sent = new Map<string, { queue: RunningQueue; jobId: string }>();
/** Shadow slots given by a test, used when the job runs in this process: they cannot go through the queue. */
const localSlots = new Map<string, ShadowSlots>();

/** Resolves once the analysis (if this process started it) has finished, whichever process ran it. */
export async function waitForAnalysis(id: string): Promise<void> {
  const job = sent.get(id);
  if (!job) return;
  await job.queue.settled(ANALYSIS_JOB, job.jobId);
  sent.delete(id);
}

/** Every server process runs Analyze jobs; one whose workers all stopped ends failed, saying so. */
export async function registerAnalysisJobs(services: Services): Promise<void> {
  await services.queue.work<AnalysisJob>(ANALYSIS_JOB, (job) => runAnalysisJob(services, job), {
    concurrency: 1,
    onFailed: async ({ analysisId }, reason) => {
      await services.store.db
        .update(analysisRuns)
        .set({ status: 'failed', phase: 'failed', error: reason, finishedAt: new Date() })
        .where(and(eq(analysisRuns.id, analysisId), eq(analysisRuns.status, 'running')));
    },
  });
}

async function runAnalysisJob(services: Services, job: AnalysisJob): Promise<void> {
  const { db } = services.store;
  const [row] = await db.select({ status: analysisRuns.status }).from(analysisRuns).where(eq(analysisRuns.id, job.analysisId));
  // gone (its environment deleted) or finished by an earlier attempt that stopped before completing its job
  if (row?.status !== 'running') return;
  let connectionString: string;
  let schemaFilters: SchemaFilters;
  try {
    [{ connectionString, schemaFilters }] = await requireProductionConnections(
      db,
      services.secrets,
      job.environmentId,
      'so its planner statistics can be used',
    );
  } catch (error) {
    // removed since, or sealed under another SECRET_KEY: said on the analysis, not retried
    await db
      .update(analysisRuns)
      .set({ status: 'failed', phase: 'failed', error: error instanceof Error ? error.message : String(error), finishedAt: new Date() })
      .where(eq(analysisRuns.id, job.analysisId));
    return;
  }
  const slots = localSlots.get(job.analysisId);
  localSlots.delete(job.analysisId);
  await runAnalysis(services, job.analysisId, job.environmentId, connectionString, {
    budget: job.budget,
    hiddenIndexes: job.hiddenIndexes,
    slots,
    schemaFilters,
  });
}

async function readStatus(db: Db, id: string): Promise<AnalysisStatus> {
  const [row] = await db.select().from(analysisRuns).where(eq(analysisRuns.id, id));
  if (!row) throw new Error(`analysis ${id} vanished`);
  return toStatus(row);
}

/**
 * Starts an analysis of the environment's catalog, or returns the one already running.
 * 409 when the environment has no production connection: its statistics are the point.
 */
export async function startAnalysis(
  services: Services,
  environmentId: string,
  options: AnalysisOptions = {},
): Promise<{ status: AnalysisStatus; created: boolean }> {
  const { db } = services.store;
  const [production] = await requireProductionConnections(db, services.secrets, environmentId, 'so its planner statistics can be used');
  const hiddenIndexes = options.hiddenIndexes?.length ? await resolveDropped(services, environmentId, options.hiddenIndexes, production.connectionString) : [];
  const id = newId('an');
  try {
    await db.insert(analysisRuns).values({ id, environmentId, status: 'running', connectionLabel: production.label, hiddenIndexes });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [current] = await db
      .select()
      .from(analysisRuns)
      .where(and(eq(analysisRuns.environmentId, environmentId), eq(analysisRuns.status, 'running')));
    if (current) return { status: toStatus(current), created: false };
    throw error;
  }
  const status = await readStatus(db, id); // read before the job can move it on
  if (options.slots) localSlots.set(id, options.slots);
  let jobId: string | null;
  try {
    jobId = await services.queue.send(ANALYSIS_JOB, { analysisId: id, environmentId, budget: options.budget, hiddenIndexes } satisfies AnalysisJob, {
      singletonKey: id,
    });
  } catch (error) {
    localSlots.delete(id);
    await db
      .update(analysisRuns)
      .set({ status: 'failed', phase: 'failed', error: `Not queued: ${error instanceof Error ? error.message : String(error)}`, finishedAt: new Date() })
      .where(eq(analysisRuns.id, id));
    throw error;
  }
  if (jobId) remember(sent, id, { queue: services.queue, jobId });
  return { status, created: true };
}

async function runAnalysis(services: Services, id: string, environmentId: string, connectionString: string, options: AnalysisOptions): Promise<void> {
  const { db } = services.store;
  let lastWrite = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const report = (p: { phase: string; done: number; total: number }, force = false) => {
    const now = Date.now();
    if (!force && now - lastWrite < 250) return;
    lastWrite = now;
    // progress writes are serialised so an older one never lands after a newer one
    pending = pending.then(() =>
      db
        .update(analysisRuns)
        .set({ phase: p.phase, done: p.done, total: p.total })
        .where(eq(analysisRuns.id, id))
        .catch(() => undefined),
    );
  };
  try {
    const queries = await db
      .select({ hash: catalogQueries.hash, query: catalogQueries.query, calls: catalogQueries.productionCalls })
      .from(catalogQueries)
      .where(eq(catalogQueries.environmentId, environmentId));
    const dropped = options.hiddenIndexes ?? [];
    // Read before the snapshot: reading one probes the extremes of B-tree-indexed columns, which
    // counts as scans of those indexes. A what-if analysis changes no index health.
    const findings = dropped.length ? undefined : await readIndexFindings(connectionString, options.schemaFilters);
    let result: AnalysisResult = { queries: [], indexes: [], warnings: [] };
    let planning: PlanningContext | undefined;
    if (queries.length > 0) {
      report({ phase: 'snapshot', done: 0, total: 1 }, true);
      const snapshot = await currentSnapshot(services, environmentId, { maxAgeMs: services.config.snapshotMaxAgeSeconds * 1000 });
      const cached = await planCached(db, {
        environmentId,
        snapshotId: snapshot.id,
        snapshot: snapshot.snapshot,
        digest: '',
        queries: queries.map((q) => ({ hash: q.hash, query: q.query, calls: q.calls ?? undefined })),
        withPlans: true,
        shadows: warmShadows(services.config),
        slots: options.slots,
        onProgress: (done, total) => report({ phase: 'queries', done, total }),
      });
      const cachedPlans: PlannedQuery[] = queries.flatMap((q) => {
        const p = cached.plans.get(q.hash);
        if (!p) return [];
        const { plannedAt: _plannedAt, ...plan } = p;
        return [plan];
      });
      // each query names the tables its own plan read without production's column statistics
      const planned = withQueryStatisticsWarnings(snapshot.snapshot, cachedPlans);
      // The ranking weighs every cached recommendation by the catalog's production calls (planCached did).
      result = { queries: planned, ...chooseIndexes(planned, options.budget), warnings: cached.warnings };
      planning = { services, environmentId, snapshot, queries: inputsOf(queries), planned, slots: options.slots, budget: options.budget };
      if (dropped.length) result = await whatIfResult({ ...planning, dropped, onProgress: (done, total) => report({ phase: 'queries', done, total }) });
    }
    if (findings) {
      report({ phase: 'index health', done: 0, total: 1 }, true);
      result.indexHealth = await healthWithEffects(findings, planning, result.warnings, connectionString);
    }
    report({ phase: 'saving', done: queries.length, total: queries.length }, true);
    await pending;
    await saveResults(db, id, environmentId, result, dropped.length > 0);
    await emitNewRecommendations(services, environmentId, id);
  } catch (error) {
    await pending;
    const message = redactConnectionString(error instanceof Error ? error.message : String(error), connectionString);
    await db.update(analysisRuns).set({ status: 'failed', phase: 'failed', error: message, finishedAt: new Date() }).where(eq(analysisRuns.id, id));
  }
}

const curveOf = (result: AnalysisResult) => ({ savingCurve: result.savingCurve ?? null, stopReason: result.stopReason ?? null });

/** An analysis run's row once its `count` queries are planned and stored. */
const finished = (count: number, result: AnalysisResult) => ({
  status: 'done' as const,
  phase: 'done',
  done: count,
  total: count,
  queryCount: count,
  warnings: result.warnings,
  indexes: result.indexes,
  ...curveOf(result),
  finishedAt: new Date(),
});

/**
 * Stores the analysis. A what-if analysis (`whatIf`) keeps its results on its own row: the
 * catalog's latest costs, and the CI runs that copy them, stay production's.
 */
async function saveResults(db: Db, id: string, environmentId: string, result: AnalysisResult, whatIf = false): Promise<void> {
  const analyzedAt = new Date().toISOString();
  const rows: QueryAnalysisRow[] = result.queries.map((q) => ({
    hash: q.hash,
    cost: q.cost,
    plan_shape: q.planShape,
    plan: q.plan,
    plan_after: q.planAfter,
    recommendations: q.recommendations,
    recommendation_count: q.recommendations.length,
    total_saved: q.recommendations.reduce<number | null>((best, r) => Math.max(best ?? 0, r.totalSaved), null),
    error: q.error,
    warnings: q.warnings ?? [],
  }));
  if (whatIf) {
    await db
      .update(analysisRuns)
      .set({ ...finished(rows.length, result), hiddenEffect: result.hiddenEffect ?? null })
      .where(eq(analysisRuns.id, id));
    return;
  }
  await db.transaction(async (tx) => {
    // Every query's latest analysis, in place (jobs.sql.ts), then the analyses of queries no longer
    // in the catalog go.
    if (rows.length > 0) await tx.execute(upsertQueryAnalyses(environmentId, id, analyzedAt, rows));
    await tx.delete(queryAnalyses).where(and(eq(queryAnalyses.environmentId, environmentId), ne(queryAnalyses.analysisId, id)));
    // CI runs stored before this analysis learn their queries' costs now (later runs get them at ingestion).
    await tx.execute(copyCostsToRuns({ environmentId }));
    await tx
      .update(analysisRuns)
      .set({ ...finished(rows.length, result), indexHealth: result.indexHealth ?? null })
      .where(eq(analysisRuns.id, id));
  });
}

/** Keeps the latest few hundred: a waiter asks soon after starting, and a long-lived server starts many. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.set(key, value);
  if (map.size > 500) map.delete(map.keys().next().value!);
}
