// npm run bench:read — the API's read paths on a large catalog, on PostgreSQL and on PGlite.
//
// An environment holds BENCH_CATALOG queries (default 100,000; another environment beside it holds a
// tenth as many, so the environment filter matters), seen over 30 days from CI, production and by
// hand, a tenth of them with an analysis. BENCH_CLIENTS clients (10), on a thread of their own, send
// GET requests over HTTP to the real app in a loop, BENCH_REQUESTS in all per scenario (2,000),
// after unmeasured ones (a tenth as many, for 3 s at least); requests/s and p50/p95 are printed per
// scenario. Beside each, the floor: the same SQL the endpoint sends, sent straight through the
// store's driver (the app's own pg.Pool, or PGlite's own client) by as many concurrent callers, with
// no HTTP, no tRPC and no ORM.
// The last column sends, the same way, the SQL the list sent before it read an index (a sort of the
// whole catalog, a count(*), and a lookup of each row's latest analysis).
//
// With authentication: each scenario is measured a second time on a second app over the same store in
// team mode, its clients sending a personal access token of a viewer of the environment (token,
// person and memberships in one statement, then kept in memory until a credential changes, each use
// waiting until the store's channel has caught up: server/auth/principal-cache.ts; plus the access check),
// the two apps measured in alternating halves (A B B A) so that drift weighs on both alike. Columns
// "auth req/s" and "auth / open" compare it with the app in single-user mode in the same run.
//
// Options (environment): BENCH_CATALOG, BENCH_CLIENTS, BENCH_REQUESTS, BENCH_BEFORE_REQUESTS (200),
// BENCH_BACKENDS (postgres,pglite).
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { sql, type SQL } from 'drizzle-orm';
import { createApp } from '../server/app';
import { readConfig } from '../server/config';
import { openStore, type Store } from '../server/db/store';
import { createSecrets } from '../server/secrets';
import { withJobs } from '../server/services';
import { newId } from '../server/ids';
import { pageQuery } from '../server/catalog/read';
import { historyQuery, topStatement } from '../server/history/read';
import { PgDialect } from 'drizzle-orm/pg-core';
import { startPostgres } from '../test/support/postgres';
import { upsertSignedInUser } from '../server/domain/people';
import { createPersonalToken } from '../server/domain/tokens';
import { memberships } from '../server/db/schema';

const CATALOG = Number(process.env.BENCH_CATALOG ?? 100_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
/** The old SQL is slow on a large catalog: fewer calls measure it well enough. */
const BEFORE_REQUESTS = Number(process.env.BENCH_BEFORE_REQUESTS ?? 200);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'postgres,pglite').split(',');

/** One statement as the store's driver takes it; a name makes it prepared (PostgreSQL). */
interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

interface Scenario {
  name: string;
  /** Path and query string after /api/env/{id}. */
  path: string;
  /** The SQL the endpoint sends for it, for the floor (each entry one statement, sent in parallel as the endpoint does). */
  floor: Statement[];
  /** What the list cost before it read an index: the same through the driver, in the old shape. */
  before?: Statement[];
}

// Before: ORDER BY last_seen_at DESC, id DESC matched no index (the one there had NULLS LAST and id
// ascending), so every page sorted the environment's whole catalog, and the total was a count(*).
// Ordering by an expression of last_seen_at matches none of today's indexes either: the same work.
const oldPageSql = (sourceFilter: boolean, offset: number) => `
  SELECT c.id, c.hash, c.formatted_query, c.first_seen_at, c.last_seen_at, c.last_seen_source, c.ci_run_count,
         c.production_calls, c.production_mean_time_ms, a.cost, a.recommendation_count
  FROM catalog_queries c
  LEFT JOIN query_analyses a ON a.environment_id = c.environment_id AND a.hash = c.hash
  WHERE c.environment_id = $1 ${sourceFilter ? 'AND c.last_seen_source = $2' : ''}
  ORDER BY c.last_seen_at + interval '0 s' DESC, c.id DESC
  LIMIT 100 OFFSET ${offset}`;
