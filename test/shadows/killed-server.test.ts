// A querytrail killed without a word (SIGKILL, as the OOM killer or a supervisor's last resort does)
// in the middle of a CI run's verdict leaves no shadow PostgreSQL running and no shadow folder: the
// shadow's watchdog stops it and removes the folder (shadow/postgres-process.ts). And when the
// watchdog died with it (a whole control group killed), the next start on the same DATA_DIR finds
// the shadow in DATA_DIR/shadows and stops and removes it (shadow/cluster-registry.ts).
// Real processes throughout: `server/main.ts` as an operator runs it, a production PostgreSQL.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ClusterEntry } from '../../shadow/cluster-registry';
import { requestJson } from '../support/api';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { createEventsProduction, EVENTS_QUERIES } from '../support/events-production';
import { listening, startServerProcess, type ServerProcess } from '../multi-process/server-process';

let postgres: PostgresServer;
let productionUrl: string;
beforeAll(async () => {
  postgres = await startPostgres({ statStatements: false });
  productionUrl = await createEventsProduction(postgres);
}, 120_000);
afterAll(() => postgres?.stop());

const QUERIES = EVENTS_QUERIES;

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'qt-killed-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Polls `read` until it returns a value, for at most `seconds`. */
async function until<T>(what: string, read: () => T | undefined | Promise<T | undefined>, seconds = 120): Promise<T> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Running, not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Every process descended from `pid` now (the watchdog keeps its parent until that dies). */
function descendants(pid: number): { pid: number; args: string }[] {
  const all = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found: { pid: number; args: string }[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push({ pid: p.pid, args: p.args });
        grew = true;
      }
    }
  }
  return found;
}

/** The shadow the server recorded in DATA_DIR/shadows, once its postmaster runs. */
function runningShadow(dir: string): ClusterEntry | undefined {
  const registry = path.join(dir, 'shadows');
  if (!existsSync(registry)) return undefined;
  for (const name of readdirSync(registry).filter((n) => n.endsWith('.json'))) {
    try {
      const entry = JSON.parse(readFileSync(path.join(registry, name), 'utf8')) as ClusterEntry;
      if (entry.postmaster && alive(entry.postmaster)) return entry;
    } catch {
      // being renamed into place
    }
  }
  return undefined;
}

