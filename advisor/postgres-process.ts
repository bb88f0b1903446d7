// Running a throwaway PostgreSQL cluster from a set of binaries: initdb into a fresh temp folder,
// start `postgres`, wait until it accepts connections, stop it and remove its files. Used by the
// advisor's shadow planner and by the tests' servers (test/support/postgres.ts).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/**
 * PostgreSQL refuses to run as root: run it as `name` then, a system user created when missing
 * (no home, no login shell). The advisor's shadow uses its own user so that nothing it runs shares
 * an account with any other PostgreSQL on the machine; the tests' servers keep `postgres`.
 */
function serverUser(name = 'postgres'): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', name]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', name]).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name], { stdio: 'ignore' });
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
}

export interface Cluster {
  dataDir: string;
  socketDir: string;
  owner?: { uid: number; gid: number };
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const owner = serverUser(options.osUser);
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const root = mkdtempSync(path.join(tmpdir(), `${options.name}-`));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'sock');
  mkdirSync(socketDir, { mode: options.socketMode ?? 0o755 });
  const own = (file: string) => owner && chownSync(file, owner.uid, owner.gid);
  own(root);
  own(socketDir);
  // Only what initdb and postgres need: nothing of ours (tokens, connection strings) reaches them.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LC_ALL: 'C', LANG: 'C', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) };
  const auth = ['--auth=trust'];
  if (options.password !== undefined) {
    const pwfile = path.join(root, 'pw');
    writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
    own(pwfile);
    auth.splice(0, 1, '--auth=md5', '--pwfile', pwfile);
  }
  execFileSync(options.binaries.initdb, ['-D', dataDir, '-U', 'postgres', ...auth, '-E', 'UTF8', '--locale=C', '--no-sync'], {
    ...ids,
    env,
    stdio: 'pipe',
  });
  const settings = { ...options.settings, unix_socket_directories: socketDir };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const child: ChildProcess = spawn(options.binaries.postgres, args, { ...ids, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start:\n${log}`)), options.startTimeoutMs ?? 30_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited with ${code}:\n${log}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  child.stderr!.removeAllListeners('data');
  child.stderr!.resume();
  child.removeAllListeners('exit');

  let stopped = false;
  const kill = () => {
    if (!stopped) child.kill('SIGKILL');
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
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // fast shutdown: nothing in these clusters is worth keeping
      });
      rmSync(root, { recursive: true, force: true });
    },
  };
}
