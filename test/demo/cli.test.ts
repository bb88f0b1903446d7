// `npx querytrail demo` from a clean clone, as a newcomer runs it: nothing answers on the port, so
// the command builds the web app, starts querytrail from the sources, makes the demo and prints
// each step. Then, through the API: the environment, a catalog of three sources, an analysis with
// recommendations and the pull request's failing verdict. Running it again makes nothing twice;
// stopping querytrail stops the demo's PostgreSQL, starting it again starts it; DELETE /api/demo
// removes everything.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../support/api';
import { freePort } from '../support/postgres';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DEMO_TIMEOUT = 300_000;

let clone = '';
let dataDir = '';
let port = 0;
let analyzerPort = 0;
const running: ChildProcess[] = [];

/** The checkout's files as a fresh clone has them (tracked and new, nothing ignored: no dist/, no .data), with node_modules linked. */
function cleanClone(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'qt-clone-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT }).toString().split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(path.join(ROOT, file))) continue; // deleted in the working tree
    if (file === 'node_modules') continue; // a link to it is not ignored by node_modules/; linked below
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

interface Demo {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the output once `text` has been printed (or rejects when the command exits first). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number>;
}

function runDemo(): Demo {
  const child = spawn(process.execPath, [path.join(clone, 'bin', 'querytrail.mjs'), 'demo'], {
    cwd: clone,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ANALYZER_PORT: String(analyzerPort), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return {
    child,
    output: () => out,
    exited,
    async waitFor(text, timeoutMs = DEMO_TIMEOUT) {
      const deadline = Date.now() + timeoutMs;
      const found = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
      let done = false;
      void exited.then(() => (done = true));
      while (!found()) {
        if (done) throw new Error(`querytrail demo exited before printing ${text}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`querytrail demo did not print ${text} in time:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return out;
    },
  };
}

const api = <T = any>(method: string, route: string) => requestJson<T>(`http://127.0.0.1:${port}/api${route}`, { method });

/** Whether the demo's PostgreSQL accepts TCP connections on its port. */
const listening = (demoPort: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(demoPort, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
const demoPort = () => JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')).port as number;

beforeAll(async () => {
  clone = cleanClone();
  dataDir = mkdtempSync(path.join(tmpdir(), 'qt-demo-data-'));
  rmSync(dataDir, { recursive: true }); // empty: the server makes it
  [port, analyzerPort] = [await freePort(), await freePort()];
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(running.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  rmSync(clone, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npx querytrail demo', () => {
  let first: Demo;
  let envId = '';

  it(
    'from a clean clone: builds the app, starts querytrail, prints each step and where to look',
    async () => {
      first = runDemo();
      const out = await first.waitFor('querytrail keeps running');
      expect(out).toContain(`Nothing answers on http://localhost:${port}: starting querytrail`);
      expect(out).toContain('Building the web app (first run only)');
      for (const step of [
        /✓ Start PostgreSQL 18: 127\.0\.0\.1:\d+, pg_stat_statements preloaded/,
        /✓ Load the Pagila schema and data: [\d,]+ rows in 15 tables/,
        /✓ Run the application's workload: [\d,]+ statements/,
        /✓ Create the environment "Pagila demo": production connection as querytrail_reader \(read only\), repository demo\/pagila-app/,
        /✓ Sync production's pg_stat_statements into the catalog: \d+ queries/,
        /✓ Add a query by hand/,
        /✓ Post two CI runs: main, then a pull request/,
        /✓ Analyze the catalog with production statistics: \d+ queries planned, \d+ indexes recommended/,
        /✓ Judge the pull request's run: Failed: \d+ failing findings?; CREATE INDEX ON public\.payment \(rental_id\)/,
      ]) {
        expect(out).toMatch(step);
      }
      expect(out).toMatch(new RegExp(`environment "Pagila demo" +http://localhost:${port}/environments/env_`));
      expect(out).toMatch(new RegExp(`failing CI run \\(PR #42\\) +http://localhost:${port}/ci/run_`));
      // the server's own lines are shown, indented
      expect(out).toMatch(/\| querytrail on http:\/\/127\.0\.0\.1:\d+/);
      expect(existsSync(path.join(clone, 'dist', 'client', 'index.html'))).toBe(true);
    },
    DEMO_TIMEOUT,
  );

  it('the API shows the environment, a catalog of three sources, recommendations and a failing verdict', async () => {
    const status = (await api('GET', '/demo')).body;
    expect(status).toMatchObject({ state: 'ready', database: 'running', error: null });
    envId = status.environmentId;
    const envs = (await api('GET', '/env')).body;
    expect(envs.map((e: { name: string }) => e.name)).toEqual(['Pagila demo']);
    const env = (await api('GET', `/env/${envId}`)).body;
    expect(env.repos.map((r: { repo: string }) => r.repo)).toEqual(['demo/pagila-app']);
    expect(env.connections).toEqual([expect.objectContaining({ role: 'production', label: 'Pagila (demo PostgreSQL)' })]);
    expect(JSON.stringify(env)).not.toMatch(/querytrail_reader:[0-9a-f]{8}/);

    const catalog = (await api<any[]>('GET', `/env/${envId}/queries`)).body;
    expect(new Set(catalog.map((q) => q.lastSeenSource))).toEqual(new Set(['ci', 'production', 'manual']));
    expect(catalog.filter((q) => q.cost !== null).length).toBeGreaterThan(10);

    const analysis = (await api('GET', `/env/${envId}/analyze`)).body;
    expect(analysis.status).toBe('done');
    expect(analysis.indexes.map((i: { createIndex: string }) => i.createIndex).join('\n')).toMatch(/customer \(email/);

    const verdict = (await api('GET', `/ci/runs/${status.pullRequestRunId}/verdict`)).body;
    expect(verdict.status).toBe('fail');
    expect(verdict.baseline).toMatchObject({ id: status.baselineRunId, branch: 'main' });
    const needsIndex = verdict.findings.find((f: { kind: string }) => f.kind === 'new_query_needs_index');
    expect(needsIndex.recommendations[0].createIndex).toMatch(/^CREATE INDEX ON public\.payment \(rental_id\)/);
    expect(verdict.findings.map((f: { kind: string }) => f.kind)).toContain('lost_index');
    expect((await api('GET', `/ci/runs/${status.baselineRunId}/verdict`)).body.status).toBe('pass');
  });

  it('run again while querytrail runs: asks it, makes nothing twice', async () => {
    const again = runDemo();
    expect(await again.exited).toBe(0);
    expect(again.output()).toContain(`querytrail answers on http://localhost:${port}: asking it for the demo.`);
    expect(again.output()).toContain('The demo exists already (nothing made again)');
    expect((await api('GET', '/env')).body).toHaveLength(1);
    expect((await api('GET', '/ci/runs')).body).toHaveLength(2);
    expect((await api('GET', '/demo')).body.environmentId).toBe(envId);
  }, 60_000);

  it("Ctrl-C stops querytrail and the demo's PostgreSQL; the next start starts it again", async () => {
    const pgPort = demoPort();
    expect(await listening(pgPort)).toBe(true);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await listening(pgPort)).toBe(false);

    const second = runDemo();
    const out = await second.waitFor('querytrail keeps running', 120_000);
    expect(out).toContain('The demo exists already (nothing made again)');
    expect(out).not.toContain('Building the web app');
    const status = (await api('GET', '/demo')).body;
    expect(status).toMatchObject({ state: 'ready', database: 'running', environmentId: envId });
    expect(await listening(demoPort())).toBe(true);
    // its production connection still reads the database
    const synced = await api('POST', `/env/${envId}/queries/sync-production`);
    expect(synced.status).toBe(200);

    // Remove: the environment, the runs and the folder go
    expect((await api('DELETE', '/demo')).status).toBe(204);
    expect((await api('GET', '/env')).body).toEqual([]);
    expect((await api('GET', '/ci/runs')).body).toEqual([]);
    expect(existsSync(path.join(dataDir, 'demo-postgres'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'demo.json'))).toBe(false);
    expect((await api('GET', '/demo')).body.state).toBe('absent');
    second.child.kill('SIGTERM');
    await second.exited;
  }, 180_000);
});
