// The background analysis behind a CI run's verdict, queued (server/queue/) when a run of a linked
// repository is stored and run by whichever server process takes the job. It plans the run's
// queries on production's current snapshot with the run's own schema differences applied, and its baseline's queries on the same snapshot with the baseline's schema,
// through the plan cache (cache.ts): only queries never planned against that snapshot and
// schema cost anything. What it stores (ci_run_analyses, ci_run_query_plans) is judged on read
// (read.ts, evaluate.ts), so acknowledgements and policy changes apply without re-planning.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { applyRunSchema, queryRefs, ShadowBusyError, subsetSnapshot, type AppliedRunSchema, type QueryRefs, type Snapshot } from '../../advisor/index';
import { loadParser } from '../../shared/sql-fingerprint';
import { redactConnectionString } from '../../gateway/index';
import { defaultPolicy, policySchema } from '../../shared/policy';
import type { RunSchema } from '../../shared/run-schema';
import { ciRunAnalyses, ciRunQueries, ciRunQueryPlans, ciRunSchemas, ciRuns, environments } from '../db/schema';
import type { Db } from '../db/store';
import { requireProductionConnections } from '../domain/connections';
import type { Services } from '../services-type';
import type { RunningQueue } from '../queue/index';
import { planCached, type CachedPlan } from './cache';
import { warmShadows } from './shadows';
import { emitVerdictFailed } from '../webhooks/verdict-failed';
import { currentSnapshot } from './snapshots';
import { withStatisticsNotes } from './statistics-warnings';
import { insertRunQueryPlans, type RunQueryPlanRow } from './jobs.sql';
import { pairChangedQueries, type QueryPair } from './pairing';
import type { CallSite } from '../../shared/call-sites';

const VERDICT_JOB = 'verdict';

/** Verdict jobs sent by this process, by run id, so tests (and the bench) can wait for them. */
const sent = new Map<string, { queue: RunningQueue; jobId: string }>();

/** Resolves when the run's verdict analysis (if this process queued it) has finished, whichever process ran it. */
export async function waitForRunVerdict(runId: string): Promise<void> {
  const job = sent.get(runId);
  if (!job) return;
  await job.queue.settled(VERDICT_JOB, job.jobId);
  sent.delete(runId);
}

/**
 * Every server process plans verdicts. A job whose workers all stopped (or that threw on every
 * attempt) leaves its run's verdict failed with the reason, never pending forever.
 */
export async function registerVerdictJobs(services: Services): Promise<void> {
  await services.queue.work<{ runId: string }>(VERDICT_JOB, ({ runId }) => runVerdictJob(services, runId), {
    // planning itself is bounded by the shadow slots; this lets runs that need no planning pass
    concurrency: 4,
    onFailed: async ({ runId }, reason) => {
      await services.store.db
        .update(ciRunAnalyses)
        .set({ status: 'failed', reason, analyzedAt: new Date() })
        .where(and(eq(ciRunAnalyses.runId, runId), eq(ciRunAnalyses.status, 'pending')));
    },
  });
}

/** What the verdict job reads of a run. */
const runColumns = { id: ciRuns.id, repo: ciRuns.repo, branch: ciRuns.branch, environmentId: ciRuns.environmentId, createdAt: ciRuns.createdAt };

interface RunRow {
  id: string;
  repo: string;
  branch: string | null;
  environmentId: string | null;
  createdAt: Date;
}

async function runVerdictJob(services: Services, runId: string): Promise<void> {
  const [run] = await services.store.db
    .select(runColumns)
    .from(ciRuns)
    .innerJoin(ciRunAnalyses, eq(ciRunAnalyses.runId, ciRuns.id))
    .where(and(eq(ciRuns.id, runId), eq(ciRunAnalyses.status, 'pending')));
  // gone, or already analyzed by an attempt that stopped before completing its job
  if (!run?.environmentId) return;
  await analyzeRun(services, run);
}

/** Why a verdict cannot be had, said where the user reads it; never blocks the run. */
class Unavailable extends Error {}