const oldCountSql = (sourceFilter: boolean) => `
  SELECT count(*)::int AS total FROM catalog_queries WHERE environment_id = $1 ${sourceFilter ? 'AND last_seen_source = $2' : ''}`;

function catalogScenarios(environmentId: string): Scenario[] {
  const list = (name: string, offset: number, source?: string): Scenario => ({
    name,
    path: `/queries?limit=100${offset ? `&offset=${offset}` : ''}${source ? `&source=${source}` : ''}`,
    // the list's one statement, page and total, as server/catalog/read.ts sends it
    floor: [pageQuery({ id: environmentId, source: source as 'production' | undefined, limit: 100, offset })],
    before: [
      { text: oldPageSql(Boolean(source), offset), values: source ? [environmentId, source] : [environmentId] },
      { text: oldCountSql(Boolean(source)), values: source ? [environmentId, source] : [environmentId] },
    ],
  });
  return [list('catalog list, first page', 0), list('catalog list, page 5', 400), list('catalog list, source=production', 0, 'production')];
}

// Production history: 7 days of 10-minute points for HISTORY_QUERIES of the catalog's queries, seeded
// by seedHistory(), ending at HISTORY_END. A query's history is server/history/read.ts's statement;
// the top queries' is its statement as drizzle renders it, with the environment's existence check
// that precedes it.
const HISTORY_QUERIES = 1_000;
const HISTORY_POINTS_PER_QUERY = 7 * 144;
const HISTORY_END = new Date(Math.floor(Date.now() / 600_000) * 600_000);
const historyWindow = (days: number) => ({ from: new Date(HISTORY_END.getTime() - days * 86_400_000).toISOString(), to: HISTORY_END.toISOString() });
const HISTORY_HASH = '00000000000001f4'; // query 500, one of those with points
const dialect = new PgDialect();
const asStatement = (query: SQL): Statement => {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, values: params };
};
const envExistsSql = 'SELECT id, name, slug, created_at FROM environments WHERE id = $1';
function historyScenarios(environmentId: string): Scenario[] {
  const history = (days: number): Scenario => {
    const { from, to } = historyWindow(days);
    return {
      name: `query history, ${days === 1 ? '24 h (144 points)' : `${days} d (${days * 144} points)`}`,
      path: `/queries/${HISTORY_HASH}/history?from=${from}&to=${to}`,
      // the endpoint's one statement, as server/history/read.ts sends it
      floor: [historyQuery(environmentId, HISTORY_HASH, { from: new Date(from), to: new Date(to) })],
    };
  };
  const { from, to } = historyWindow(1);
  return [
    history(1),
    history(7),
    {
      name: 'history top 20 by total time, 24 h (144,000 points)',
      path: `/history/top?from=${from}&to=${to}&limit=20`,
      floor: [
        { text: envExistsSql, values: [environmentId] },
        asStatement(topStatement(environmentId, { from: new Date(from), to: new Date(to) }, 'totalTime', 20)),
      ],
    },
  ];
}

/** The points, one statement per day so PGlite's single connection never holds a million-row insert. */
async function seedHistory(store: Store, environmentId: string): Promise<void> {
  for (let day = 0; day < 7; day++) {
    await store.db.execute(sql`
      INSERT INTO history_points (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read)
      SELECT ${environmentId}, lpad(to_hex(q), 16, '0'), ${HISTORY_END.toISOString()}::timestamptz - k * interval '10 minutes',
             50 + (q * k) % 200, (50 + (q * k) % 200) * (0.05 + (q % 50) * 0.1), 50 + (q * k) % 200, 1000 + q, q % 7
      FROM generate_series(1, ${HISTORY_QUERIES}::int) q, generate_series(${day * 144}::int, ${day * 144 + 143}::int) k`);
  }
  await store.db.execute(sql`VACUUM ANALYZE history_points, history_hour_sums`);
}

