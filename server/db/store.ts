// Opens the app's own store: PGlite on disk by default, a real PostgreSQL when DATABASE_URL is set.
// Both are driven by drizzle's PgDatabase API, so every query in the server is written once and
// runs on either; migrations from drizzle-kit are applied on open.
import { readFileSync } from 'node:fs';
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
import { lockFolder } from './folder-lock';
import { copyTemplate, memoryTemplate } from './pglite-template';
import { listenPglite, listenPostgres, type Channel } from './channel';
import { yieldingPglite } from './yielding-pglite';

/** Both drivers return raw query results with a `rows` array; this tells TypeScript so. */
export interface RowsResultHKT extends PgQueryResultHKT {
  readonly type: { rows: Record<string, unknown>[] };
}

export type Db = PgDatabase<RowsResultHKT, typeof schema>;

export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * What the job queue (server/queue/) runs on: its own pool on PostgreSQL, the one PGlite instance
   * otherwise (a single connection, held by this process alone).
   */
  connection: { databaseUrl: string } | { pglite: PGlite };
  /**
   * Runs one statement straight through the driver, rows as the driver makes them: for the hottest
   * reads, whose SQL already answers in the API's shape, so no ORM maps the rows a second time. On
   * PostgreSQL a `name` makes it a prepared statement, parsed once per connection.
   */
  read<T>(statement: { name: string; text: string; values: unknown[] }): Promise<T[]>;
  /** LISTENs on a channel until the store closes (channel.ts). */
  listen(channel: string, onNotify: () => void): Promise<Channel>;
  close(): Promise<void>;
}

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Any constant: every querytrail process migrating the same database waits on the same lock. */
const MIGRATION_LOCK = 7_304_117_220_014;

/**
 * Servers started at once on a fresh database would each create the same tables (and one would fail
 * on pg_type's unique index): migrations run under a session advisory lock on one connection, so the
 * first applies them and the others, waiting, find them applied.
 */
async function migrateLocked(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * Whether the PGlite store lacks a migration of the journal. drizzle applies the migrations newer
 * than the newest it applied, after making its schema and table if missing: on a store that has
 * them all, one query answers, and the start skips the rest.
 */
async function migrationsPending(client: PGlite): Promise<boolean> {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };
  const newest = Math.max(...journal.entries.map((entry) => entry.when));
  const applied = await client
    .query<{ created_at: string }>('SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1')
    .catch(() => undefined); // a new store: no such table yet
  const last = applied?.rows[0]?.created_at;
  return last === undefined || !(Number(last) >= newest);
}

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
    await migrateLocked(pool).catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const channels = new Set<Channel>();
    const databaseUrl = options.databaseUrl;
    return {
      db,
      kind: 'postgres',
      connection: { databaseUrl },
      read: async <T>(statement: { name: string; text: string; values: unknown[] }) => (await pool.query(statement)).rows as T[],
      listen: async (channel, onNotify) => {
        const opened = await listenPostgres(databaseUrl, channel, onNotify);
        channels.add(opened);
        return opened;
      },
      close: async () => {
        await Promise.all([...channels].map((channel) => channel.close()));
        await pool.end();
      },
    };
  }
  let dataDir: string | undefined;
  let lock: ReturnType<typeof lockFolder> | undefined;
  if (options.dataDir) {
    ensurePrivateDir(options.dataDir);
    // held until close or exit: a second server on this folder would corrupt it
    lock = lockFolder(options.dataDir, `DATA_DIR ${options.dataDir}`);
    dataDir = path.join(options.dataDir, 'pglite');
    ensurePrivateDir(dataDir);
  }
  let client: PGlite;
  try {
    // an empty folder gets a copy of the migrated template cluster rather than initdb, a store in
    // memory the same cluster as a tar (pglite-template.ts)
    if (dataDir) await copyTemplate(dataDir);
    const loadDataDir = dataDir ? undefined : await memoryTemplate();
    const started = dataDir ? await PGlite.create(dataDir) : await PGlite.create({ loadDataDir });
    client = yieldingPglite(started);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  if (await migrationsPending(client)) await migratePglite(db as never, { migrationsFolder });
  // PGlite unpacks its initial cluster 0666 and writes some files 0644 whatever the umask: the
  // store's folder is 0700 already, and its files are made 0600 once started and again on close.
  const privatize = () => {
    if (dataDir) makeTreePrivate(dataDir);
  };
  privatize();
  return {
    db,
    kind: 'pglite',
    connection: { pglite: client },
    read: async <T>({ text, values }: { text: string; values: unknown[] }) => (await client.query<T>(text, values)).rows,
    listen: (channel, onNotify) => listenPglite(client, channel, onNotify),
    close: async () => {
      await client.close();
      privatize();
      lock?.release();
    },
  };
}