/**
 * Starts the verdict analysis of a newly stored run: a 'pending' row now, the planning as a job
 * keyed by the run id (not awaited). A run tagged with no environment gets nothing (its verdict reads
 * "not linked"); an environment without a production connection gets 'unavailable' at once.
 */
export async function scheduleRunVerdict(services: Services, runId: string): Promise<void> {
  const { db } = services.store;
  const [run] = await db.select(runColumns).from(ciRuns).where(eq(ciRuns.id, runId));
  if (!run?.environmentId) return;
  const unavailable = await productionMissing(services, run.environmentId);
  const inserted = await db
    .insert(ciRunAnalyses)
    .values({ runId, status: unavailable ? 'unavailable' : 'pending', reason: unavailable ?? null, analyzedAt: unavailable ? new Date() : null })
    .onConflictDoNothing()
    .returning({ runId: ciRunAnalyses.runId });
  if (unavailable || inserted.length === 0) return;
  let jobId: string | null;
  try {
    jobId = await services.queue.send(VERDICT_JOB, { runId }, { singletonKey: runId });
  } catch (error) {
    // the run is stored; its verdict says why it will not come rather than stay pending
    const reason = `Not queued: ${error instanceof Error ? error.message : String(error)}`;
    await db.update(ciRunAnalyses).set({ status: 'failed', reason, analyzedAt: new Date() }).where(eq(ciRunAnalyses.runId, runId));
    return;
  }
  if (jobId) {
    sent.set(runId, { queue: services.queue, jobId });
    // a long-lived server queues many; a waiter asks soon after
    if (sent.size > 500) sent.delete(sent.keys().next().value!);
  }
}

async function productionMissing(services: Services, environmentId: string): Promise<string | undefined> {
  try {
    await requireProductionConnections(services.store.db, services.secrets, environmentId, 'so CI runs can be planned against its statistics');
    return undefined;
  } catch (error) {
    // requireProductionConnections words it for the user; an unknown environment cannot happen for a tagged run
    return error instanceof Error ? error.message : String(error);
  }
}

/** Progress writes at most every 250 ms, in order. */
function progressWriter(db: Db, runId: string) {
  let lastWrite = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const write = (done: number, total: number, force = false) => {
    const now = Date.now();
    if (!force && now - lastWrite < 250) return;
    lastWrite = now;
    pending = pending.then(() =>
      db
        .update(ciRunAnalyses)
        .set({ done, total })
        .where(eq(ciRunAnalyses.runId, runId))
        .catch(() => undefined),
    );
  };
  return { write, flush: () => pending };
}

// A run's verdict is made in steps, each over what the ones before it found: what the run is
// compared with (its baseline, both schemas and query lists, the pairs of edited queries), the
// schemas to plan on (production's snapshot, scoped to those queries, with each side's schema
// differences applied), the plans, then one row per query, stored in one transaction.
async function analyzeRun(services: Services, run: RunRow): Promise<void> {
  const { db } = services.store;
  const environmentId = run.environmentId!;
  const progress = progressWriter(db, run.id);
  let connectionString = '';
  try {
    const connections = await requireProductionConnections(db, services.secrets, environmentId, 'so CI runs can be planned against its statistics').catch(
      (error: Error) => {
        throw new Unavailable(error.message);
      },
    );
    connectionString = connections[0].connectionString;
    const comparison = await readComparison(db, run);
    const schemas = await planningSchemas(services, environmentId, comparison);
    const plans = await planQueries(services, environmentId, comparison, schemas, progress);
    const rows = verdictRows(comparison, schemas, plans);
    await progress.flush();
    await storeVerdict(db, run.id, comparison, schemas, plans, rows);
    await emitVerdictFailed(services, run.id);
  } catch (error) {
    await progress.flush();
    const message = error instanceof Error ? error.message : String(error);
    await db
      .update(ciRunAnalyses)
      .set({
        status: error instanceof Unavailable ? 'unavailable' : 'failed',
        reason: error instanceof Unavailable ? message : redactConnectionString(message, connectionString),
        analyzedAt: new Date(),
      })
      .where(eq(ciRunAnalyses.runId, run.id));
  }
}

interface RunQuery {
  hash: string;
  query: string;
  calls?: number;
  callSites: CallSite[];
}

