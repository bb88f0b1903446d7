// npm run bench:verdict — how long a CI run waits for its verdict, against a full Analyze.
//
// Production is a real PostgreSQL 18 database with data (10 tables, BENCH_ROWS rows in the largest,
// a tenth of it in each other). querytrail runs as users run it (`tsx server/main.ts` in its own
// process, the store in DATA_DIR) and is driven only through its REST API:
//   1. a main run of 500 queries fills the catalog (before the production connection is added, so
//      nothing is planned for it); then the connection is added and Analyze runs with nothing
//      cached: the full analysis of this environment, and the catalog holds 500 analyzed queries;
//   2. the server restarts; a pull request's run of 500 queries, 50 of them new: time from the POST
//      to a verdict that is no longer pending, cold (first run after the start);
//   3. another such run (50 other new queries): warm;
//   4. Analyze again (600 queries, all planned by then): what the shared cache saves it.
// Prints a table. Options (environment): BENCH_ROWS (default 1000000), BENCH_STORE (pglite, or
// postgres: the store in a database of the same server).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprintOf, loadParser } from '../shared/sql-fingerprint';
import { freePort, startPostgres } from '../test/support/postgres';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const STORE = process.env.BENCH_STORE ?? 'pglite';
const TABLES = 10;
const CATALOG = 500;
const NEW_PER_RUN = 50;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const token = randomBytes(16).toString('hex');

const COLUMNS = ['account_id', 'status', 'kind', 'amount', 'created_at', 'ref', 'flag'] as const;

/** 60 query shapes per table, each its own fingerprint: 600 in all (500 for the catalog, 2 x 50 new). */
function queryShapes(): string[] {
  const out: string[] = [];
  for (let k = 0; k < TABLES; k++) {
    const t = `orders_${k}`;
    for (const c of COLUMNS) out.push(`SELECT id, amount FROM ${t} WHERE ${c} = $1`);
    for (const a of COLUMNS) for (const b of COLUMNS) if (a !== b) out.push(`SELECT id FROM ${t} WHERE ${a} = $1 AND ${b} > $2 ORDER BY id LIMIT 20`);
    for (const c of COLUMNS.slice(0, 6)) out.push(`SELECT ${c}, count(*) FROM ${t} GROUP BY ${c}`);
    for (const c of COLUMNS.slice(0, 5)) out.push(`SELECT * FROM ${t} WHERE ${c} IS NULL ORDER BY created_at DESC LIMIT 10`);
  }
  return out;
}

