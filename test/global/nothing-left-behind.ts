// vitest globalSetup: the suite leaves no process and no cluster folder behind.
//
// The run gets a temp directory of its own, TMPDIR=<tmp>/qt-run-XXXXXX, set before the workers
// start: they, every process a test starts with our environment (servers, their shadow PostgreSQL,
// the tests' own PostgreSQL servers) and every temp folder they make inherit it, so what is there
// at the end is this run's, whatever other runs share the machine meanwhile. At the end, once what
// is still shutting down has had a bounded time to finish (a watchdog removing the folder of a
// server a test just killed), these are leaks and fail the run, listed:
//   - in the run's directory: a cluster folder (qt-shadow-*, a shadow; qt-pg<major>-*, a test's
//     PostgreSQL) still there; a process still running that belongs to the run: its working
//     directory under it (a postgres of a cluster there), its command line naming it (postgres -D,
//     a shadow's watchdog) or its TMPDIR set to it (a server a test started); this process and its
//     direct children (vitest's workers, which vitest stops right after) excepted;
//   - in the machine's temp directory, for processes a test started with an environment of their
//     own (no TMPDIR): a cluster folder that was not there at the start and that no process works
//     in any more (nor was changed in the last 10 s), and an orphaned postgres (parent pid 1)
//     working under it that started during the run. (A concurrent run's live clusters are in use,
//     so not counted; what another process dying meanwhile left there would be.)
// Leaks are then stopped and removed, so a failed run does not pile up either, and the run's
// directory goes. A throw in a global teardown is only logged by vitest (exit code 0, checked):
// exitCode is set too. Other leftovers in the run's directory (a test's scratch folder it did not
// remove) are named, not failed, and go with the directory.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CLUSTER_FOLDER = /^qt-(shadow|pg\d+)-/;
/** Folders that are no test's doing: tsx's compile cache, the (empty) shadow registry. */
const EXPECTED = /^(tsx-\d+|querytrail-shadows-\d+)$/;
const SETTLE_MS = 30_000;

interface Proc {
  pid: number;
  ppid: number;
  args: string;
  cwd?: string;
  environ?: string;
  /** Clock ticks since boot (/proc/<pid>/stat field 22). */
  started?: number;
}

interface Leaks {
  folders: string[];
  processes: (Proc & { why: string })[];
}

function read(file: string, how: 'link' | 'text'): string | undefined {
  try {
    return how === 'link' ? readlinkSync(file) : readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function startTime(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`, 'text');
  return stat === undefined ? undefined : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

function processes(): Proc[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const pid = Number(m[1]);
      return {
        pid,
        ppid: Number(m[2]),
        args: m[3]!,
        cwd: read(`/proc/${pid}/cwd`, 'link'),
        environ: read(`/proc/${pid}/environ`, 'text'),
        started: startTime(pid),
      };
    });
}

function modified(file: string): number {
  try {
    return lstatSync(file).mtimeMs;
  } catch {
    return Date.now(); // gone meanwhile
  }
}

const under = (dir: string, p: string | undefined) => p !== undefined && (p === dir || p.startsWith(`${dir}/`));
const clusterFolders = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => CLUSTER_FOLDER.test(name)) : []);

interface Baseline {
  runDir: string;
  outer: string;
  /** Cluster folders in the machine's temp directory at the start. */
  outerFolders: Set<string>;
  /** This process's start: a process started later started during the run. */
  started: number;
}

function findLeaks(b: Baseline): Leaks {
  const all = processes();
  const leaks: Leaks = { folders: [], processes: [] };
  for (const p of all) {
    if (p.pid === process.pid || p.ppid === process.pid) continue;
    const why = under(b.runDir, p.cwd)
      ? `working directory ${p.cwd}`
      : p.args.includes(b.runDir)
        ? 'command line names the run directory'
        : p.environ?.split('\0').includes(`TMPDIR=${b.runDir}`)
          ? 'started by the run (its TMPDIR)'
          : p.ppid === 1 && /(^|\/)postgres(\s|$)/.test(p.args) && under(b.outer, p.cwd) && (p.started ?? 0) > b.started
            ? `orphaned postgres started during the run, working in ${p.cwd}`
            : undefined;
    if (why) leaks.processes.push({ ...p, why });
  }
  leaks.folders.push(...clusterFolders(b.runDir).map((name) => path.join(b.runDir, name)));
  for (const name of clusterFolders(b.outer)) {
    const folder = path.join(b.outer, name);
    if (b.outerFolders.has(name) || all.some((p) => under(folder, p.cwd))) continue; // older, or a live cluster's
    if (Date.now() - modified(folder) < 10_000) continue; // a cluster being made (before initdb runs in it)
    leaks.folders.push(folder);
  }
  return leaks;
}

function describe(leaks: Leaks): string {
  return [
    ...leaks.folders.map((folder) => `  folder ${folder}`),
    ...leaks.processes.map((p) => `  process ${p.pid} (parent ${p.ppid}${p.ppid === 1 ? ', orphaned' : ''}; ${p.why}): ${p.args.slice(0, 160)}`),
  ].join('\n');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export default function setup(): () => Promise<void> {
  const outer = tmpdir();
  const runDir = mkdtempSync(path.join(outer, 'qt-run-'));
  // clusters run as the `postgres` / `querytrail-shadow` user when we are root: they must reach their folders
  chmodSync(runDir, 0o711);
  const baseline: Baseline = { runDir, outer, outerFolders: new Set(clusterFolders(outer)), started: startTime(process.pid) ?? 0 };
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = runDir;

  return async function teardown() {
    const end = Date.now() + SETTLE_MS;
    let leaks = findLeaks(baseline);
    while ((leaks.folders.length || leaks.processes.length) && Date.now() < end) {
      await pause(100);
      leaks = findLeaks(baseline);
    }
    const others = existsSync(runDir) ? readdirSync(runDir).filter((name) => !CLUSTER_FOLDER.test(name) && !EXPECTED.test(name)) : [];
    if (others.length)
      console.warn(`nothing-left-behind: tests left ${others.length} temp entries (removed with the run's temp directory): ${others.join(', ')}`);

    if (leaks.processes.length) {
      // the run's own: postgres servers shut down at once, anything else killed (watchdogs then clean up)
      for (const p of leaks.processes) signal(p.pid, /postgres/.test(p.args) ? 'SIGQUIT' : 'SIGKILL');
      const stopEnd = Date.now() + 10_000;
      while (findLeaks(baseline).processes.length && Date.now() < stopEnd) await pause(100);
    }
    for (const folder of leaks.folders) rmSync(folder, { recursive: true, force: true });
    rmSync(runDir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;

    if (leaks.folders.length || leaks.processes.length) {
      process.exitCode = 1;
      throw new Error(
        `The test run left ${leaks.folders.length} cluster folders and ${leaks.processes.length} processes behind (waited ${SETTLE_MS / 1000} s):\n${describe(leaks)}`,
      );
    }
  };
}
