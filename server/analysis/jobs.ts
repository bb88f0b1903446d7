// "Analyze" for an environment: a background job that plans every catalog query with the
// statistics of the environment's production connection (advisor/) and stores plans, costs and
// index recommendations. The production database is only read; see advisor/README.md. Plans come
// through the analysis cache the CI verdicts use (verdict/cache.ts): against the current production
// snapshot, only queries not planned on it yet are planned again.
import { and, eq, sql } from 'drizzle-orm';
import { rankIndexes, type ShadowSlots } from '../../advisor/index';
import { redactConnectionString } from '../../gateway/index';
import type { AnalysisStatus, PlannedQuery } from '../../shared/analysis';
import { analysisRuns, catalogQueries } from '../db/schema';
import type { Db } from '../db/store';
import { isUniqueViolation } from '../errors';
import { newId } from '../ids';
import type { Services } from '../trpc';
import { requireProductionConnections } from '../domain/connections';
import { planCached } from '../verdict/cache';
import { warmShadows } from '../verdict/shadows';
import { currentSnapshot } from '../verdict/snapshots';
import { toStatus } from './results';
import { copyCostsToRuns } from './run-costs';

interface AnalysisResult {
  queries: PlannedQuery[];
  indexes: ReturnType<typeof rankIndexes>;
  warnings: string[];
}

export interface AnalysisOptions {
  /** Shadow slots to plan in (tests); default the process-wide ones. */
  slots?: ShadowSlots;
}

/** Jobs still running in this process, so tests (and shutdown) can wait for them. */
const running = new Map<string, Promise<void>>();

export function waitForAnalysis(id: string): Promise<void> {
  return running.get(id) ?? Promise.resolve();
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
  const id = newId('an');
  try {
    await db.insert(analysisRuns).values({ id, environmentId, status: 'running', connectionLabel: production.label });
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
  const job = runAnalysis(services, id, environmentId, production.connectionString, options).finally(() => running.delete(id));
  running.set(id, job);
  return { status, created: true };
}

async function runAnalysis(services: Services, id: string, environmentId: string, source: string, options: AnalysisOptions): Promise<void> {
  const { db } = services.store;
  let lastWrite = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const report = (p: { phase: string; done: number; total: number }, force = false) => {
    const now = Date.now();
    if (!force && now - lastWrite < 250) return;
    lastWrite = now;
    // progress writes are serialised so an older one never lands after a newer one
    pending = pending.then(() =>
      db.update(analysisRuns).set({ phase: p.phase, done: p.done, total: p.total }).where(eq(analysisRuns.id, id)).catch(() => undefined),
    );
  };
  try {
    const queries = await db
      .select({ hash: catalogQueries.hash, query: catalogQueries.query, calls: catalogQueries.productionCalls })
      .from(catalogQueries)
      .where(eq(catalogQueries.environmentId, environmentId));
    let result: AnalysisResult = { queries: [], indexes: [], warnings: [] };
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
      const planned: PlannedQuery[] = queries.flatMap((q) => {
        const p = cached.plans.get(q.hash);
        if (!p) return [];
        const { plannedAt: _plannedAt, ...plan } = p;
        return [plan];
      });
      // The ranking weighs every cached recommendation by the catalog's production calls (planCached did).
      result = { queries: planned, indexes: rankIndexes(planned), warnings: cached.warnings };
    }
    report({ phase: 'saving', done: queries.length, total: queries.length }, true);
    await pending;
    await saveResults(db, id, environmentId, result);
  } catch (error) {
    await pending;
    const message = redactConnectionString(error instanceof Error ? error.message : String(error), source);
    await db
      .update(analysisRuns)
      .set({ status: 'failed', phase: 'failed', error: message, finishedAt: new Date() })
      .where(eq(analysisRuns.id, id));
  }
}

async function saveResults(db: Db, id: string, environmentId: string, result: AnalysisResult): Promise<void> {
  const analyzedAt = new Date().toISOString();
  const rows = result.queries.map((q) => ({
    hash: q.hash,
    cost: q.cost,
    plan_shape: q.planShape,
    plan: q.plan,
    plan_after: q.planAfter,
    recommendations: q.recommendations,
    recommendation_count: q.recommendations.length,
    total_saved: q.recommendations.reduce<number | null>((best, r) => Math.max(best ?? 0, r.totalSaved), null),
    error: q.error,
  }));
  await db.transaction(async (tx) => {
    // One set-based upsert of every query's latest analysis; analyses of queries no longer in the
    // catalog go with the old rows.
    await tx.execute(sql`DELETE FROM query_analyses WHERE environment_id = ${environmentId}`);
    if (rows.length > 0) {
      await tx.execute(sql`
        INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, plan, plan_after,
                                    recommendations, recommendation_count, total_saved, error, analyzed_at)
        SELECT ${environmentId}, r.hash, ${id}, r.cost, r.plan_shape, r.plan, r.plan_after,
               coalesce(r.recommendations, '[]'::jsonb), r.recommendation_count, r.total_saved, r.error, ${analyzedAt}::timestamptz
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(hash text, cost float8, plan_shape text, plan jsonb, plan_after jsonb,
             recommendations jsonb, recommendation_count int, total_saved float8, error text)
        ON CONFLICT (environment_id, hash) DO NOTHING`);
    }
    // CI runs stored before this analysis learn their queries' costs now (later runs get them at ingestion).
    await copyCostsToRuns(tx, { environmentId });
    await tx
      .update(analysisRuns)
      .set({
        status: 'done',
        phase: 'done',
        done: rows.length,
        total: rows.length,
        queryCount: rows.length,
        warnings: result.warnings,
        indexes: result.indexes,
        finishedAt: new Date(),
      })
      .where(eq(analysisRuns.id, id));
  });
}

/**
 * Analyses interrupted by a restart will never finish: say so instead of showing them running
 * forever. A CI run's verdict analysis too: its verdict then reads unavailable, with this reason.
 */
export async function failInterruptedAnalyses(db: Db): Promise<void> {
  await db.execute(
    sql`UPDATE analysis_runs SET status = 'failed', phase = 'failed', finished_at = now(),
          error = 'Interrupted: the server stopped while this analysis ran; start it again'
        WHERE status = 'running'`,
  );
  await db.execute(
    sql`UPDATE ci_run_analyses SET status = 'failed', analyzed_at = now(),
          reason = 'Interrupted: the server stopped while this run was analyzed'
        WHERE status = 'pending'`,
  );
}
