// npm run bench:start — how long querytrail takes to start: from the spawn of the command to the
// first 200 of GET /api/env (`npm run serve`) or of GET / with the SPA's index.html (`npm start`),
// on an existing DATA_DIR (one a previous start of the same way made) and on an empty one (a new
// folder each time). Each figure is the median of BENCH_ROUNDS (3) starts; the two ways alternate
// within a round, so both see the same machine:
// - baseline, the way the server started before: `node --import tsx server/main.ts` (TypeScript
//   transpiled at start) with PGLITE_TEMPLATE=0 (an empty store runs PGlite's initdb), and for
//   `npm start` `vite build` every time first (into a folder of the bench's own, so the
//   checkout's dist/client is left alone);
// - new: `node server/start.mjs` (what `npm run serve` runs: the prebuilt server bundle, an empty
//   store copied from the migrated template) and `npm start` itself (the SPA and the bundle built
//   only when their sources changed). The bench builds what is out of date before timing (the
//   bundle's build time is printed apart), so these are starts with nothing to build, but for the
//   last row, where the SPA's build stamp is removed first (as a change to client/ would make it
//   stale); `npm run serve` itself is timed once per round too, to show what npm adds.
// Beside each wall time, the CPU seconds the command and all it started had used by then (Linux):
// a busy machine stretches wall times, much less CPU time. The baseline runs today's sources, so it
// shares what they gained themselves (queues and migrations not made again at each start).
// Every process started is stopped (SIGTERM to its process group, SIGKILL after 20 s) and every
// temporary folder removed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'qt-bench-start-'));
const children = new Set<ChildProcess>();

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface Way {
  command: string[];
  env?: Record<string, string>;
}

type Answer = 'api' | 'page';

/** Spawns the command and polls until the answer comes; resolves with the seconds it took, after stopping it. */
/**
 * CPU seconds used so far by a process group: its processes' own, and those of the children they
 * waited for (npm, vite build). Linux only (/proc); undefined elsewhere.
 */
function groupCpuSeconds(pgid: number): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const tick = 100; // USER_HZ: 100 on Linux
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // the fields after "(comm) ": state ppid pgrp ... utime(11) stime(12) cutime(13) cstime(14)
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
      if (Number(fields[2]) === pgid) total += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    } catch {
      // gone meanwhile
    }
  }
  return total / tick;
}

interface Timing {
  seconds: number;
  cpu: number | undefined;
}

async function timeStart(way: Way, dataDir: string, answer: Answer): Promise<Timing> {
  const [port, analyzerPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(way.command[0]!, way.command.slice(1), {
    cwd: root,
    // its own process group: npm's shell and the node under it are stopped together
    detached: true,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      ANALYZER_PORT: String(analyzerPort),
      DATA_DIR: dataDir,
      API_TOKEN: '',
      SECRET_KEY: '',
      DATABASE_URL: '',
      ALLOW_UNAUTHENTICATED: '',
      ...way.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}${answer === 'api' ? '/api/env' : '/'}`;
  let seconds: number | undefined;
  let cpu: number | undefined;
  try {
    const deadline = started + 180_000;
    while (seconds === undefined) {
      if (exited) throw new Error(`${way.command.join(' ')} exited before it answered:\n${output}`);
      if (performance.now() > deadline) throw new Error(`${way.command.join(' ')} did not answer within 180 s:\n${output}`);
      try {
        const response = await fetch(url, { headers: { accept: answer === 'page' ? 'text/html' : 'application/json' }, signal: AbortSignal.timeout(2_000) });
        const body = await response.text();
        if (response.status === 200 && (answer === 'api' || body.includes('<div id="root">'))) {
          seconds = (performance.now() - started) / 1000;
          cpu = groupCpuSeconds(child.pid!);
        } else if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${body.slice(0, 200)}`);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('GET ')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  } finally {
    await stop(child, gone);
  }
  return { seconds, cpu };
}