/** What the run is compared with, read and paired before anything is planned. */
interface Comparison {
  baseline: string | null;
  runSchema: RunSchema | null;
  baselineSchema: RunSchema | null;
  queries: RunQuery[];
  /** The baseline's queries whose plans matter: the ones the run shares, and the ones its new queries edit. */
  shared: RunQuery[];
  sharedHashes: Set<string>;
  /** A run query absent from the baseline, by hash, paired with the baseline query it edits. */
  pairs: Map<string, QueryPair>;
}

async function readComparison(db: Db, run: RunRow): Promise<Comparison> {
  const baseline = await findBaseline(db, run);
  const runSchema = await storedSchema(db, run.id);
  const baselineSchema = baseline ? await storedSchema(db, baseline) : null;
  const queries = await runQueries(db, run.id);
  const baselineQueries = baseline ? await runQueries(db, baseline) : [];
  const runHashes = new Set(queries.map((q) => q.hash));
  const baselineHashes = new Set(baselineQueries.map((q) => q.hash));
  // Only the shared queries' baseline costs matter, and those of the baseline queries the run's
  // new ones are edits of (pairing.ts): a run query absent from the baseline is new or changed.
  const sharedHashes = new Set(baselineQueries.filter((q) => runHashes.has(q.hash)).map((q) => q.hash));
  await loadParser();
  const pairs = new Map(
    pairChangedQueries(
      queries.filter((q) => !baselineHashes.has(q.hash)),
      baselineQueries.filter((q) => !runHashes.has(q.hash)),
    ).map((pair) => [pair.hash, pair]),
  );
  const pairedHashes = new Set([...pairs.values()].map((pair) => pair.baselineHash));
  const shared = baselineQueries.filter((q) => sharedHashes.has(q.hash) || pairedHashes.has(q.hash));
  return { baseline, runSchema, baselineSchema, queries, shared, sharedHashes, pairs };
}

/** The schemas the run's and the baseline's queries are planned on, all from one stored snapshot. */
interface PlanningSchemas {
  snapshotId: string;
  /** The whole snapshot is rebuilt in the shadow (VERDICT_SNAPSHOT=full). */
  whole: boolean;
  production: Snapshot;
  applied: AppliedRunSchema;
  baselineApplied: AppliedRunSchema;
}

async function planningSchemas(
  services: Services,
  environmentId: string,
  { queries, shared, runSchema, baselineSchema }: Comparison,
): Promise<PlanningSchemas> {
  // Only what these queries need of production is read (or added to the stored snapshot) and
  // planned on; the run's schema differences are applied to that part (run-schema.ts).
  // VERDICT_SNAPSHOT=full (config.ts): production's whole schema, as before verdicts were scoped;
  // kept for comparison (npm run bench:verdict) and as a way back
  const whole = services.config.verdictSnapshot === 'full';
  const refs = whole ? undefined : withRunTypes(queryRefs([...queries, ...shared].map((q) => q.query)), runSchema, baselineSchema);
  const snapshot = await currentSnapshot(services, environmentId, { maxAgeMs: services.config.snapshotMaxAgeSeconds * 1000, ...(refs && { scope: refs }) });
  const production = refs ? subsetSnapshot(snapshot.snapshot, refs) : snapshot.snapshot;
  // Without the run's schema there is nothing to apply, to the run or (for a like comparison) to its baseline.
  const applied = runSchema ? applyRunSchema(production, runSchema, baselineSchema) : unchanged(production);
  const baselineApplied = runSchema && baselineSchema ? applyRunSchema(production, baselineSchema, baselineSchema) : unchanged(production);
  return { snapshotId: snapshot.id, whole, production, applied, baselineApplied };
}

interface Plans {
  run: Map<string, CachedPlan>;
  baseline: Map<string, CachedPlan>;
  /** The run's queries on production's own schema (the run's plans when it drops no index). */
  production: Map<string, CachedPlan>;
  /** Queries planned, each list counted: the progress's total. */
  total: number;
}