/** Bytes one row takes on disk, with its indexes: a point, and an hour's sum that triggers keep beside the points. */
async function bytesPerRow(store: Store): Promise<{ point: number; hourSum: number }> {
  const result = (await store.db.execute(sql`
    SELECT pg_total_relation_size('history_points')::float8 / greatest((SELECT count(*) FROM history_points), 1) AS point,
           pg_total_relation_size('history_hour_sums')::float8 / greatest((SELECT count(*) FROM history_hour_sums), 1) AS "hourSum"`)) as unknown as {
    rows: { point: number; hourSum: number }[];
  };
  return { point: Number(result.rows[0]!.point), hourSum: Number(result.rows[0]!.hourSum) };
}

async function seed(store: Store): Promise<string> {
  const main = newId('env');
  const other = newId('env');
  for (const [id, name] of [
    [main, 'Bench'],
    [other, 'Other'],
  ] as const) {
    await store.db.execute(sql`INSERT INTO environments (id, name, slug) VALUES (${id}, ${name}, ${`${name.toLowerCase()}-${id.slice(4, 12)}`})`);
  }
  for (const [id, size] of [
    [main, CATALOG],
    [other, Math.ceil(CATALOG / 10)],
  ] as const) {
    // spread over 30 days; 70% CI, 25% production, 5% manual
    await store.db.execute(sql`
      INSERT INTO catalog_queries (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source,
                                   ci_run_count, production_calls, production_mean_time_ms)
      SELECT ${id} || '_q' || g, ${id}, lpad(to_hex(g), 16, '0'),
             'SELECT o.id, o.total, c.name FROM orders_' || (g % 97) || ' o JOIN customers c ON c.id = o.customer_id WHERE o.id > $1',
             E'SELECT\\n  o.id,\\n  o.total,\\n  c.name\\nFROM orders_' || (g % 97) || E' o\\nJOIN customers c ON c.id = o.customer_id\\nWHERE o.id > $1',
             now() - interval '30 days', now() - (random() * interval '30 days'),
             CASE WHEN g % 20 < 14 THEN 'ci' WHEN g % 20 < 19 THEN 'production' ELSE 'manual' END,
             (g % 7), CASE WHEN g % 20 BETWEEN 14 AND 18 THEN g % 1000 END, CASE WHEN g % 20 BETWEEN 14 AND 18 THEN 0.5 END
      FROM generate_series(1, ${size}) g`);
    await store.db.execute(sql`
      INSERT INTO analysis_runs (id, environment_id, status, phase, connection_label, finished_at)
      VALUES (${`${id}_an`}, ${id}, 'done', 'done', 'production', now())`);
    await store.db.execute(sql`
      INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, recommendations, recommendation_count, analyzed_at)
      SELECT ${id}, lpad(to_hex(g), 16, '0'), ${`${id}_an`}, g % 500, 'Seq Scan', '[]'::jsonb, 0, now()
      FROM generate_series(1, ${size}, 10) g`);
  }
  // PostgreSQL's autovacuum would do this within a minute; the bench should not wait for it.
  await store.db.execute(sql`VACUUM ANALYZE`);
  return main;
}

/**
 * Before each measure, calls made and not measured, by all clients at once: a tenth as many as
 * measured and for at least WARMUP_MS, so the JIT, the plan caches and the pooled connections are
 * as a server that has run for a while has them, whichever scenario comes first.
 */
const warmupFor = (requests: number) => Math.ceil(requests / 10);
const WARMUP_MS = 3_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** CLIENTS loops sharing REQUESTS calls of `call`; requests/s over the whole and latency percentiles. */
async function drive(call: () => Promise<void>, requests = REQUESTS) {
  let warm = warmupFor(requests);
  const warmUntil = performance.now() + WARMUP_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (warm-- > 0 || performance.now() < warmUntil) await call();
    }),
  );
  const latencies: number[] = [];
  let left = requests;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (left-- > 0) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

