// The app's own store for tests, on both backends: PGlite (in memory) and a real PostgreSQL server
// (started here, or TEST_DATABASE_URL's server with a fresh database per test suite).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import { createApp, keepIdleConnections } from '../../server/app';
import { readConfig, type Config } from '../../server/config';
import { openStore } from '../../server/db/store';
import { createSecrets } from '../../server/secrets';
import { withJobs } from '../../server/services';
import { closeWarmShadows } from '../../server/verdict/shadows';
import type { Services } from '../../server/services-type';
import { startPostgres, type PostgresServer } from './postgres';

export const BACKENDS = ['pglite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

let server: PostgresServer | undefined;
let serverStarting: Promise<PostgresServer> | undefined;

/** One PostgreSQL server per test file (worker), started on first use. */
async function postgresUrlForNewDatabase(): Promise<string> {
  const name = `qt_${randomBytes(6).toString('hex')}`;
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  }
  serverStarting ??= startPostgres({ statStatements: false });
  server = await serverStarting;
  return server.createDatabase(name);
}

export async function stopTestPostgres() {
  await server?.stop();
  server = undefined;
  serverStarting = undefined;
}

/** The data folders testConfig made in this process, removed when it exits (a bench; vitest may stop a test file's process without an exit event). */
const dataDirs: string[] = [];
process.once('exit', () => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-data-'));
  dataDirs.push(dataDir);
  return { ...readConfig({}), dataDir, ...overrides };
}

export async function openTestServices(backend: Backend, overrides: Partial<Config> = {}): Promise<Services> {
  const databaseUrl = backend === 'postgres' ? await postgresUrlForNewDatabase() : undefined;
  const config = testConfig({ databaseUrl, ...overrides });
  const store = await openStore({ databaseUrl });
  // the job queue and its workers, as a server process has them (closing the store stops them)
  return withJobs(store, createSecrets(randomBytes(32)), config);
}

export interface TestServer {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/** The real HTTP app on a free loopback port, or on `port` (a server whose PUBLIC_URL must be known before it starts). */
export async function startTestServer(services: Services, options: { clientDir?: string; port?: number } = {}): Promise<TestServer> {
  const app = createApp(services, options);
  const http = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  keepIdleConnections(http);
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await closeWarmShadows();
      await services.store.close();
      rmSync(services.config.dataDir, { recursive: true, force: true });
    },
  };
}