/** Stops the command and everything it started (its process group), and waits until all of it is gone. */
async function stop(child: ChildProcess, gone: Promise<void>): Promise<void> {
  const group = (signal: NodeJS.Signals | 0) => {
    try {
      process.kill(-child.pid!, signal);
      return true;
    } catch {
      return false; // no process left in the group
    }
  };
  // npm exits as soon as it has passed the signal on; the server under it is still closing its store
  group('SIGTERM');
  const deadline = performance.now() + 20_000;
  while (group(0) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (group(0)) {
    group('SIGKILL');
    while (group(0)) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await gone;
  children.delete(child);
}

/** Runs node with these arguments in the checkout; throws when it fails. */
function node(args: string[]): void {
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${run.status ?? run.signal}`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (s: number) => s.toFixed(2);
const newDir = (name: string) => path.join(mkdtempSync(path.join(scratch, `${name}-`)), 'data');

async function main() {
  const baselineClient = path.join(scratch, 'baseline-client');
  const baseline: Record<'serve' | 'start', Way> = {
    serve: { command: [process.execPath, '--import', 'tsx', 'server/main.ts'], env: { PGLITE_TEMPLATE: '0' } },
    start: {
      command: [
        'sh',
        '-c',
        `npm run build:client --silent -- --outDir '${baselineClient}' --emptyOutDir --logLevel warn && exec node --import tsx server/main.ts`,
      ],
      env: { PGLITE_TEMPLATE: '0' },
    },
  };
  const current: Record<'serve' | 'npmServe' | 'start', Way> = {
    serve: { command: [process.execPath, 'server/start.mjs'] },
    npmServe: { command: ['npm', 'run', 'serve', '--silent'] },
    start: { command: ['npm', 'start', '--silent'] },
  };

  // what a change costs once: the server's bundle (the SPA's build is in the baseline's `npm start`);
  // then whatever is out of date is built, so the new way's figures are of starts with nothing to build
  const started = performance.now();
  node(['--input-type=module', '-e', "await (await import('./server/build.mjs')).buildServer()"]);
  const bundleSeconds = (performance.now() - started) / 1000;
  node(['server/build.mjs']);

  // the existing DATA_DIRs: each made by a first start of its way (the new one's also makes the template)
  const existing = { baseline: newDir('existing-baseline'), current: newDir('existing-new') };
  await timeStart(baseline.serve, existing.baseline, 'api');
  await timeStart(current.serve, existing.current, 'api');
  console.log(
    `bench:start: ${ROUNDS} rounds; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (${process.env.BENCH_ROUNDS ? '' : 'BENCH_ROUNDS to change; '}2 cores here)`,
  );

  type Kind = 'baseline' | 'current';
  // the SPA's build stamp gone: `npm start` builds the SPA again, as after a change to client/
  const spaChanged = () => rmSync(path.join(root, 'dist', 'client', '.inputs.json'), { force: true });
  const rows: { label: string; answer: Answer; base: Way; next: Way; dir: (k: Kind) => string; beforeNext?: () => void }[] = [
    { label: '`npm run serve`, existing DATA_DIR', answer: 'api', base: baseline.serve, next: current.serve, dir: (k) => existing[k] },
    { label: '`npm run serve`, empty DATA_DIR', answer: 'api', base: baseline.serve, next: current.serve, dir: (k) => newDir(`empty-${k}`) },
    { label: '`npm start`, first page, existing DATA_DIR', answer: 'page', base: baseline.start, next: current.start, dir: (k) => existing[k] },
    {
      label: '`npm start`, first page, after an SPA change',
      answer: 'page',
      base: baseline.start,
      next: current.start,
      dir: (k) => existing[k],
      beforeNext: spaChanged,
    },
  ];
  const results = rows.map(() => ({ base: [] as Timing[], next: [] as Timing[] }));
  const viaNpm: Timing[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, row] of rows.entries()) {
      // alternate which goes first, so neither always follows the other
      const order = round % 2 === 0 ? (['base', 'next'] as const) : (['next', 'base'] as const);
      for (const which of order) {
        if (which === 'next') row.beforeNext?.();
        results[i]![which].push(await timeStart(row[which], row.dir(which === 'base' ? 'baseline' : 'current'), row.answer));
      }
    }
    viaNpm.push(await timeStart(current.npmServe, existing.current, 'api'));
    process.stdout.write(`  round ${round + 1}/${ROUNDS} done\n`);
  }

  const width = Math.max(...rows.map((r) => r.label.length)) + 2;
  const wall = (timings: Timing[]) => median(timings.map((t) => t.seconds));
  const cpu = (timings: Timing[]) => (timings.every((t) => t.cpu !== undefined) ? fmt(median(timings.map((t) => t.cpu!))) : '-');
  const runs = (timings: Timing[]) => timings.map((t) => fmt(t.seconds)).join(' ');
  console.log('');
  console.log(
    `${'median of the runs'.padEnd(width)}${'seconds to the first answer'.padStart(28)}${'CPU seconds by then'.padStart(24)}   runs (baseline | new)`,
  );
  console.log(`${''.padEnd(width)}${'baseline'.padStart(14)}${'new'.padStart(14)}${'baseline'.padStart(12)}${'new'.padStart(12)}`);
  for (const [i, row] of rows.entries()) {
    const { base, next } = results[i]!;
    console.log(
      `${row.label.padEnd(width)}${fmt(wall(base)).padStart(14)}${fmt(wall(next)).padStart(14)}${cpu(base).padStart(12)}${cpu(next).padStart(12)}   ${runs(base)} | ${runs(next)}`,
    );
  }
  console.log(
    `${'`npm run serve` through npm, existing'.padEnd(width)}${''.padStart(14)}${fmt(wall(viaNpm)).padStart(14)}${''.padStart(12)}${cpu(viaNpm).padStart(12)}   ${runs(viaNpm)}`,
  );
  console.log('');
  console.log('baseline: node --import tsx server/main.ts, PGLITE_TEMPLATE=0 (initdb), and `vite build` first for npm start');
  console.log('new:      node server/start.mjs (npm run serve: the bundle, the template), npm start (builds only what changed)');
  console.log(
    'CPU seconds: of the command and all it started, by the first answer (several threads: may exceed the wall time); steadier than wall time on a busy machine',
  );
  console.log(`once per change: the server bundle builds in ${fmt(bundleSeconds)} s (the SPA's build is the difference of the npm start rows)`);
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

try {
  await main();
} finally {
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(scratch, { recursive: true, force: true });
}
