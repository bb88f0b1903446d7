// Making the demo, step by step, through the same code the API runs: the environment, its
// production connection (sealed like any other) and repository link, the production sync, a
// manual query, two CI runs ingested as POST /api/ci/runs ingests them (schema included, verdict
// scheduled), then Analyze; it ends when the pull request's verdict is in.
import { randomBytes } from 'node:crypto';
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { readRunSchema } from '../../analyzer/run-schema';
import { ingestRunInput } from '../../shared/ci';
import type { RunSchema } from '../../shared/run-schema';
import { startAnalysis, waitForAnalysis } from '../analysis/jobs';
import { latestAnalysis } from '../analysis/results';
import { addManualQuery } from '../catalog/manual';
import { syncProduction } from '../catalog/production-sync';
import { ciRuns } from '../db/schema';
import type { Db } from '../db/store';
import { addConnection } from '../domain/connections';
import { recordCiRun } from '../domain/ci-runs';
import { createEnvironment, deleteEnvironment } from '../domain/environments';
import { linkRepo } from '../domain/repos';
import type { Services } from '../services-type';
import { readVerdict } from '../verdict/read';
import { APP_QUERIES, DROPPED_INDEX, MANUAL_QUERY, PULL_REQUEST_QUERY } from './app-queries';
import { DEMO_DATABASE, loadPagila, READER_ROLE, runWorkload } from './database';
import { writeMarker, type DemoMarker } from './marker';
import { freePort, startDemoPostgres, type DemoPostgres } from './postgres';
import type { DemoStep, DemoStepKey } from './status';

export const DEMO_ENVIRONMENT = { name: 'Pagila demo', slug: 'pagila-demo' } as const;
export const DEMO_REPO = 'demo/pagila-app';
export const DEMO_CONNECTION_LABEL = 'Pagila (demo PostgreSQL)';
export const PULL_REQUEST = 42;
const VERDICT_WAIT_MS = 5 * 60_000;

export const readerConnectionString = (port: number, password: string) => `postgresql://${READER_ROLE}:${password}@127.0.0.1:${port}/${DEMO_DATABASE}`;

/** What a step reports while running: its state lives in `steps`, shown by the status endpoint. */
export interface StepRunner {
  steps: DemoStep[];
  run<T>(key: DemoStepKey, fn: (progress: (detail: string) => void) => Promise<{ value: T; detail: string }>): Promise<T>;
}

