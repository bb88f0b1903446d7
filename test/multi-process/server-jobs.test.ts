// Background jobs across server processes on one PostgreSQL, as a company runs them: every verdict
// job runs once whichever server took the CI run; a server killed (SIGKILL) in the middle of a job
// leaves it to another server, which finishes it; a job killed on its last attempt is failed with a
// reason the user reads, and a server starting meanwhile interrupts nothing.
// The queue's heartbeat is set short (JOB_HEARTBEAT_SECONDS=10, its floor) so a dead server's job is
// taken over within seconds, not the default half minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { requestJson } from '../support/api';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { createEventsProduction, EVENTS_QUERIES } from '../support/events-production';
import { listening, startServerProcess, type ServerProcess } from './server-process';

let postgres: PostgresServer;
let productionUrl: string;
beforeAll(async () => {
  postgres = await startPostgres({ statStatements: false });
  productionUrl = await createEventsProduction(postgres);
}, 120_000);
afterAll(() => postgres?.stop());

const QUERIES = EVENTS_QUERIES;

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'qt-jobs-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function store(): Promise<{ name: string; env: Record<string, string> }> {
  const name = `qt_jobs_${randomBytes(4).toString('hex')}`;
  const url = await postgres.createDatabase(name);
  return {
    name,
    env: { DATABASE_URL: url, SECRET_KEY: 'one key for every server', JOB_HEARTBEAT_SECONDS: '10', JOB_POLL_SECONDS: '1', JOB_RETRY_DELAY_SECONDS: '1' },
  };
}

const start = (env: Record<string, string>) => listening(startServerProcess({ ...env, DATA_DIR: dataDir() }));

/**
 * SIGKILL. The shadow PostgreSQL it had started goes with it: its watchdog stops it and removes its
 * folder (shadow/postgres-process.ts; test/shadows/killed-server.test.ts), and the run's end checks
 * that nothing was left (test/global/nothing-left-behind.ts).
 */
async function killHard(server: ServerProcess): Promise<void> {
  await server.kill();
}

async function jobsOf(database: string, name: string) {
  return (
    await postgres.query<{ key: string; state: string; retry_count: number }>(
      'SELECT singleton_key AS key, state::text, retry_count FROM pgboss.job WHERE name = $1 ORDER BY singleton_key',
      [name],
      database,
    )
  ).rows;
}