async function planQueries(
  services: Services,
  environmentId: string,
  { queries, shared }: Comparison,
  { snapshotId, whole, production, applied, baselineApplied }: PlanningSchemas,
  progress: ReturnType<typeof progressWriter>,
): Promise<Plans> {
  // lost_index needs the indexes a query uses with production's own schema, where the dropped ones still exist.
  const needProduction = applied.droppedIndexes.length > 0 && applied.digest !== '';
  const total = queries.length + shared.length + (needProduction ? queries.length : 0);
  let offset = 0;
  const plan = async (digest: string, planned: Snapshot, list: RunQuery[]) => {
    const base = offset;
    offset += list.length;
    const result = await whenNotBusy(() =>
      planCached(services.store.db, {
        environmentId,
        snapshotId,
        snapshot: planned,
        digest,
        queries: list,
        shadows: warmShadows(services.config),
        fullShadow: whole,
        // the plans themselves, for the verdict's plan diff and causes
        withPlans: true,
        onProgress: (done) => progress.write(base + done, total),
      }),
    );
    return result.plans;
  };
  progress.write(0, total, true);
  const run = await plan(applied.digest, applied.snapshot, queries);
  const baseline = await plan(baselineApplied.digest, baselineApplied.snapshot, shared);
  return { run, baseline, production: needProduction ? await plan('', production, queries) : run, total };
}

/** One row per run query: its plan beside its baseline's (the same query's, or the one it edits). */
function verdictRows(
  { queries, sharedHashes, pairs, runSchema, baselineSchema }: Comparison,
  { production, applied }: PlanningSchemas,
  plans: Plans,
): RunQueryPlanRow[] {
  const removed = runSchema && baselineSchema ? indexesRemoved(baselineSchema, runSchema) : new Set<string>();
  return queries.map((q) => {
    const own = plans.run.get(q.hash);
    const inBaseline = sharedHashes.has(q.hash);
    const pair = pairs.get(q.hash);
    const baselinePlan = inBaseline ? plans.baseline.get(q.hash) : pair ? plans.baseline.get(pair.baselineHash) : undefined;
    return {
      hash: q.hash,
      cost: own?.cost ?? null,
      in_baseline: inBaseline,
      baseline_cost: baselinePlan?.cost ?? null,
      recommendations: (own?.recommendations ?? []).map((r) => ({ createIndex: r.createIndex, costAfter: r.costAfter, savedPct: r.savedPct })),
      indexes_used: plans.production.get(q.hash)?.indexesUsed ?? [],
      schema_notes: withStatisticsNotes(schemaNotes(own, applied, baselinePlan, removed), production, own),
      error: own?.error ?? null,
      plan: own?.plan ?? null,
      baseline_plan: baselinePlan?.plan ?? null,
      paired_hash: pair?.baselineHash ?? null,
      pairing: pair?.reason ?? null,
    };
  });
}

/** The run's rows replace any an earlier attempt stored, and the verdict is done, in one transaction. */
async function storeVerdict(
  db: Db,
  runId: string,
  { baseline }: Comparison,
  { snapshotId, applied }: PlanningSchemas,
  { total }: Plans,
  rows: RunQueryPlanRow[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(ciRunQueryPlans).where(eq(ciRunQueryPlans.runId, runId));
    // raw, unlike the delete: a run's rows are many, and jobs.sql.ts binds them as one parameter
    if (rows.length > 0) await tx.execute(insertRunQueryPlans(runId, rows));
    await tx
      .update(ciRunAnalyses)
      .set({
        status: 'done',
        reason: null,
        snapshotId,
        baselineRunId: baseline,
        schemaDigest: applied.digest,
        droppedIndexes: applied.droppedIndexes,
        runNotes: applied.runNotes,
        done: total,
        total,
        analyzedAt: new Date(),
      })
      .where(eq(ciRunAnalyses.runId, runId));
  });
}

/** A burst of CI runs can fill the shadow queue; a run's verdict waits its turn rather than fail. */
const BUSY_RETRIES = 60;
const BUSY_WAIT_MS = 2000;

async function whenNotBusy<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof ShadowBusyError) || attempt >= BUSY_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
    }
  }
}

/**
 * The names of the types a run's (or its baseline's) columns are declared with, beside the
 * queries' names: a table or column the run adds may use production's enum or domain, which
 * the snapshot must then hold.
 */
