// What a dead process left running, found at the next start. Every shadow cluster is recorded while
// it runs, one small JSON file per cluster in a registry folder: who started it (pid and start
// time), its postmaster, its temp folder. The cluster's watchdog (postgres-process.ts) stops it
// and removes the folder when its owner dies; this sweep is the net under it, for when the
// watchdog died too (a supervisor or the OOM killer ending the whole control group, a reboot
// mid-way) or could not start: at start, every entry whose owner is no longer running has its
// processes stopped, its folder removed and the entry deleted.
//
// The registry is DATA_DIR/shadows for the server (server/main.ts), else a folder of the current
// user's in the temp directory (the analyzer alone, tests, embedded use). Only a private folder is
// used (ours, a real directory, 0700): an entry names a folder to remove and processes to signal.
// Processes are signalled only when their working directory is the entry's data folder (postgres
// chdirs there), never on a recorded pid alone: pids are reused.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ClusterEntry {
  owner: { pid: number; started?: string };
  /** The cluster's temp folder, removed whole. */
  root: string;
  /** Its data folder, real path (what /proc/<pid>/cwd of its processes reads). */
  dataDir: string;
  postmaster?: number;
  watchdog?: number;
  /** The uid its processes run as. */
  uid?: number;
}

export interface Registration {
  update(fields: Partial<Pick<ClusterEntry, 'postmaster' | 'watchdog'>>): void;
  remove(): void;
}

/** A temp folder of ours: qt-<name>-XXXXXX, as startCluster makes them. */
const ROOT_NAME = /^qt-[A-Za-z0-9-]+-[A-Za-z0-9]{6}$/;

let chosen: string | undefined;
const swept = new Set<string>();

/** The registry of the current user in the temp directory (no DATA_DIR). */
export function defaultRegistry(): string {
  return path.join(tmpdir(), `querytrail-shadows-${process.getuid?.() ?? 'user'}`);
}

/** Records shadows in `dir` from now on (the server: DATA_DIR/shadows). */
export function useShadowRegistry(dir: string): void {
  chosen = path.resolve(dir);
}

/** The registry folder shadows are recorded in. */
export function shadowRegistry(): string {
  return chosen ?? defaultRegistry();
}

/** Creates `dir` when missing; true when it is a private folder of ours, safe to trust. */
function privateFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    return st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid()) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22); undefined without /proc. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process that recorded an entry still runs (the same process: same pid and start time). */
function ownerRunning(owner: ClusterEntry['owner']): boolean {
  if (!running(owner.pid)) return false;
  const now = startTime(owner.pid);
  return owner.started === undefined || now === undefined || now === owner.started;
}

const entryFile = (dir: string, root: string) => path.join(dir, `${path.basename(root)}.json`);

function write(file: string, entry: ClusterEntry): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(entry), { mode: 0o600 });
  renameSync(temp, file);
}

/** Records a cluster of this process in `dir`; nothing is recorded when `dir` is not a private folder. */
export function registerCluster(dir: string, cluster: Omit<ClusterEntry, 'owner'>): Registration | undefined {
  if (!privateFolder(dir)) return undefined;
  const file = entryFile(dir, cluster.root);
  const entry: ClusterEntry = { owner: { pid: process.pid, started: startTime(process.pid) }, ...cluster };
  try {
    write(file, entry);
  } catch {
    return undefined;
  }
  let removed = false;
  return {
    update(fields) {
      if (removed) return;
      Object.assign(entry, fields);
      try {
        write(file, entry);
      } catch {
        // the watchdog still covers it
      }
    },
    remove() {
      removed = true;
      rmSync(file, { force: true });
    },
  };
}