function loadSql(k: number): string {
  const rows = k === 0 ? ROWS : Math.round(ROWS / 10);
  return `
    CREATE TABLE orders_${k} (id bigint PRIMARY KEY, account_id int NOT NULL, status text, kind int, amount numeric,
                              created_at timestamptz, ref text, flag boolean);
    INSERT INTO orders_${k}
      SELECT g, ((g::bigint * 7919) % 50000)::int, (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4], g % 97, (g % 10000) / 100.0,
             timestamptz '2024-01-01' + (g % 500000) * interval '1 minute', 'r' || (g % 200000), g % 5 = 0
      FROM generate_series(1, ${rows}) g;
    CREATE INDEX orders_${k}_account ON orders_${k} (account_id);`;
}

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** querytrail as `npm run serve` starts it, on free ports, with this bench's data folder. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), ANALYZER_PORT: String(await freePort()), API_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${log}`);
    try {
      if ((await fetch(`${url}/api/env`, { headers: { authorization: `Bearer ${token}` } })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not answer within 60 s:\n${log}`);
    await sleep(100);
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api<T = unknown>(server: Server, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.url}/api${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  if (response.status >= 400) throw new Error(`${method} ${pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return { status: response.status, body: parsed };
}

interface Timed {
  seconds: number;
  status: string;
  detail: string;
}

/**
 * POST a run, then poll its verdict until it is no longer pending. The time is the server's own:
 * from just before the POST to the verdict's analyzedAt (same machine, same clock), so neither the
 * polling interval nor the polls themselves (each reads and judges the whole run) weigh on it.
 */
async function timedRun(server: Server, runId: string, branch: string, queries: string[]): Promise<Timed> {
  const run = { repo: 'bench/app', runId, branch, queries: queries.map((query) => ({ query, hash: fingerprintOf(query), calls: 1 })) };
  const t0 = Date.now();
  const posted = await api<{ id: string }>(server, 'POST', '/ci/runs', run);
  for (;;) {
    await sleep(250);
    const verdict = await api<{ status: string; reason: string | null; analyzedAt: string | null; summary: Record<string, number> }>(server, 'GET', `/ci/runs/${posted.body.id}/verdict`);
    if (verdict.body.status !== 'pending') {
      const seconds = (Date.parse(verdict.body.analyzedAt ?? new Date().toISOString()) - t0) / 1000;
      const s = verdict.body.summary;
      const detail = verdict.body.status === 'unavailable' ? (verdict.body.reason ?? '') : `${s.newQueries} new, ${s.needIndex} need an index, ${s.regressions} regressions`;
      return { seconds, status: verdict.body.status, detail };
    }
    if (Date.now() - t0 > 30 * 60_000) throw new Error(`run ${runId}: still pending after 30 minutes`);
  }
}

/** POST Analyze, then poll until it is done; timed like a run, to the analysis's finishedAt. */
async function timedAnalyze(server: Server, envId: string): Promise<Timed> {
  const t0 = Date.now();
  await api(server, 'POST', `/env/${envId}/analyze`);
  for (;;) {
    await sleep(250);
    const latest = await api<{ status: string; finishedAt: string | null; queryCount: number; error: string | null; indexes: unknown[] }>(server, 'GET', `/env/${envId}/analyze`);
    if (latest.body.status !== 'running') {
      const seconds = (Date.parse(latest.body.finishedAt ?? new Date().toISOString()) - t0) / 1000;
      return { seconds, status: latest.body.status, detail: latest.body.error ?? `${latest.body.queryCount} queries, ${latest.body.indexes.length} indexes recommended` };
    }
  }
}

async function main(): Promise<void> {
  await loadParser();
  const shapes = queryShapes();
  if (new Set(shapes.map((q) => fingerprintOf(q))).size !== shapes.length) throw new Error('two query shapes share a fingerprint');
  // a fixed shuffle, so the new queries are spread over the tables
  const order = shapes.map((q, i) => ({ q, key: (i * 7919) % shapes.length })).sort((a, b) => a.key - b.key).map((x) => x.q);
  const catalog = order.slice(0, CATALOG);
  const newA = order.slice(CATALOG, CATALOG + NEW_PER_RUN);
  const newB = order.slice(CATALOG + NEW_PER_RUN, CATALOG + 2 * NEW_PER_RUN);
  // a pull request's run: the catalog minus 50, plus 50 new
  const prRun = (fresh: string[]) => [...catalog.slice(NEW_PER_RUN), ...fresh];

  const pg = await startPostgres({ statStatements: false, settings: { max_wal_size: '4GB', maintenance_work_mem: '256MB' } });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-bench-verdict-'));
  let server: Server | undefined;
  try {
    const t = performance.now();
    const production = await pg.createDatabase('shop');
    for (let k = 0; k < TABLES; k++) await pg.query(loadSql(k), [], 'shop');
    await pg.query('VACUUM ANALYZE', [], 'shop');
    const loaded = (performance.now() - t) / 1000;
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (STORE === 'postgres') env.DATABASE_URL = await pg.createDatabase('querytrail');

    server = await startServer(env);
    const envId = (await api<{ id: string }>(server, 'POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
    await api(server, 'POST', `/env/${envId}/repos`, { repo: 'bench/app' });

    const rows: [string, number, string, Timed][] = [];
    const main = await timedRun(server, 'main-1', 'main', catalog);
    if (main.status !== 'unavailable') throw new Error(`the main run got a verdict (${main.status}) without a production connection`);
    await api(server, 'POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: production });
    const full = await timedAnalyze(server, envId);
    rows.push(['full Analyze, nothing cached (snapshot read + every query planned)', CATALOG, String(CATALOG), full]);

    await server.stop();
    server = await startServer(env);
    const cold = await timedRun(server, 'pr-1', 'feature/a', prRun(newA));
    rows.push(['pull request run, first after the server started (cold)', CATALOG, String(NEW_PER_RUN), cold]);
    const warm = await timedRun(server, 'pr-2', 'feature/b', prRun(newB));
    rows.push(['pull request run, the next one (warm)', CATALOG, String(NEW_PER_RUN), warm]);

    rows.push(['Analyze again, every query planned by then (the cache it shares with verdicts)', CATALOG + 2 * NEW_PER_RUN, '0', await timedAnalyze(server, envId)]);

    console.log(`# CI verdict benchmark\n`);
    console.log(`Production: PostgreSQL 18, ${TABLES} tables, ${ROWS.toLocaleString('en')} rows in the largest and ${Math.round(ROWS / 10).toLocaleString('en')} in each other (loaded in ${loaded.toFixed(0)} s); store: ${STORE}.\n`);
    console.log('| step | queries | not yet planned | seconds | result |');
    console.log('|---|---|---|---|---|');
    for (const [step, queries, fresh, r] of rows) console.log(`| ${step} | ${queries} | ${fresh} | ${r.seconds.toFixed(1)} | ${r.status}: ${r.detail} |`);
    console.log(`\nWarm verdict: ${warm.seconds.toFixed(1)} s, ${((warm.seconds / full.seconds) * 100).toFixed(0)}% of the full Analyze (goal: at most 10 s and 10%).`);
  } finally {
    await server?.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