function withRunTypes(refs: QueryRefs, ...schemas: (RunSchema | null)[]): QueryRefs {
  const types = new Map(refs.types.map((t) => [JSON.stringify(t), t]));
  for (const schema of schemas) {
    for (const [, , , type] of schema?.columns ?? []) {
      const base = type
        .replace(/(\[\d*\])+$/, '')
        .replace(/\(.*\)$/, '')
        .trim();
      const m = /^(?:("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\.)?("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)$/.exec(base);
      if (!m) continue;
      const unquote = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s);
      const name = { ...(m[1] !== undefined && { schema: unquote(m[1]) }), name: unquote(m[2]!) };
      types.set(JSON.stringify(name), name);
    }
  }
  return { ...refs, types: [...types.values()] };
}

/** Production's own schema: nothing applied. */
const unchanged = (snapshot: Snapshot): AppliedRunSchema => ({ snapshot, digest: '', tableNotes: {}, runNotes: [], droppedIndexes: [] });

/**
 * The notes of every table the query's plan reads, and of every index its baseline's plan read that
 * the run's schema removes (production may never have had it), once each, in a fixed order.
 */
function schemaNotes(plan: CachedPlan | undefined, applied: AppliedRunSchema, baselinePlan: CachedPlan | undefined, removed: ReadonlySet<string>): string[] {
  const notes = new Set<string>();
  for (const table of plan?.tablesUsed ?? []) for (const note of applied.tableNotes[table] ?? []) notes.add(note);
  for (const index of baselinePlan?.indexesUsed ?? []) if (removed.has(index)) notes.add(`index ${index} is dropped in this run`);
  return [...notes].sort();
}

/** Indexes (schema.name) the baseline's schema has and the run's lacks. */
function indexesRemoved(baseline: RunSchema, run: RunSchema): Set<string> {
  const kept = new Set(run.indexes.map(([schema, , name]) => `${schema}.${name}`));
  return new Set(baseline.indexes.map(([schema, , name]) => `${schema}.${name}`).filter((index) => !kept.has(index)));
}

/**
 * The run it is compared with: the latest earlier run of the same repository in the environment,
 * on the policy's comparison branch (for a run on that branch, its previous run). "Earlier" is by
 * (created_at, id), as run-diff.sql.ts orders runs.
 */
async function findBaseline(db: Db, run: RunRow): Promise<string | null> {
  const [environment] = await db.select({ policy: environments.policy }).from(environments).where(eq(environments.id, run.environmentId!));
  const parsed = policySchema.safeParse(environment?.policy ?? {});
  const branch = (parsed.success ? parsed.data : defaultPolicy()).comparisonBranch;
  const [baseline] = await db
    .select({ id: ciRuns.id })
    .from(ciRuns)
    .where(
      and(
        eq(sql`lower(${ciRuns.repo})`, sql`lower(${run.repo})`),
        eq(ciRuns.environmentId, run.environmentId!),
        eq(ciRuns.branch, branch),
        sql`(${ciRuns.createdAt}, ${ciRuns.id}) < (${run.createdAt.toISOString()}::timestamptz, ${run.id})`,
      ),
    )
    .orderBy(desc(ciRuns.createdAt), desc(ciRuns.id))
    .limit(1);
  return baseline?.id ?? null;
}

async function storedSchema(db: Db, runId: string): Promise<RunSchema | null> {
  const [row] = await db.select({ schema: ciRunSchemas.schema }).from(ciRunSchemas).where(eq(ciRunSchemas.runId, runId));
  return row?.schema ?? null;
}

async function runQueries(db: Db, runId: string): Promise<RunQuery[]> {
  const rows = await db
    .select({ hash: ciRunQueries.hash, query: ciRunQueries.query, calls: ciRunQueries.calls, callSites: ciRunQueries.callSites })
    .from(ciRunQueries)
    .where(eq(ciRunQueries.runId, runId))
    .orderBy(asc(ciRunQueries.hash));
  return rows.map((r) => ({ hash: r.hash, query: r.query, calls: r.calls ?? undefined, callSites: r.callSites ?? [] }));
}
