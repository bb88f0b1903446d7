// Opens the app's own store: PGlite on disk by default, a real PostgreSQL when DATABASE_URL is set.
// Both are driven by drizzle's PgDatabase API, so every query in the server is written once and
// runs on either; migrations from drizzle-kit are applied on open.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';
import { ensurePrivateDir, makeTreePrivate } from '../private-files';

/** Both drivers return raw query results with a `rows` array; this tells TypeScript so. */
export interface RowsResultHKT extends PgQueryResultHKT {
  readonly type: { rows: Record<string, unknown>[] };
}

export type Db = PgDatabase<RowsResultHKT, typeof schema>;

export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface StoreOptions {
  /** postgres:// URL of a real server; without it the store is PGlite. */
  databaseUrl?: string;
  /** Folder for PGlite's files; omitted means in memory (tests). */
  dataDir?: string;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, application_name: 'querytrail' });
    // A pool client that errors while idle must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    await migratePg(db as never, { migrationsFolder });
    return { db, kind: 'postgres', close: () => pool.end() };
  }
  let dataDir: string | undefined;
  if (options.dataDir) {
    ensurePrivateDir(options.dataDir);
    dataDir = path.join(options.dataDir, 'pglite');
    ensurePrivateDir(dataDir);
  }
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(db as never, { migrationsFolder });
  // PGlite unpacks its initial cluster 0666 and writes some files 0644 whatever the umask: the
  // store's folder is 0700 already, and its files are made 0600 once started and again on close.
  const privatize = () => {
    if (dataDir) makeTreePrivate(dataDir);
  };
  privatize();
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await client.close();
      privatize();
    },
  };
}
