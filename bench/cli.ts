// npm run bench:cli — what the lean action costs a user's CI: the bundle's size on disk, and the
// time of `querytrail ci-report` reporting a 500-query run end to end (read pg_stat_statements and
// the schema of a real CI database, fingerprint, POST to a local server, read the verdict), as the
// bundle (`node dist/querytrail.mjs`, what the action runs) and, measured in the same run, as the
// previous way (bin/querytrail.mjs loading the TypeScript sources through tsx, after the old
// action's `npm ci --omit=dev`). Runs alternate; the repository is linked to an environment
// without a production connection, so its verdict is "unavailable" at once and the time is the
// report's own (bench:verdict times the analysis).
import { execFileSync, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BUNDLE_FILES, DIST } from '../cli/build';
import { startPostgres } from '../test/support/postgres';
import { openTestServices, startTestServer } from '../test/support/services';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TABLES = 10;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COLUMNS = ['account_id', 'status', 'kind', 'amount', 'created_at', 'ref', 'flag'] as const;

/** 50 query shapes per table, each its own fingerprint: 500 in all. */
function queryShapes(): string[] {
  const out: string[] = [];
  for (let k = 0; k < TABLES; k++) {
    const t = `orders_${k}`;
    const shapes = [`SELECT id, amount FROM ${t} WHERE id = $1`];
    for (const c of COLUMNS) shapes.push(`SELECT id, amount FROM ${t} WHERE ${c} = $1`);
    for (const a of COLUMNS) for (const b of COLUMNS) if (a !== b) shapes.push(`SELECT id FROM ${t} WHERE ${a} = $1 AND ${b} > $2 ORDER BY id LIMIT 20`);
    out.push(...shapes.slice(0, 50));
  }
  return out;
}

function timeCommand(args: string[], env: Record<string, string>): Promise<{ ms: number; code: number | null; output: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ ms: performance.now() - started, code, output }));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What the old action installed in every run: the production dependencies' folders. */
function productionInstallBytes(): number {
  const folders = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .filter((line) => line.includes('node_modules'));
  // du counts a file once however many of the given folders hold it
  const total = execFileSync('du', ['-scb', ...folders], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  return Number(total.split(/\s+/)[0]);
}

async function main() {
  const bundleBytes = BUNDLE_FILES.reduce((sum, file) => sum + statSync(path.join(DIST, file)).size, 0);
  const ci = await startPostgres({ statStatements: true });
  const server = await startTestServer(await openTestServices('pglite'));
  try {
    const url = await ci.createDatabase('app_test');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION pg_stat_statements');
    for (let k = 0; k < TABLES; k++) {
      await client.query(
        `CREATE TABLE orders_${k} (id bigint PRIMARY KEY, account_id int, status text, kind text, amount numeric, created_at timestamptz, ref text, flag boolean)`,
      );
      await client.query(`CREATE INDEX ON orders_${k} (account_id)`);
    }
    await client.query('SELECT pg_stat_statements_reset()');
    const shapes = queryShapes();
    // a value each column's type accepts, for the parameter compared with it
    const valueFor = (sql: string, n: number) => (new RegExp(`created_at [=>] \\$${n}\\b`).test(sql) ? '2026-01-01' : '1');
    for (const sql of shapes) await client.query(sql, sql.includes('$2') ? [valueFor(sql, 1), valueFor(sql, 2)] : [valueFor(sql, 1)]);
    await client.end();

    const post = (route: string, body: unknown) =>
      fetch(`${server.url}/api${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<{ id: string }>,
      );
    const env = await post('/env', { name: 'Bench', slug: 'bench' });
    await post(`/env/${env.id}/repos`, { repo: 'acme/bench' });

    const ways = {
      bundle: (runId: string) => [path.join(DIST, 'querytrail.mjs'), 'ci-report', '--db', url, '--api', server.url, '--repo', 'acme/bench', '--run-id', runId],
      'tsx from sources (before)': (runId: string) => [
        path.join(root, 'bin', 'querytrail.mjs'),
        'ci-report',
        '--db',
        url,
        '--api',
        server.url,
        '--repo',
        'acme/bench',
        '--run-id',
        runId,
      ],
    };
    const times: Record<string, number[]> = { bundle: [], 'tsx from sources (before)': [] };
    for (let round = 0; round < ROUNDS + 1; round++) {
      for (const [way, args] of Object.entries(ways)) {
        const result = await timeCommand(args(`${way.slice(0, 3)}-${round}`), way === 'bundle' ? {} : { QUERYTRAIL_FROM_SOURCES: '1' });
        if (result.code !== 0 || !/: 500 queries/.test(result.output)) throw new Error(`${way} failed (${result.code}): ${result.output}`);
        // the first round warms the disk cache and tsx's transform cache
        if (round > 0) times[way]!.push(result.ms);
      }
    }

    const installBytes = productionInstallBytes();
    console.log(
      `\nci-report of a 500-query run, end to end (read, fingerprint, POST, verdict), ${ROUNDS} runs each, load ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0]}:\n`,
    );
    console.log('| how it runs | on disk | median | fastest |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| bundle: node dist/querytrail.mjs (the action, npx) | ${mib(bundleBytes)} | ${(median(times.bundle!) / 1000).toFixed(2)} s | ${(Math.min(...times.bundle!) / 1000).toFixed(2)} s |`,
    );
    const before = times['tsx from sources (before)']!;
    console.log(
      `| before: tsx from the sources after npm ci --omit=dev | ${mib(installBytes)} | ${(median(before) / 1000).toFixed(2)} s | ${(Math.min(...before) / 1000).toFixed(2)} s |`,
    );
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await server.close();
    await ci.stop();
  }
}

await main();
process.exit(process.exitCode ?? 0);