// The HTTP clients run on a thread of their own, as real clients are elsewhere: their requests and
// reading would otherwise be charged to the server's event loop. They still share this machine's
// cores with the server and the database, so they are as lean as a client gets: node:http on
// keep-alive connections, one per client (fetch costs several times the CPU per request). Same loop
// as drive(), as source.
const CLIENT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
(async () => {
  const { url, clients, requests, warmup, headers } = workerData;
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const call = () => new Promise((resolve, reject) => {
    http.get(url, { agent, headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode === 200) resolve();
        else reject(new Error(url + ': ' + response.statusCode + ' ' + Buffer.concat(chunks).toString()));
      });
      response.on('error', reject);
    }).on('error', reject);
  });
  let warm = warmup.calls;
  const warmUntil = performance.now() + warmup.ms;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (warm-- > 0 || performance.now() < warmUntil) await call();
  }));
  const latencies = [];
  let left = requests;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (left-- > 0) { const t = performance.now(); await call(); latencies.push(performance.now() - t); }
  }));
  parentPort.postMessage({ seconds: (performance.now() - t0) / 1000, latencies });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

async function clientRun(url: string, headers: Record<string, string>, requests: number) {
  const worker = new Worker(CLIENT_THREAD, {
    eval: true,
    workerData: { url, headers, clients: CLIENTS, requests, warmup: { calls: warmupFor(requests), ms: WARMUP_MS } },
  });
  const result = await new Promise<{ seconds: number; latencies: number[]; error?: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  if (result.error) throw new Error(result.error);
  return result;
}

function summarize(runs: { seconds: number; latencies: number[] }[]) {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/**
 * The open app and the authenticated one measured in halves, A B B A: a machine that speeds up or
 * slows down during the measure (another process, the database's own background work) weighs on
 * both alike, so their ratio is the cost of authentication and not of when each was measured.
 */
async function driveOpenAndAuth(open: string, auth: string, headers: Record<string, string>) {
  const half = Math.ceil(REQUESTS / 2);
  const a1 = await clientRun(open, {}, half);
  const b1 = await clientRun(auth, headers, half);
  const b2 = await clientRun(auth, headers, half);
  const a2 = await clientRun(open, {}, half);
  return { api: summarize([a1, a2]), auth: summarize([b1, b2]) };
}

async function benchBackend(kind: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-bench-read-'));
  let store: Store;
  let stopServer = async () => undefined as void;
  if (kind === 'postgres') {
    const server = await startPostgres({ statStatements: false });
    store = await openStore({ databaseUrl: await server.createDatabase('bench') });
    stopServer = () => server.stop();
  } else {
    store = await openStore({});
  }
  // the floor goes through the store's own driver (pg.Pool or PGlite), as the endpoints' reads do
  const send = (q: Statement) => store.read({ name: q.name ?? '', text: q.text, values: q.values });
  const t0 = performance.now();
  const environmentId = await seed(store);
  await seedHistory(store, environmentId);
  const seedSeconds = (performance.now() - t0) / 1000;
  const rowBytes = await bytesPerRow(store);

  const services = await withJobs(store, createSecrets(randomBytes(32)), { ...readConfig({}), dataDir });
  const http = await new Promise<import('node:http').Server>((resolve) => {
    const s = createApp(services).listen(0, '127.0.0.1', () => resolve(s));
  });
  // PGlite can hold the loop past Node's 5 s keep-alive timeout: a socket the server closes then
  // while a client reuses it would fail that request (ECONNRESET), which is no part of the measure
  http.keepAliveTimeout = 60_000;
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api/env/${environmentId}`;

  // the same store served in team mode, read with a viewer's personal access token
  const person = await upsertSignedInUser(store.db, { email: 'bench@acme.test', name: 'Bench' }, []);
  await store.db.insert(memberships).values({ environmentId, email: 'bench@acme.test', role: 'viewer' });
  const { token } = await createPersonalToken(store.db, { userId: person.id, email: 'bench@acme.test' }, { name: 'bench', scopes: ['read'] });
  const teamServices = { ...services, config: { ...services.config, apiToken: randomBytes(24).toString('hex') } };
  const httpTeam = await new Promise<import('node:http').Server>((resolve) => {
    const s = createApp(teamServices).listen(0, '127.0.0.1', () => resolve(s));
  });
  httpTeam.keepAliveTimeout = 60_000;
  const baseTeam = `http://127.0.0.1:${(httpTeam.address() as AddressInfo).port}/api/env/${environmentId}`;

  const results = [];
  for (const scenario of [...catalogScenarios(environmentId), ...historyScenarios(environmentId)]) {
    const { api, auth } = await driveOpenAndAuth(base + scenario.path, baseTeam + scenario.path, { authorization: `Bearer ${token}` });
    const floor = await drive(async () => {
      await Promise.all(scenario.floor.map(send));
    });
    const before = scenario.before ? await drive(() => Promise.all(scenario.before!.map(send)).then(() => undefined), BEFORE_REQUESTS) : undefined;
    results.push({ scenario: scenario.name, api, auth, floor, before });
  }
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => httpTeam.close(() => resolve()));
  await services.store.close(); // the job queue first, then the store
  await stopServer();
  rmSync(dataDir, { recursive: true, force: true });
  return { kind, seedSeconds, rowBytes, results };
}

const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

async function printBackend(kind: string) {
  const r = await benchBackend(kind);
  for (const { scenario, api, auth, floor, before } of r.results) {
    console.log(
      `| ${r.kind} | ${scenario} | ${f(api.perSecond)} | ${f(api.p50)} | ${f(api.p95)} | ${f(auth.perSecond)} | ${((auth.perSecond / api.perSecond) * 100).toFixed(0)}% | ${f(floor.perSecond)} | ${f(floor.p50)} | ${f(floor.p95)} | ${(floor.perSecond / api.perSecond).toFixed(1)}x | ${before ? `${f(before.perSecond)} (${f(before.p50)})` : '-'} |`,
    );
  }
  const bytesLine =
    `${kind}: ${HISTORY_QUERIES * HISTORY_POINTS_PER_QUERY} history points take ${r.rowBytes.point.toFixed(0)} bytes each and their hour sums ` +
    `${r.rowBytes.hourSum.toFixed(0)} (row and indexes): ${((r.rowBytes.point * 144 + r.rowBytes.hourSum * 24) / 1024).toFixed(1)} KiB per query ` +
    `per day at 10-minute points with their hour sums, ${((r.rowBytes.hourSum * 24) / 1024).toFixed(1)} KiB once only the hour sums are left`;
  console.log(`\n${bytesLine}\n`);
}

// Each backend is measured in a process of its own, as a server runs one store: measured one after
// the other in one process, the second backend's first lines came out a third slower than alone.
if (process.env.BENCH_CHILD) {
  await printBackend(BACKENDS[0]!);
} else {
  console.log(`Reads: a catalog of ${CATALOG} queries, ${CLIENTS} concurrent clients, ${REQUESTS} requests per scenario\n`);
  console.log(
    '| backend | scenario | API req/s | p50 ms | p95 ms | auth req/s | auth / open | floor req/s | floor p50 ms | floor p95 ms | API / floor time | old SQL req/s (p50 ms) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const kind of BACKENDS) {
    const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, BENCH_BACKENDS: kind, BENCH_CHILD: '1' },
      stdio: 'inherit',
    });
    if (child.status !== 0) throw new Error(`bench:read on ${kind} exited with ${child.status ?? child.signal}`);
  }
}
