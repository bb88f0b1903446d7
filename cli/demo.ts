// `querytrail demo`: the demo from a shell. When querytrail answers on PORT it asks that server
// for the demo (POST /api/demo) and follows its steps; otherwise it starts the server from this
// checkout's sources first (building the web app when it was never built) and keeps it running
// until Ctrl-C, which stops the demo's PostgreSQL with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Io } from './ci-types';

export const DEMO_USAGE = `Usage: querytrail demo [--port N]

Starts the demo: a local PostgreSQL 18 with a generated Pagila database and its workload, and the
environment "Pagila demo" with a synced catalog, an analysis and a failing CI verdict. Starts
querytrail too (from this checkout) when nothing answers on the port, and keeps it running until
Ctrl-C. The demo's database stops with querytrail and starts again with it; remove it from the web
app's first page or with DELETE /api/demo.

  --port N   querytrail's port (default PORT, else 3000)

Environment: PORT, DATA_DIR, ANALYZER_PORT and the server's other variables; QUERYTRAIL_TOKEN or
API_TOKEN when the server requires a token.`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Step {
  key: string;
  label: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  detail: string | null;
  durationMs: number | null;
}
interface Status {
  state: 'absent' | 'starting' | 'ready' | 'failed' | 'removing';
  steps: Step[];
  environmentId: string | null;
  pullRequestRunId: string | null;
  durationMs: number | null;
  error: string | null;
}

class DemoError extends Error {}

function client(base: string, token: string | undefined) {
  return async (method: 'GET' | 'POST', timeoutMs = 10_000): Promise<Status> => {
    const res = await fetch(`${base}/api/demo`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => undefined)) as (Status & { error?: { message?: string } }) | undefined;
    if (!res.ok) throw new DemoError(`querytrail answered ${res.status}: ${body?.error?.message ?? res.statusText}`);
    return body as Status;
  };
}

/** Whether something answers HTTP on the port (a refused connection means nothing does). */
async function answers(base: string): Promise<boolean> {
  try {
    await fetch(`${base}/api/openapi.json`, { signal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  }
}

async function buildClientIfMissing(io: Io): Promise<void> {
  if (existsSync(path.join(root, 'dist', 'client', 'index.html'))) return;
  io.out('Building the web app (first run only)…');
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
}

/** Starts `server/main.ts` through tsx as a child, its own lines shown indented; resolves once it answers. */
async function startServer(base: string, env: NodeJS.ProcessEnv, io: Io): Promise<ChildProcess> {
  // tsx as a loader, not its CLI: the CLI stands between us and the server and SIGKILLs it when the
  // server has not acknowledged a Ctrl-C within 30 ms (a busy machine), leaving its PostgreSQL behind
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, path.join(root, 'server', 'main.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const show = (write: (line: string) => void) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      // the demo's own lines are shown as steps below
      if (line.trim() && !line.startsWith('demo:')) write(`  | ${line}`);
    }
  };
  child.stdout!.on('data', show(io.out));
  child.stderr!.on('data', show(io.err));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new DemoError(`querytrail exited with code ${code} before it answered`))),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + 120_000;
  while (!(await answers(base))) {
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new DemoError(`querytrail did not answer on ${base} within 2 minutes`);
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 300)), exited]);
  }
  return child;
}

const seconds = (ms: number | null) => (ms === null ? '' : ` (${(ms / 1000).toFixed(1)} s)`);

/** Prints each step once when it starts and once when it ends; resolves with the final status. */
async function follow(get: () => Promise<Status>, first: Status, io: Io): Promise<Status> {
  const printed = new Map<string, string>();
  let status = first;
  for (;;) {
    for (const [i, step] of status.steps.entries()) {
      if (step.status === 'pending' || printed.get(step.key) === step.status) continue;
      const n = `${i + 1}/${status.steps.length}`;
      if (step.status === 'running') io.out(`  ${n} ${step.label}…`);
      else if (step.status === 'done') io.out(`  ${n} ✓ ${step.label}: ${step.detail ?? ''}${seconds(step.durationMs)}`);
      else io.out(`  ${n} ✗ ${step.label}`);
      printed.set(step.key, step.status);
    }
    if (status.state !== 'starting') return status;
    await new Promise((resolve) => setTimeout(resolve, 500));
    status = await pollAgain(get);
  }
}

/**
 * One more look at the demo's progress. A poll that gets no answer at all (a connection reset or
 * refused while the server is busy making the demo) is asked again, a few times over ten seconds,
 * before the demo is called failed; an answer, even an error, is taken as it is.
 */
async function pollAgain(get: () => Promise<Status>): Promise<Status> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get();
    } catch (error) {
      if (error instanceof DemoError || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

export async function demo(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let port: number;
  try {
    const { values } = parseArgs({ args, strict: true, options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      io.out(DEMO_USAGE);
      return 0;
    }
    port = Number(values.port ?? env.PORT ?? 3000);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new DemoError(`--port must be a port number, got "${values.port ?? env.PORT}"`);
  } catch (error) {
    io.err(`querytrail: ${(error as Error).message}\n\n${DEMO_USAGE}`);
    return 2;
  }
  const base = `http://127.0.0.1:${port}`;
  const shown = `http://localhost:${port}`;
  const request = client(base, env.QUERYTRAIL_TOKEN || env.API_TOKEN || undefined);
  let server: ChildProcess | undefined;
  try {
    if (await answers(base)) {
      io.out(`querytrail answers on ${shown}: asking it for the demo.`);
    } else {
      io.out(`Nothing answers on ${shown}: starting querytrail from ${root}.`);
      await buildClientIfMissing(io);
      server = await startServer(base, { ...env, PORT: String(port) }, io);
    }
    const first = await request('POST');
    if (first.state === 'ready') io.out('The demo exists already (nothing made again):');
    else io.out('Making the demo:');
    const status = await follow(() => request('GET'), first, io);
    if (status.state !== 'ready') throw new DemoError(`The demo failed: ${status.error ?? status.state}`);
    io.out('');
    io.out(`The demo is ready${seconds(status.durationMs)}:`);
    io.out(`  environment "Pagila demo"  ${shown}/environments/${status.environmentId}`);
    io.out(`  failing CI run (PR #42)    ${shown}/ci/${status.pullRequestRunId}`);
    io.out(`  all CI runs                ${shown}/ci`);
    if (!server) return 0;
    io.out('');
    io.out(`querytrail keeps running on ${shown}; Ctrl-C stops it and the demo's PostgreSQL.`);
    const running = server;
    const forward = (signal: NodeJS.Signals) => () => running.kill(signal);
    process.once('SIGINT', forward('SIGINT'));
    process.once('SIGTERM', forward('SIGTERM'));
    const code = await new Promise<number>((resolve) => running.once('exit', (c) => resolve(c ?? 0)));
    return code;
  } catch (error) {
    io.err(`querytrail: ${error instanceof DemoError ? error.message : ((error as Error).stack ?? String(error))}`);
    server?.kill('SIGTERM');
    return 1;
  }
}