export function stepRunner(steps: DemoStep[], log: (line: string) => void): StepRunner {
  return {
    steps,
    async run(key, fn) {
      const step = steps.find((s) => s.key === key)!;
      const started = Date.now();
      step.status = 'running';
      try {
        const { value, detail } = await fn((detail) => (step.detail = detail));
        step.status = 'done';
        step.detail = detail;
        step.durationMs = Date.now() - started;
        log(`demo: ${step.label}: ${detail} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        return value;
      } catch (error) {
        step.status = 'failed';
        step.durationMs = Date.now() - started;
        throw error;
      }
    },
  };
}

/** CI runs of the demo's repository left by an earlier demo (runs outlive their environment): the next demo's run ids must be free. */
export async function deleteDemoRuns(db: Db, environmentId: string | null): Promise<void> {
  const ofRepo = eq(sql`lower(${ciRuns.repo})`, DEMO_REPO);
  await db
    .delete(ciRuns)
    .where(and(ofRepo, environmentId ? or(isNull(ciRuns.environmentId), eq(ciRuns.environmentId, environmentId)) : isNull(ciRuns.environmentId)));
}

const withoutIndex = (schema: RunSchema, name: string): RunSchema => ({ ...schema, indexes: schema.indexes.filter((index) => index[2] !== name) });

async function settledVerdict(db: Db, runId: string) {
  const deadline = Date.now() + VERDICT_WAIT_MS;
  for (;;) {
    const verdict = await readVerdict(db, runId);
    if (verdict.status !== 'pending') return verdict;
    if (Date.now() > deadline)
      throw new Error(`The verdict of the pull request's run was still pending after ${VERDICT_WAIT_MS / 60_000} minutes: ${verdict.reason ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface Made {
  postgres: DemoPostgres;
  marker: DemoMarker;
}

/** What every step of one demo shares: the services, the step runner and the marker it keeps current. */
interface Making {
  services: Services;
  runner: StepRunner;
  marker: DemoMarker;
}

/** Writes the marker as it is now, so a crash leaves what was made findable. */
const saveMarker = (m: Making) => writeMarker(m.services.config.dataDir, m.marker);

/**
 * Makes the demo. `onPostgres` hands the started server to the caller at once, so it can be
 * stopped if a later step fails. The marker is written before anything is made (state creating),
 * so what a crash leaves is found and cleaned up, and again as each id becomes known.
 */
export async function makeDemo(services: Services, runner: StepRunner, onPostgres: (postgres: DemoPostgres) => void): Promise<Made> {
  const superPassword = randomBytes(18).toString('hex');
  const readerPassword = randomBytes(18).toString('hex');
  const m: Making = {
    services,
    runner,
    marker: {
      version: 1,
      state: 'creating',
      port: await freePort(),
      readerPasswordSealed: services.secrets.encrypt(readerPassword),
      environmentId: null,
      baselineRunId: null,
      pullRequestRunId: null,
      startedAt: new Date().toISOString(),
      durationMs: null,
      steps: runner.steps,
    },
  };
  saveMarker(m);
  const started = Date.now();

  const postgres = await fillDatabase(m, superPassword, readerPassword, onPostgres);
  const connectionString = readerConnectionString(postgres.port, readerPassword);
  const environmentId = await makeEnvironment(m, connectionString);
  await collectQueries(m, environmentId);
  await ingestCiRuns(m, connectionString);
  await analyze(m, environmentId);
  await awaitVerdict(m);

  m.marker.state = 'ready';
  m.marker.durationMs = Date.now() - started;
  saveMarker(m);
  return { postgres, marker: m.marker };
}

/** The demo's own PostgreSQL, its Pagila data and a workload that fills pg_stat_statements. */
async function fillDatabase(m: Making, superPassword: string, readerPassword: string, onPostgres: (postgres: DemoPostgres) => void): Promise<DemoPostgres> {
  const { dataDir } = m.services.config;
  const postgres = await m.runner.run('database', async () => {
    const server = await startDemoPostgres(dataDir, m.marker.port, superPassword);
    onPostgres(server);
    return { value: server, detail: `127.0.0.1:${server.port}, pg_stat_statements preloaded, data in ${dataDir}/demo-postgres` };
  });
  await m.runner.run('data', async (progress) => {
    progress('generating customers, films, rentals and payments…');
    const { rows, tables } = await loadPagila(postgres.port, superPassword, readerPassword);
    return { value: undefined, detail: `${rows.toLocaleString('en-US')} rows in ${tables} tables` };
  });
  await m.runner.run('workload', async () => {
    const statements = await runWorkload(postgres.port, superPassword);
    return { value: undefined, detail: `${statements.toLocaleString('en-US')} statements of ${APP_QUERIES.length} kinds, reads and writes` };
  });
  return postgres;
}

/** The environment with its production connection and repository, made whole or not at all. */
function makeEnvironment(m: Making, connectionString: string): Promise<string> {
  const { db } = m.services.store;
  return m.runner.run('environment', async () => {
    await deleteDemoRuns(db, null);
    const { id } = await createEnvironment(db, DEMO_ENVIRONMENT);
    try {
      await addConnection(db, m.services.secrets, { id, label: DEMO_CONNECTION_LABEL, role: 'production', connectionString });
      await linkRepo(db, id, DEMO_REPO);
    } catch (error) {
      await deleteEnvironment(db, id).catch(() => undefined);
      throw error;
    }
    m.marker.environmentId = id;
    saveMarker(m);
    return { value: id, detail: `production connection as ${READER_ROLE} (read only), repository ${DEMO_REPO}` };
  });
}

/** The catalog's queries from production and one added by hand. */
async function collectQueries(m: Making, environmentId: string): Promise<void> {
  const { db } = m.services.store;
  await m.runner.run('production', async () => {
    const synced = await syncProduction(db, m.services.secrets, environmentId);
    return { value: undefined, detail: `${synced.queryCount} queries from production's pg_stat_statements` };
  });
  await m.runner.run('manual', async () => {
    await addManualQuery(db, environmentId, MANUAL_QUERY);
    return { value: undefined, detail: 'the yearly "inactive customers" report' };
  });
}

/** A run on main and a pull request's run, ingested as the CI endpoint ingests them. */
function ingestCiRuns(m: Making, connectionString: string): Promise<void> {
  const { services } = m;
  return m.runner.run('ci', async () => {
    // the CI database's schema, as `querytrail ci-report --db` reads it; the pull request's migration drops one index
    const schema = await readRunSchema(connectionString);
    const tested = APP_QUERIES.filter((q) => q.tested).map((q) => ({ query: q.sql, calls: 3 }));
    const baseline = await recordCiRun(
      services,
      ingestRunInput.parse({
        repo: DEMO_REPO,
        runId: '1001',
        branch: 'main',
        commitSha: 'a1b2c3d4e5f60718293a',
        startedAt: new Date().toISOString(),
        queries: tested,
        schema,
      }),
    );
    const pullRequest = await recordCiRun(
      services,
      ingestRunInput.parse({
        repo: DEMO_REPO,
        runId: '1002',
        branch: 'feature/rental-receipts',
        pullRequest: PULL_REQUEST,
        commitSha: 'f00dfeedbeefcafe1234',
        startedAt: new Date().toISOString(),
        queries: [...tested, { query: PULL_REQUEST_QUERY, calls: 3 }],
        schema: withoutIndex(schema, DROPPED_INDEX),
      }),
    );
    m.marker.baselineRunId = baseline.id;
    m.marker.pullRequestRunId = pullRequest.id;
    saveMarker(m);
    return {
      value: undefined,
      detail: `run 1001 on main (${baseline.queryCount} queries); run 1002 of pull request #${PULL_REQUEST} (${pullRequest.queryCount} queries, 1 new, drops ${DROPPED_INDEX})`,
    };
  });
}

/** Analyze, with its progress shown on the step while it runs. */
function analyze(m: Making, environmentId: string): Promise<void> {
  const { db } = m.services.store;
  return m.runner.run('analysis', async (progress) => {
    const { status } = await startAnalysis(m.services, environmentId);
    const job = waitForAnalysis(status.id);
    const timer = setInterval(() => {
      latestAnalysis(db, environmentId)
        .then((s) => progress(s.total ? `${s.phase ?? 'planning'}: ${s.done} of ${s.total}` : (s.phase ?? 'starting')))
        .catch(() => undefined);
    }, 500);
    try {
      await job;
    } finally {
      clearInterval(timer);
    }
    const done = await latestAnalysis(db, environmentId);
    if (done.status !== 'done') throw new Error(`The analysis did not finish: ${done.error ?? done.status}`);
    return { value: undefined, detail: `${done.total} queries planned, ${done.indexes.length} indexes recommended` };
  });
}

/** Both runs' verdicts settled; the pull request's is what the step reports. */
function awaitVerdict(m: Making): Promise<void> {
  const { db } = m.services.store;
  return m.runner.run('verdict', async (progress) => {
    progress('planning the runs against production…');
    await settledVerdict(db, m.marker.baselineRunId!);
    const verdict = await settledVerdict(db, m.marker.pullRequestRunId!);
    const failing = verdict.findings.filter((f) => f.severity === 'fail' && !f.acknowledged).length;
    const createIndex = verdict.findings.flatMap((f) => (f.kind === 'new_query_needs_index' ? f.recommendations.map((r) => r.createIndex) : []))[0];
    const summary = `${verdict.status === 'fail' ? 'Failed' : verdict.status}: ${failing} failing finding${failing === 1 ? '' : 's'}`;
    return { value: undefined, detail: createIndex ? `${summary}; ${createIndex}` : summary };
  });
}