/** Polls until the job keyed `key` is being run by some server. */
async function whenActive(database: string, name: string, key: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const [job] = (await jobsOf(database, name)).filter((j) => j.key === key);
    if (job?.state === 'active') return;
    if (job && job.state !== 'created' && job.state !== 'retry') throw new Error(`job ${key} is ${job.state} before it was seen running`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${key} never started`);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 180): Promise<T> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An environment with production and a linked repository, made through `server`. */
async function environment(server: ServerProcess): Promise<string> {
  const envId = (await requestJson(`${server.url}/api/env`, { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id as string;
  const added = await requestJson(`${server.url}/api/env/${envId}/connections`, {
    method: 'POST',
    json: { label: 'prod', role: 'production', connectionString: productionUrl },
  });
  expect(added.status).toBe(201);
  expect((await requestJson(`${server.url}/api/env/${envId}/repos`, { method: 'POST', json: { repo: 'acme/shop' } })).status).toBe(201);
  return envId;
}

const postRun = async (server: ServerProcess, runId: string) => {
  const res = await requestJson(`${server.url}/api/ci/runs`, {
    method: 'POST',
    json: { repo: 'acme/shop', runId, branch: `feature/${runId}`, queries: QUERIES.map((query) => ({ query, calls: 10 })) },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/**
 * A GET while polling. A server whose event loop was held past its keep-alive timeout (two servers,
 * their shadow clusters and the planning share two cores here) may close the idle socket just as it
 * is reused: that request is asked again; a server that exited is reported with what it printed.
 */
async function poll<T>(server: ServerProcess, path: string): Promise<T | undefined> {
  try {
    return (await requestJson(`${server.url}/api${path}`)).body as T;
  } catch (error) {
    if (server.output().includes('[exited')) throw new Error(`${server.url} exited; it printed:\n${server.output()}`, { cause: error });
    return undefined;
  }
}

const verdictOf = (server: ServerProcess, id: string) =>
  until(
    () => poll<{ status: string; reason?: string }>(server, `/ci/runs/${id}/verdict`),
    (v) => v !== undefined && v.status !== 'pending',
  );

const analysisOf = (server: ServerProcess, envId: string) =>
  until(
    () => poll<{ id: string; status: string; error?: string }>(server, `/env/${envId}/analyze`),
    (s) => s !== undefined && s.status !== 'running',
  );

describe('background jobs on two servers sharing one PostgreSQL', () => {
  it('runs each verdict job once, whichever server stored the run', async () => {
    const { name, env } = await store();
    const [a, b] = await Promise.all([start(env), start(env)]);
    await environment(a);
    const ids = await Promise.all(Array.from({ length: 6 }, (_, r) => postRun(r % 2 ? b : a, `run-${r}`)));
    for (const [r, id] of ids.entries()) {
      const verdict = await verdictOf(r % 2 ? a : b, id); // read through the other server
      expect(verdict?.status, verdict?.reason).toMatch(/^(pass|fail)$/);
    }
    // one job per run, each taken once (retry_count 0) and completed
    expect(await jobsOf(name, 'verdict')).toEqual(
      ids.map((id) => ({ key: id, state: 'completed', retry_count: 0 })).sort((x, y) => x.key.localeCompare(y.key)),
    );
    await Promise.all([a.stop(), b.stop()]);
  }, 300_000);

  it('finishes the job of a server killed in the middle of it on another server', async () => {
    const { name, env } = await store();
    const a = await start({ ...env, WARM_SHADOWS: '0' });
    await environment(a);
    const run = await postRun(a, 'run-killed');
    await whenActive(name, 'verdict', run);
    const killedAt = Date.now();
    await killHard(a);
    expect((await postgres.query('SELECT status FROM ci_run_analyses WHERE run_id = $1', [run], name)).rows).toEqual([{ status: 'pending' }]);

    const b = await start(env);
    const verdict = await verdictOf(b, run);
    // a figure for docs/teams.md, "Several servers on one PostgreSQL", not a check
    console.log(`verdict of the killed server's run finished by the other ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
    expect(verdict?.status, verdict?.reason).toMatch(/^(pass|fail)$/);
    // its second attempt, on b, finished it
    expect(await jobsOf(name, 'verdict')).toEqual([{ key: run, state: 'completed', retry_count: 1 }]);
    await b.stop();
  }, 300_000);

  it('fails a job killed on its last attempt with a reason the user reads; a server starting meanwhile interrupts nothing', async () => {
    const { name, env } = await store();
    // no retry: the first death is final; a 30 s heartbeat leaves b time to start while the job is orphaned
    const a = await start({ ...env, WARM_SHADOWS: '0', JOB_RETRY_LIMIT: '0', JOB_HEARTBEAT_SECONDS: '30' });
    const envId = await environment(a);
    for (const query of QUERIES) expect((await requestJson(`${a.url}/api/env/${envId}/queries`, { method: 'POST', json: { query } })).status).toBe(201);
    const started = await requestJson(`${a.url}/api/env/${envId}/analyze`, { method: 'POST', json: {} });
    expect(started.status).toBe(202);
    const analysisId = started.body.id as string;
    await whenActive(name, 'analyze', analysisId);
    await killHard(a);

    const b = await start({ ...env, JOB_HEARTBEAT_SECONDS: '30' });
    // starting b marked nothing: the analysis still runs (its job belongs to a's dead worker until its
    // heartbeat lapses), and asking again returns it rather than starting a second beside it
    const again = await requestJson(`${b.url}/api/env/${envId}/analyze`, { method: 'POST', json: {} });
    expect(again.body).toMatchObject({ id: analysisId, status: 'running' });

    const latest = await analysisOf(b, envId);
    expect(latest).toMatchObject({ id: analysisId, status: 'failed', error: 'Interrupted: the server running it stopped, on its one attempt; start it again' });
    expect(await jobsOf(name, 'analyze')).toEqual([{ key: analysisId, state: 'failed', retry_count: 0 }]);
    // and a new one can be started, and finishes
    const next = await requestJson(`${b.url}/api/env/${envId}/analyze`, { method: 'POST', json: {} });
    expect(next.status).toBe(202);
    expect((await analysisOf(b, envId))?.status).toBe('done');
    await b.stop();
  }, 300_000);
});