/** System V shared memory segments a process created (PostgreSQL's interlock segment), from /proc/sysvipc/shm. */
function segmentsCreatedBy(pid: number): string[] {
  const [header = [], ...rows] = readFileSync('/proc/sysvipc/shm', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
  return rows.filter((row) => row[header.indexOf('cpid')] === String(pid)).map((row) => row[header.indexOf('shmid')]!);
}

const registryEntries = (dir: string) => (existsSync(path.join(dir, 'shadows')) ? readdirSync(path.join(dir, 'shadows')) : []);

/** A server with production and a linked repository, and a CI run whose verdict job has started a shadow. */
async function serverMidVerdict(dir: string): Promise<{ server: ServerProcess; shadow: ClusterEntry; runId: string }> {
  const server = await listening(startServerProcess({ DATA_DIR: dir, JOB_POLL_SECONDS: '1' }));
  const envId = (await requestJson(`${server.url}/api/env`, { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id as string;
  expect(
    (
      await requestJson(`${server.url}/api/env/${envId}/connections`, {
        method: 'POST',
        json: { label: 'prod', role: 'production', connectionString: productionUrl },
      })
    ).status,
  ).toBe(201);
  expect((await requestJson(`${server.url}/api/env/${envId}/repos`, { method: 'POST', json: { repo: 'acme/shop' } })).status).toBe(201);
  const posted = await requestJson(`${server.url}/api/ci/runs`, {
    method: 'POST',
    json: { repo: 'acme/shop', runId: 'run-1', branch: 'feature/one', queries: QUERIES.map((query) => ({ query, calls: 10 })) },
  });
  expect(posted.status).toBe(201);
  const shadow = await until('the verdict to start a shadow', () => runningShadow(dir));
  return { server, shadow, runId: posted.body.id as string };
}

describe('a server killed mid-verdict', () => {
  it('leaves no shadow process and no shadow folder: the watchdog stops and removes them', async () => {
    const dir = dataDir();
    const { server, shadow, runId } = await serverMidVerdict(dir);
    const verdict = (await requestJson(`${server.url}/api/ci/runs/${runId}/verdict`)).body as { status: string };
    const family = descendants(server.pid);
    expect(family.some((p) => p.pid === shadow.postmaster)).toBe(true);
    expect(family.some((p) => p.pid === shadow.watchdog)).toBe(true);
    expect(existsSync(shadow.root)).toBe(true);

    const killedAt = performance.now();
    await server.kill();
    const left = () => family.filter((p) => alive(p.pid));
    await until('the shadow to be stopped and removed', () => (left().length === 0 && !existsSync(shadow.root) ? true : undefined), 30).catch(() => undefined);
    const ms = performance.now() - killedAt;
    // a figure for the report, not a check
    console.log(
      `killed with the verdict ${verdict.status}: ${family.length} processes it had started (postmaster, backends, watchdog, ...) and ${shadow.root} gone ${ms.toFixed(0)} ms after SIGKILL`,
    );
    expect(verdict.status).toBe('pending');
    expect(left()).toEqual([]);
    expect(existsSync(shadow.root)).toBe(false);
    expect(readdirSync(path.dirname(shadow.root)).filter((n) => n === path.basename(shadow.root))).toEqual([]);

    // the entry stays until the next start on this DATA_DIR, which finds nothing left to do and drops it
    expect(registryEntries(dir)).toEqual([`${path.basename(shadow.root)}.json`]);
    const again = await listening(startServerProcess({ DATA_DIR: dir }));
    expect(registryEntries(dir)).toEqual([]);
    expect(again.output()).not.toContain('removed');
    await again.stop();
  }, 300_000);

  it('and with its watchdog killed too, the next start on the same DATA_DIR stops the orphaned shadow and removes its folder', async () => {
    const dir = dataDir();
    const { server, shadow } = await serverMidVerdict(dir);
    const family = descendants(server.pid).filter((p) => p.pid !== shadow.watchdog);
    process.kill(shadow.watchdog!, 'SIGKILL');
    await server.kill();
    // nothing else stops it: the shadow runs on, an orphan
    expect(alive(shadow.postmaster!)).toBe(true);
    expect(existsSync(shadow.root)).toBe(true);

    const startedAt = performance.now();
    const again = await listening(startServerProcess({ DATA_DIR: dir }));
    // the sweep runs before the store opens: done by the time the server listens
    console.log(`restart: orphaned shadow stopped and removed by the sweep, server listening ${(performance.now() - startedAt).toFixed(0)} ms after its start`);
    expect(again.output()).toMatch(/removed 1 shadow PostgreSQL left by a stopped querytrail \(\d+ processes stopped\)/);
    expect(family.filter((p) => alive(p.pid))).toEqual([]);
    expect(existsSync(shadow.root)).toBe(false);
    expect(registryEntries(dir)).toEqual([]);
    await again.stop();
  }, 300_000);

  it('and with the whole group killed at once (server, watchdog and postmaster), the next start removes the folder and shared memory', async () => {
    const dir = dataDir();
    const { server, shadow } = await serverMidVerdict(dir);
    const family = descendants(server.pid);
    // as a cgroup kill does: every process at once, nobody left to clean up
    for (const p of [server.pid, ...family.map((f) => f.pid)]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await until('the killed processes to be gone', () => (family.some((p) => alive(p.pid)) ? undefined : true), 30);
    expect(existsSync(shadow.root)).toBe(true);
    // a postmaster killed outright leaves its interlock segment (its dynamic shared memory is in its folder)
    expect(segmentsCreatedBy(shadow.postmaster!)).toHaveLength(1);

    const again = await listening(startServerProcess({ DATA_DIR: dir }));
    expect(again.output()).toMatch(/removed 1 shadow PostgreSQL left by a stopped querytrail/);
    expect(existsSync(shadow.root)).toBe(false);
    expect(segmentsCreatedBy(shadow.postmaster!)).toEqual([]);
    expect(registryEntries(dir)).toEqual([]);
    await again.stop();
  }, 300_000);
});
