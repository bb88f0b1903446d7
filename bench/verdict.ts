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
// Then a cold verdict on a large schema: production is PostgreSQL 15 holding GitLab's
// structure.sql ten times, in tenant schemas t1..t10 (8,930 tables, 36,420 indexes), rows and
// statistics in the ten tables a pull request's ten queries touch. The server is started afresh
// (new data folder: nothing stored, nothing cached) and the run's verdict timed twice in the same
// bench run: reading and rebuilding production's whole schema (VERDICT_SNAPSHOT=full, as verdicts
// did before they read only what their queries need) and reading only what the queries need; with
// the server's peak resident memory during each (sampled from /proc), and whether both verdicts
// hold the same costs and recommendations.
// Prints tables. Options (environment): BENCH_ROWS (default 1000000), BENCH_STORE (pglite, or
// postgres: the store in a database of the same server), BENCH_PARTS (shop,tenants: which parts run),
// BENCH_TENANT_ROWS (rows in each of the ten tables, default 50000), BENCH_TENANTS_URL (a
// PostgreSQL database already holding the ten tenants: not loaded again, its ten tables filled
// when empty), BENCH_CPU_PROF (a folder: each server writes a CPU profile there when it stops),
// BENCH_BASELINE_REF (a commit: the scoped cold verdict is also made by the server of that commit,
// checked out into a temporary worktree, in rounds A B B A with today's, so the event loop's stalls
// are compared on the same machine at the same moment).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { fingerprintOf, loadParser } from '../shared/sql-fingerprint';
import { gitlabTenantSql, loadTenants } from '../test/support/analyzer';
import { freePort, startPostgres } from '../test/support/postgres';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'shop,tenants').split(',').map((p) => p.trim()));
const TENANT_ROWS = Number(process.env.BENCH_TENANT_ROWS ?? 50_000);
const TENANTS = 10;
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
  /** The server's process, for its memory. */
  pid: number;
  /** The event loop's delays since the last call (bench/event-loop.mjs, preloaded into the server). */
  loopDelay(): Promise<LoopDelay>;
  /** What it printed. */
  log(): string;
  stop(): Promise<void>;
}

