// The sweep at start (shadow/cluster-registry.ts) on registry entries written by hand: what a dead
// process recorded is removed, what a running one recorded is left alone, and nothing but the
// processes working in the entry's data folder is ever signalled (a recorded pid may have been
// reused), nor anything but one of our temp folders removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerCluster, sweepShadows, type ClusterEntry } from '../../shadow/cluster-registry';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function folder(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o700);
  return dir;
}

/** A process, working in `cwd`, that runs until killed. */
async function sleeper(cwd = '/'): Promise<ChildProcess> {
  const child = spawn('sleep', ['600'], { cwd, stdio: 'ignore' });
  started.push(child);
  await once(child, 'spawn');
  return child;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function entry(registry: string, e: ClusterEntry): void {
  writeFileSync(path.join(registry, `${path.basename(e.root)}.json`), JSON.stringify(e), { mode: 0o600 });
}

/** A cluster's temp folder as startCluster makes it: qt-shadow-XXXXXX with data/ inside. */
function clusterRoot(): { root: string; dataDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'qt-shadow-'));
  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir);
  return { root, dataDir: realpathSync(dataDir) };
}

describe('the shadow registry sweep', () => {
  it("stops the processes working in a dead owner's data folder and removes its folder and entry", async () => {
    const registry = folder('qt-registry-');
    const { root, dataDir } = clusterRoot();
    // stand-ins for a postmaster and a backend: processes whose working directory is the data folder
    const postmaster = await sleeper(dataDir);
    const backend = await sleeper(dataDir);
    const stranger = await sleeper();
    entry(registry, { owner: { pid: await deadPid() }, root, dataDir, postmaster: postmaster.pid });

    const swept = await sweepShadows(registry);
    expect(swept).toEqual({ removed: [root], stopped: 2 });
    expect(existsSync(root)).toBe(false);
    expect(readdirSync(registry)).toEqual([]);
    await Promise.all([postmaster, backend].map((c) => (running(c) ? once(c, 'exit') : undefined)));
    expect(postmaster.signalCode).toBe('SIGQUIT');
    expect(backend.signalCode).toBe('SIGQUIT');
    expect(running(stranger)).toBe(true);
    rmSync(registry, { recursive: true });
  });

  it('never signals a recorded pid that is now another process (reused), nor removes a folder that is not ours', async () => {
    const registry = folder('qt-registry-');
    const { root, dataDir } = clusterRoot();
    const reused = await sleeper(); // the recorded postmaster pid, now someone else's process
    const notOurs = folder('important-'); // a folder whose name is not one of our clusters'
    entry(registry, { owner: { pid: await deadPid() }, root, dataDir, postmaster: reused.pid });
    entry(registry, { owner: { pid: await deadPid() }, root: notOurs, dataDir: path.join(notOurs, 'data'), postmaster: reused.pid });

    const swept = await sweepShadows(registry);
    expect(swept).toEqual({ removed: [root], stopped: 0 });
    expect(running(reused)).toBe(true);
    expect(existsSync(notOurs)).toBe(true);
    // both entries are done with
    expect(readdirSync(registry)).toEqual([]);
    rmSync(notOurs, { recursive: true });
    rmSync(registry, { recursive: true });
  });

  it("leaves a running owner's clusters alone, including this process's own", async () => {
    const registry = folder('qt-registry-');
    const { root, dataDir } = clusterRoot();
    const postmaster = await sleeper(dataDir);
    const owner = await sleeper();
    entry(registry, { owner: { pid: owner.pid! }, root, dataDir, postmaster: postmaster.pid });
    const own = clusterRoot();
    const registration = registerCluster(registry, { root: own.root, dataDir: own.dataDir });
    expect(registration).toBeDefined();

    expect(await sweepShadows(registry)).toEqual({ removed: [], stopped: 0 });
    expect(running(postmaster)).toBe(true);
    expect(existsSync(root) && existsSync(own.root)).toBe(true);
    expect(readdirSync(registry).sort()).toEqual([`${path.basename(own.root)}.json`, `${path.basename(root)}.json`].sort());

    // the owner dies: the next sweep takes its cluster, still not ours
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    expect(await sweepShadows(registry)).toEqual({ removed: [root], stopped: 1 });
    registration!.remove();
    expect(readdirSync(registry)).toEqual([]);
    rmSync(own.root, { recursive: true });
    rmSync(registry, { recursive: true });
  });

  it('refuses a registry folder that others can write', async () => {
    const registry = folder('qt-registry-');
    chmodSync(registry, 0o777);
    const { root, dataDir } = clusterRoot();
    entry(registry, { owner: { pid: await deadPid() }, root, dataDir });
    expect(await sweepShadows(registry)).toEqual({ removed: [], stopped: 0 });
    expect(existsSync(root)).toBe(true);
    expect(registerCluster(registry, { root, dataDir })).toBeUndefined();
    rmSync(root, { recursive: true });
    rmSync(registry, { recursive: true });
  });
});
