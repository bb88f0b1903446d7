// The scratch PostgreSQL 18 that plans queries for the advisor. It holds schemas and statistics
// only, never user data, so it runs with durability off, autovacuum off (autovacuum would truncate
// the sparse relation files we extend, see relation-files.ts) and no TCP listener at all: clients reach it
// through a Unix socket in a private temp directory, with trust auth limited to that socket.
// When we run as root the server runs as its own system user, SHADOW_OS_USER, never the shared
// `postgres` account. Not as root it runs as our own user: then what keeps it away from our files
// is that no user code ever runs as its superuser (see access.ts and docs/security.md).
// Production code cannot import test/support, hence this small launcher of its own.
// A shadow never outlives the process that started it: its watchdog stops it and removes its
// folder when that process dies, and it is recorded in the shadow registry (cluster-registry.ts),
// swept the first time this process starts a shadow, for what a dead process's watchdog missed.
import path from 'node:path';
import { preparedShadowRegistry } from './cluster-registry.js';
import { stopResizer } from './file-resizer.js';
import { embeddedBinaries, startCluster } from './postgres-process';
import { prepareShadowServer } from './access.js';
import type { ShadowServer, ShadowServerOptions } from './types.js';

/** The OS account the shadow's processes run as when we are root. */
export const SHADOW_OS_USER = 'querytrail-shadow';

async function binaries(binDir?: string): Promise<{ postgres: string; initdb: string }> {
  if (binDir) return { postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb') };
  return embeddedBinaries();
}

export async function startShadowServer(options: ShadowServerOptions = {}): Promise<ShadowServer> {
  const port = 5432; // only names the socket file; there is no TCP listener
  const cluster = await startCluster({
    binaries: await binaries(options.binDir),
    name: 'qt-shadow',
    registry: await preparedShadowRegistry(),
    osUser: SHADOW_OS_USER,
    socketMode: 0o700,
    startTimeoutMs: (options.startTimeoutSeconds ?? 30) * 1000,
    settings: {
      listen_addresses: '',
      unix_socket_permissions: '0700',
      port: String(port),
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      autovacuum: 'off',
      shared_buffers: '32MB',
      max_connections: '20',
      // dynamic shared memory in files of the data folder rather than /dev/shm: a shadow killed
      // outright (SIGKILL to the postmaster, which skips its cleanup) leaves none behind there,
      // since the folder goes (its watchdog, the sweep). Little goes there: plans are never run.
      dynamic_shared_memory_type: 'mmap',
    },
  });
  const server: ShadowServer = {
    dataDir: cluster.dataDir,
    fileOwner: cluster.owner,
    connection: (database = 'postgres', user = 'postgres') => ({ host: cluster.socketDir, port, user, database }),
    stop: () => {
      stopResizer(server);
      return cluster.stop();
    },
  };
  try {
    await prepareShadowServer(server);
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  return server;
}