/** querytrail as `npm run serve` starts it, on free ports, with this bench's data folder; from another checkout if given. */
async function startServer(env: Record<string, string>, checkout = root): Promise<Server> {
  const port = await freePort();
  const loopFile = path.join(env.DATA_DIR ?? tmpdir(), `event-loop-${port}.json`);
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const loopWatch = path.join(root, 'bench', 'event-loop.mjs');
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', '--import', loopWatch, 'server/main.ts'], {
    cwd: checkout,
    env: { ...process.env, ...env, PORT: String(port), ANALYZER_PORT: String(await freePort()), API_TOKEN: token, EVENT_LOOP_FILE: loopFile },
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
  let sequence = 0;
  return {
    url,
    pid: child.pid!,
    async loopDelay() {
      sequence++;
      child.kill('SIGUSR2');
      for (;;) {
        try {
          const seen = JSON.parse(readFileSync(loopFile, 'utf8')) as LoopDelay & { sequence: number };
          if (seen.sequence === sequence) return { maxMs: seen.maxMs, p99Ms: seen.p99Ms };
        } catch {
          // not written yet, or being written
        }
        await sleep(20);
      }
    },
    log: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface LoopDelay {
  /** The event loop's longest stall, in ms. */
  maxMs: number;
  p99Ms: number;
}

/**
 * What a user polling the API sees while `work` runs: a light request (the environments list)
 * every 200 ms, each on its own connection; the slowest answer, in ms (a request that fails counts
 * for the time it took to fail), and how many failed. With the server's event loop delays meanwhile.
 */
async function whileResponsive<T>(
  server: Server,
  work: () => Promise<T>,
): Promise<{ result: T; slowestMs: number; polls: number; failed: number; loop: LoopDelay }> {
  await server.loopDelay();
  let slowestMs = 0;
  let polls = 0;
  let failed = 0;
  let done = false;
  const poller = (async () => {
    while (!done) {
      const asked = performance.now();
      try {
        const response = await fetch(`${server.url}/api/env`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
        await response.text();
        if (!response.ok) failed++;
      } catch {
        failed++;
      }
      polls++;
      const took = performance.now() - asked;
      slowestMs = Math.max(slowestMs, took);
      await sleep(Math.max(0, 200 - took));
    }
  })();
  try {
    const result = await work();
    return { result, slowestMs, polls, failed, loop: await server.loopDelay() };
  } finally {
    done = true;
    await poller;
  }
}

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
  /** The run's stored id (runs only). */
  id?: string;
  /** The slowest answer to a poll of the verdict while it was pending, in seconds: how long the server stalled. */
  slowestPoll?: number;
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
  let slowestPoll = 0;
  for (;;) {
    await sleep(250);
    type Verdict = { status: string; reason: string | null; analyzedAt: string | null; summary: Record<string, number> };
    const asked = performance.now();
    let verdict: { body: Verdict };
    try {
      verdict = await api<Verdict>(server, 'GET', `/ci/runs/${posted.body.id}/verdict`);
    } catch (error) {
      // a server that stalls longer than its keep-alive lets a kept connection drop under a poll: ask again
      if (!(error instanceof TypeError)) throw error;
      slowestPoll = Math.max(slowestPoll, (performance.now() - asked) / 1000);
      continue;
    }
    slowestPoll = Math.max(slowestPoll, (performance.now() - asked) / 1000);
    if (verdict.body.status !== 'pending') {
      const seconds = (Date.parse(verdict.body.analyzedAt ?? new Date().toISOString()) - t0) / 1000;
      const s = verdict.body.summary;
      const detail =
        verdict.body.status === 'unavailable' ? (verdict.body.reason ?? '') : `${s.newQueries} new, ${s.needIndex} need an index, ${s.regressions} regressions`;
      return { seconds, status: verdict.body.status, detail, id: posted.body.id, slowestPoll };
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
    const latest = await api<{ status: string; finishedAt: string | null; queryCount: number; error: string | null; indexes: unknown[] }>(
      server,
      'GET',
      `/env/${envId}/analyze`,
    );
    if (latest.body.status !== 'running') {
      const seconds = (Date.parse(latest.body.finishedAt ?? new Date().toISOString()) - t0) / 1000;
      return {
        seconds,
        status: latest.body.status,
        detail: latest.body.error ?? `${latest.body.queryCount} queries, ${latest.body.indexes.length} indexes recommended`,
      };
    }
  }
}

async function shop(): Promise<void> {
  const shapes = queryShapes();
  if (new Set(shapes.map((q) => fingerprintOf(q))).size !== shapes.length) throw new Error('two query shapes share a fingerprint');
  // a fixed shuffle, so the new queries are spread over the tables
  const order = shapes
    .map((q, i) => ({ q, key: (i * 7919) % shapes.length }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.q);
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

    rows.push([
      'Analyze again, every query planned by then (the cache it shares with verdicts)',
      CATALOG + 2 * NEW_PER_RUN,
      '0',
      await timedAnalyze(server, envId),
    ]);

    console.log(`# CI verdict benchmark\n`);
    console.log(
      `Production: PostgreSQL 18, ${TABLES} tables, ${ROWS.toLocaleString('en')} rows in the largest and ${Math.round(ROWS / 10).toLocaleString('en')} in each other (loaded in ${loaded.toFixed(0)} s); store: ${STORE}.\n`,
    );
    console.log('| step | queries | not yet planned | seconds | result |');
    console.log('|---|---|---|---|---|');
    for (const [step, queries, fresh, r] of rows) console.log(`| ${step} | ${queries} | ${fresh} | ${r.seconds.toFixed(1)} | ${r.status}: ${r.detail} |`);
    console.log(
      `\nWarm verdict: ${warm.seconds.toFixed(1)} s, ${((warm.seconds / full.seconds) * 100).toFixed(0)}% of the full Analyze (goal: at most 10 s and 10%).`,
    );
  } finally {
    await server?.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The stall figures of the cold verdicts before verdicts' CPU work left the event loop (commit
 * 0d51ae6, this bench, this 2-core machine at a load of 10-13 from other work), printed beside today's.
 */
const STALL_BASELINE_OF = 'commit 0d51ae6';
const STALL_BASELINE: Record<string, { maxMs: number; p99Ms: number; slowestRequestMs: number; requests: string }> = {
  'whole schema read and rebuilt (VERDICT_SNAPSHOT=full)': { maxMs: 30853, p99Ms: 57, slowestRequestMs: 30885, requests: '901 (0)' },
  'only what the queries need': { maxMs: 865, p99Ms: 156, slowestRequestMs: 824, requests: '27 (0)' },
};

/** A pull request's ten queries, one table of one tenant each. */
const TENANT_QUERIES = [
  'SELECT id, title FROM t1.issues WHERE project_id = $1 AND state_id = $2 ORDER BY created_at DESC LIMIT 20',
  'SELECT id FROM t2.merge_requests WHERE target_project_id = $1 AND state_id = $2',
  'SELECT * FROM t3.projects WHERE namespace_id = $1 AND archived = false',
  'SELECT status, count(*) FROM t4.ci_pipelines WHERE project_id = $1 GROUP BY status',
  "SELECT * FROM t5.notes WHERE noteable_type = 'Issue' AND noteable_id = $1",
  'SELECT id FROM t6.users WHERE username = $1',
  'SELECT * FROM t7.p_ci_builds WHERE commit_id = $1 AND partition_id = 100',
  'SELECT * FROM t8.namespaces WHERE parent_id = $1',
  'SELECT * FROM t9.events WHERE author_id = $1 ORDER BY id DESC LIMIT 20',
  'SELECT title FROM t10.labels WHERE project_id = $1 ORDER BY title',
];

type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/**
 * `rows` made-up rows in a table (or, for a partitioned one, its first list partition), every
 * column given a value of its type: ids and the last column of each unique index distinct, the
 * rest repeating (so statistics have common values). Foreign keys and triggers are off.
 */
async function fillTable(query: Query, schema: string, table: string, rows: number): Promise<string> {
  let target = table;
  const fixed = new Map<string, string>();
  const partition = await query(
    `SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound, pg_get_partkeydef(p.oid) AS key
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace
     WHERE n.nspname = $1 AND p.relname = $2 AND p.relkind = 'p' ORDER BY 1 LIMIT 1`,
    [schema, table],
  );
  if (partition.rows[0]) {
    const { relname, bound, key } = partition.rows[0] as { relname: string; bound: string; key: string };
    const column = /^LIST \((\w+)\)$/.exec(key)?.[1];
    const value = /^FOR VALUES IN \(('[^']*'|\d+)\)$/.exec(bound)?.[1];
    if (!column || !value) throw new Error(`${schema}.${table}: partitioned by ${key}, ${bound}: not filled`);
    target = relname;
    fixed.set(column, value);
  }
  const columns = await query(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typcategory AS category, t.typtype, a.attnotnull AS notnull,
            a.atthasdef AS hasdef, a.attgenerated <> '' OR a.attidentity <> '' AS skip,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND a.attnum = i.indkey[i.indnkeyatts - 1]) AS distinct
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid
     WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [schema, target],
  );
  interface Column {
    name: string;
    type: string;
    category: string;
    typtype: string;
    notnull: boolean;
    hasdef: boolean;
    skip: boolean;
    distinct: boolean;
  }
  const valueOf = (c: Column, allDistinct: boolean) => {
    if (fixed.has(c.name)) return fixed.get(c.name)!;
    const distinct = allDistinct || c.distinct || c.name === 'id';
    const n = distinct ? 'g' : c.name.endsWith('_id') ? '(1 + (g * 7919) % 2000)' : '(g % 7)';
    if (c.typtype === 'e') return `(enum_range(NULL::${c.type}))[1]`;
    switch (c.category) {
      case 'N':
        return c.type === 'smallint' ? `(${n} % 32000)::smallint` : `${n}::${c.type}`;
      case 'S':
        return `('v' || ${n})::${c.type}`;
      case 'B':
        return `${n} % 2 = 0`;
      case 'D':
        return `(timestamptz '2024-01-01' + ${n} * interval '1 minute')::${c.type}`;
      case 'A':
        return `'{}'::${c.type}`;
      case 'I':
        return `('10.0.' || (${n} % 250) || '.1')::${c.type}`;
      default:
        if (c.type === 'jsonb' || c.type === 'json') return `'{}'::${c.type}`;
        if (c.type === 'bytea') return `decode(md5(${n}::text), 'hex')`;
        if (c.type === 'uuid') return `md5(${n}::text)::uuid`;
        return undefined;
    }
  };
  for (const allDistinct of [false, true]) {
    const picked = (columns.rows as Column[])
      .filter((c) => !c.skip)
      .map((c) => ({ c, value: valueOf(c, allDistinct) }))
      .filter(({ c, value }) => value !== undefined && (c.notnull || !c.hasdef || fixed.has(c.name)));
    const names = picked.map(({ c }) => pg.escapeIdentifier(c.name)).join(', ');
    try {
      await query(
        `SET session_replication_role = replica;
         INSERT INTO ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(target)} (${names}) SELECT ${picked.map((p) => p.value).join(', ')} FROM generate_series(1, ${rows}) g;
         RESET session_replication_role;`,
      );
      return `${schema}.${target}`;
    } catch (error) {
      if (allDistinct) throw new Error(`${schema}.${target} could not be filled: ${(error as Error).message}`, { cause: error });
    }
  }
  return `${schema}.${target}`;
}

/** Peak resident memory of a process while `work` runs, sampled every 100 ms, and its high-water mark after. */
async function withMemory<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; startMb: number; peakMb: number; hwmMb: number }> {
  const status = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  };
  const startMb = status('VmRSS');
  let peak = startMb;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, status('VmRSS'));
    } catch {
      // the process is gone
    }
  }, 100);
  try {
    const result = await work();
    peak = Math.max(peak, status('VmRSS'));
    return { result, startMb, peakMb: peak, hwmMb: status('VmHWM') };
  } finally {
    clearInterval(timer);
  }
}