/** The processes running in `entry`'s data folder (its postmaster and backends). */
function clusterProcesses(entry: ClusterEntry): number[] {
  if (existsSync('/proc/self/cwd')) {
    const found: number[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readlinkSync(`/proc/${name}/cwd`) === entry.dataDir) found.push(Number(name));
      } catch {
        // gone, or not ours to read
      }
    }
    return found;
  }
  // no /proc: the recorded postmaster, when its command line names the data folder
  if (!entry.postmaster || !running(entry.postmaster)) return [];
  try {
    const command = execFileSync('ps', ['-o', 'command=', '-p', String(entry.postmaster)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return command.includes(entry.dataDir) || command.includes(path.join(entry.root, 'data')) ? [entry.postmaster] : [];
  } catch {
    return [];
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Immediate shutdown of the cluster's processes, SIGKILL after 5 s; resolves once none runs (10 s at most). */
async function stopProcesses(entry: ClusterEntry): Promise<number> {
  const first = clusterProcesses(entry);
  const signal = (pids: number[], name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // already gone
      }
    }
  };
  signal(first, 'SIGQUIT');
  const killAt = Date.now() + 5000;
  const end = Date.now() + 10_000;
  let left = first;
  let killed = false;
  while (left.length && Date.now() < end) {
    await pause(50);
    left = clusterProcesses(entry);
    if (!killed && Date.now() > killAt) {
      signal(left, 'SIGKILL');
      killed = true;
    }
  }
  return first.length;
}

/**
 * The System V shared memory a postmaster killed outright (SIGKILL skips its cleanup) leaves: its
 * 56-byte interlock segment, which only a restart of that cluster would find again. Removed when
 * created by the entry's postmaster, as its uid, and attached by no process. Linux only.
 */
function removeSharedMemory(entry: ClusterEntry): number {
  if (!entry.postmaster) return 0;
  let table: string[][];
  try {
    table = readFileSync('/proc/sysvipc/shm', 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
  } catch {
    return 0;
  }
  const [header = [], ...rows] = table;
  const col = (name: string) => header.indexOf(name);
  let removed = 0;
  for (const row of rows) {
    if (row[col('cpid')] !== String(entry.postmaster) || row[col('nattch')] !== '0') continue;
    if (entry.uid !== undefined && row[col('uid')] !== String(entry.uid)) continue;
    try {
      execFileSync('ipcrm', ['-m', row[col('shmid')]!], { stdio: 'ignore' });
      removed++;
    } catch {
      // removed meanwhile, or no ipcrm
    }
  }
  return removed;
}

function removeRoot(root: string): boolean {
  if (!path.isAbsolute(root) || !ROOT_NAME.test(path.basename(root))) return false;
  try {
    if (!lstatSync(root).isDirectory()) return false;
  } catch {
    return false; // already removed (by its watchdog, say)
  }
  rmSync(root, { recursive: true, force: true });
  return true;
}

export interface Swept {
  /** Temp folders removed. */
  removed: string[];
  /** Processes (postmasters and backends) stopped. */
  stopped: number;
}

/**
 * Stops and removes what dead processes recorded in `dir` (default: the current registry); entries
 * of running processes are left alone. Safe to run from several processes at once.
 */
export async function sweepShadows(dir: string = shadowRegistry()): Promise<Swept> {
  const result: Swept = { removed: [], stopped: 0 };
  swept.add(dir);
  if (!existsSync(dir) || !privateFolder(dir)) return result;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (!name.endsWith('.json')) {
      // a temp file of a write that died half-way
      if (name.endsWith('.tmp')) {
        const pid = Number(name.split('.').at(-2));
        if (!running(pid)) rmSync(file, { force: true });
      }
      continue;
    }
    let entry: ClusterEntry;
    try {
      entry = JSON.parse(readFileSync(file, 'utf8')) as ClusterEntry;
    } catch {
      continue; // being written: renamed into place whole, so only a stranger's file reads badly
    }
    if (typeof entry?.owner?.pid !== 'number' || typeof entry.root !== 'string' || typeof entry.dataDir !== 'string') continue;
    if (ownerRunning(entry.owner)) continue;
    result.stopped += await stopProcesses(entry);
    removeSharedMemory(entry);
    if (removeRoot(entry.root)) result.removed.push(entry.root);
    rmSync(file, { force: true });
  }
  return result;
}

/** The registry to record a new shadow in, swept first when this process has not yet swept it; undefined when unusable. */
export async function preparedShadowRegistry(): Promise<string | undefined> {
  const dir = shadowRegistry();
  if (!swept.has(dir)) await sweepShadows(dir).catch(() => undefined);
  return privateFolder(dir) ? dir : undefined;
}