interface ColdVerdict {
  seconds: number;
  /** Resident memory of the server when the run was posted. */
  startMb: number;
  peakMb: number;
  hwmMb: number;
  status: string;
  detail: string;
  slowestPoll?: number;
  /** The server's event loop meanwhile, and the slowest of the light requests made every 200 ms. */
  loop: LoopDelay;
  slowestRequestMs: number;
  requests: number;
  failedRequests: number;
  /** Per query (by hash): kind, cost and recommended indexes, as the verdict's findings say. */
  findings: Map<string, { kind: string; cost: number | null; indexes: string[] }>;
}

/** A cold server (nothing stored) with a production connection to `production`, and one run of the ten queries timed. */
async function coldVerdict(production: string, env: Record<string, string>, checkout = root): Promise<ColdVerdict> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-bench-verdict-tenants-'));
  let server: Server | undefined;
  try {
    server = await startServer({ DATA_DIR: dataDir, ...env }, checkout);
    const envId = (await api<{ id: string }>(server, 'POST', '/env', { name: 'Tenants', slug: 'tenants' })).body.id;
    await api(server, 'POST', `/env/${envId}/repos`, { repo: 'bench/app' });
    // a baseline on main before production is connected: nothing planned for it, so every query of the run is new
    const main = await timedRun(server, 'main-1', 'main', ['SELECT 1']);
    if (main.status !== 'unavailable') throw new Error(`the main run got a verdict (${main.status}) without a production connection`);
    await api(server, 'POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: production });
    const s = server;
    const polled = await whileResponsive(s, () => withMemory(s.pid, () => timedRun(s, 'pr-1', 'feature/a', TENANT_QUERIES)));
    const timed = polled.result;
    const verdict = await api<{
      findings: { kind: string; hash: string; cost: number | null; recommendations: { createIndex: string; costAfter: number }[] }[];
    }>(server, 'GET', `/ci/runs/${timed.result.id}/verdict`);
    const findings = new Map(
      verdict.body.findings.map((f) => [f.hash, { kind: f.kind, cost: f.cost, indexes: f.recommendations.map((r) => `${r.createIndex} (${r.costAfter})`) }]),
    );
    return {
      ...timed.result,
      startMb: timed.startMb,
      peakMb: timed.peakMb,
      hwmMb: timed.hwmMb,
      loop: polled.loop,
      slowestRequestMs: polled.slowestMs,
      requests: polled.polls,
      failedRequests: polled.failed,
      findings,
    };
  } finally {
    await server?.stop();
    if (process.env.BENCH_SERVER_LOG && server) console.log(`server log (${JSON.stringify(env)}):\n${server.log()}`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The scoped cold verdict by the server of another commit beside today's, in rounds A B B A (the
 * first B is the verdict already made): the stalls of both, on the same machine at the same moment.
 * Returns today's rounds.
 */
async function againstBaseline(production: string, freshStore: () => Promise<Record<string, string>>, ref: string, first: ColdVerdict): Promise<ColdVerdict[]> {
  const checkout = mkdtempSync(path.join(tmpdir(), 'qt-bench-baseline-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .trim();
  git('worktree', 'add', '--detach', checkout, ref);
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(checkout, 'node_modules'));
    const commit = git('rev-parse', '--short', ref);
    const baseline = async () => coldVerdict(production, await freshStore(), checkout);
    const [a1, b2, a2] = [await baseline(), await coldVerdict(production, await freshStore()), await baseline()];
    console.log(
      `\n| scoped cold verdict, round | server | event loop's longest stall (ms) | p99 (ms) | slowest request (ms) | seconds |\n|---|---|---|---|---|---|`,
    );
    for (const [round, label, r] of [
      [1, `baseline (${commit})`, a1],
      [2, 'today', first],
      [3, 'today', b2],
      [4, `baseline (${commit})`, a2],
    ] as const)
      console.log(
        `| ${round} | ${label} | ${r.loop.maxMs.toFixed(0)} | ${r.loop.p99Ms.toFixed(0)} | ${r.slowestRequestMs.toFixed(0)} | ${r.seconds.toFixed(1)} |`,
      );
    return [first, b2];
  } finally {
    git('worktree', 'remove', '--force', checkout);
    rmSync(checkout, { recursive: true, force: true });
  }
}

async function tenants(): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), 'qt-bench-gitlab-'));
  const given = process.env.BENCH_TENANTS_URL;
  // pg_relation_size locks each relation until the snapshot's transaction ends: 45,350 of them read whole
  const pg15 = given
    ? undefined
    : await startPostgres({ major: 15, statStatements: false, settings: { max_locks_per_transaction: '1024', max_wal_size: '4GB', autovacuum: 'off' } });
  try {
    let t = performance.now();
    const production = given ?? (await pg15!.createDatabase('tenants'));
    const client = new pg.Client({ connectionString: production });
    await client.connect();
    const query: Query = (sql, params) => client.query(sql, params);
    try {
      if (!given) {
        await query(`CREATE SCHEMA extensions; CREATE EXTENSION btree_gist SCHEMA extensions; CREATE EXTENSION pg_trgm SCHEMA extensions;
                     ALTER DATABASE tenants SET search_path = public, extensions`);
        await loadTenants(production, gitlabTenantSql(folder), 15, { count: TENANTS, query: (sql) => query(sql) });
      }
      const loaded = (performance.now() - t) / 1000;
      t = performance.now();
      const filled: string[] = [];
      for (const sql of TENANT_QUERIES) {
        const [, schema, table] = /FROM (t\d+)\.(\w+)/.exec(sql)!;
        const empty = (await query(`SELECT NOT EXISTS (SELECT FROM ${schema}.${table}) AS empty`)).rows[0].empty as boolean;
        filled.push(empty ? await fillTable(query, schema!, table!, TENANT_ROWS) : `${schema}.${table}`);
      }
      // as a production whose autovacuum has been through them: nothing changes between the two verdicts
      await query(`VACUUM ANALYZE ${filled.join(', ')}`);
      // each query is valid on this production (PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN))
      for (const sql of TENANT_QUERIES) await query(`PREPARE bench_check AS ${sql}; DEALLOCATE bench_check`);
      const counts = (
        await query(`SELECT count(*) FILTER (WHERE relkind IN ('r', 'p')) AS tables, count(*) FILTER (WHERE relkind IN ('i', 'I')) AS indexes
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ~ '^t[0-9]+$'`)
      ).rows[0] as { tables: string; indexes: string };
      const version = (await query('SHOW server_version')).rows[0].server_version as string;
      console.log(
        `\n# Cold verdict on a large schema\n\nProduction: PostgreSQL ${version.split(' ')[0]}, GitLab's structure.sql in ${TENANTS} tenant schemas: ${Number(counts.tables).toLocaleString('en')} tables, ${Number(counts.indexes).toLocaleString('en')} indexes (${given ? 'loaded before' : `loaded in ${loaded.toFixed(0)} s`}); ${TENANT_ROWS.toLocaleString('en')} rows and statistics in each of the ${filled.length} tables the run's ${TENANT_QUERIES.length} queries touch (${((performance.now() - t) / 1000).toFixed(0)} s). A new server (nothing stored, nothing cached) per verdict; store: ${STORE}.\n`,
      );
    } finally {
      await client.end();
    }
    const store: Record<string, string> = {};
    if (STORE === 'postgres' && pg15) store.DATABASE_URL = await pg15.createDatabase('querytrail');
    const whole = await coldVerdict(production, { ...store, VERDICT_SNAPSHOT: 'full' });
    if (STORE === 'postgres' && pg15) store.DATABASE_URL = await pg15.createDatabase('querytrail2');
    const scoped = await coldVerdict(production, store);
    console.log(
      '| cold verdict, 10 queries on 10 tables | seconds | server RSS at the POST (MB) | peak RSS during the verdict (MB) | VmHWM (MB) | slowest API answer meanwhile (s) | result |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [label, r] of [
      ['whole schema read and rebuilt (VERDICT_SNAPSHOT=full, before)', whole],
      ['only what the queries need (after)', scoped],
    ] as const) {
      console.log(
        `| ${label} | ${r.seconds.toFixed(1)} | ${r.startMb.toFixed(0)} | ${r.peakMb.toFixed(0)} | ${r.hwmMb.toFixed(0)} | ${(r.slowestPoll ?? 0).toFixed(1)} | ${r.status}: ${r.detail} |`,
      );
    }
    console.log(
      `\n| while the cold verdict ran | event loop's longest stall (ms) | p99 (ms) | slowest of the requests made every 200 ms (ms) | requests (failed) |\n|---|---|---|---|---|`,
    );
    for (const [label, r] of [
      ['whole schema read and rebuilt (VERDICT_SNAPSHOT=full)', whole],
      ['only what the queries need', scoped],
    ] as const) {
      console.log(
        `| ${label} | ${r.loop.maxMs.toFixed(0)} | ${r.loop.p99Ms.toFixed(0)} | ${r.slowestRequestMs.toFixed(0)} | ${r.requests} (${r.failedRequests}) |`,
      );
      const before = STALL_BASELINE[label]!;
      console.log(`| ${label}, before (${STALL_BASELINE_OF}) | ${before.maxMs} | ${before.p99Ms} | ${before.slowestRequestMs} | ${before.requests} |`);
    }
    let stores = 2;
    const freshStore = async (): Promise<Record<string, string>> =>
      STORE === 'postgres' && pg15 ? { DATABASE_URL: await pg15.createDatabase(`querytrail${++stores}`) } : {};
    const rounds = process.env.BENCH_BASELINE_REF ? await againstBaseline(production, freshStore, process.env.BENCH_BASELINE_REF, scoped) : [scoped];
    const longest = Math.max(...rounds.map((r) => r.loop.maxMs));
    console.log(
      `\nGoal: the event loop's longest stall under 200 ms during the default (scoped) verdict: ${longest < 200 ? 'met' : 'NOT met'} (${longest.toFixed(0)} ms).`,
    );
    // The same plans give the same kinds and CREATE INDEX statements. Costs add the B-tree descent
    // the advisor charges by index name (advisor/descent.ts): the whole schema holds each name ten
    // times, and the whole copy charges whichever tenant's index came last (0 to 0.25 apart).
    const rows: string[] = [];
    let sameKinds = whole.findings.size === scoped.findings.size;
    let costDelta = 0;
    for (const [hash, s] of scoped.findings) {
      const w = whole.findings.get(hash);
      const same =
        w !== undefined &&
        w.kind === s.kind &&
        JSON.stringify(w.indexes.map((i) => i.replace(/ \(.*\)$/, ''))) === JSON.stringify(s.indexes.map((i) => i.replace(/ \(.*\)$/, '')));
      if (!same) sameKinds = false;
      if (w?.cost != null && s.cost != null) costDelta = Math.max(costDelta, Math.abs(w.cost - s.cost));
      rows.push(
        `| ${TENANT_QUERIES.find((q) => fingerprintOf(q) === hash) ?? hash} | ${w ? `${w.kind} ${w.cost} ${w.indexes.join('; ')}` : '-'} | ${s.kind} ${s.cost} ${s.indexes.join('; ')} |`,
      );
    }
    console.log(`\n| query | whole schema | what the queries need |\n|---|---|---|\n${rows.sort().join('\n')}`);
    console.log(
      `\nSame findings and recommended indexes in both: ${sameKinds ? 'yes' : 'NO'}; costs at most ${costDelta.toFixed(2)} apart (the B-tree descent the whole copy charges by an index name ten tenants share).`,
    );
    console.log(
      `Goal: at most 15 s and under 600 MB: ${scoped.seconds <= 15 && scoped.peakMb < 600 ? 'met' : 'NOT met'} (${(whole.seconds / scoped.seconds).toFixed(0)}x faster).`,
    );
  } finally {
    await pg15?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await loadParser();
  if (PARTS.has('shop')) await shop();
  if (PARTS.has('tenants')) await tenants();
}

await main();
