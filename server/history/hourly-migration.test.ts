// A store written before history kept one hourly table (points with the hour sums their triggers
// keep, older hours in history_hourly, a connection's previous reading in history_baselines) opens
// migrated on both backends with every reading still counted: a query's history and the window's
// sums read as the two tables together read before.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BACKENDS } from '../../test/support/services';
import * as schema from '../db/schema';
import { openStore, type Db, type Store } from '../db/store';
import { migrationsFolder } from '../db/pglite-template';
import { queryHistory, topQueries } from './read';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 9, 1, 0, 0);
const at = (hours: number) => new Date(START + hours * HOUR).toISOString();

let postgres: PostgresServer;
let tmp: string;
/** The migrations up to the one that made one hourly table, as a store written before it had them. */
let previousMigrations: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'qt-hourly-migration-'));
  previousMigrations = path.join(tmp, 'migrations');
  cpSync(migrationsFolder, previousMigrations, { recursive: true });
  const journalFile = path.join(previousMigrations, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const first = journal.entries.findIndex((entry) => entry.tag.endsWith('_one_hourly_history'));
  expect(first).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, first) }));
  postgres = await startPostgres({ statStatements: false });
});
afterAll(async () => {
  await postgres?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** What a store held: 30 hours past full resolution in history_hourly, then 10-minute points. */
const HOURLY = Array.from({ length: 30 }, (_, h) => ({
  hash: '00000000000000aa',
  at: at(h),
  calls: 60 + h,
  totalTimeMs: 1.5 * (60 + h),
  rows: h,
  hit: 2 * h,
  read: h % 3,
}));
const POINTS = Array.from({ length: 6 * 12 }, (_, i) => ({
  hash: i % 2 ? '00000000000000aa' : '00000000000000bb',
  at: new Date(START + 30 * HOUR + (i + 1) * 600_000).toISOString(),
  calls: 1 + (i % 7),
  totalTimeMs: 0.25 * (1 + (i % 5)),
  rows: i % 4,
  hit: i,
  read: i % 2,
}));
/** An hour in both tables (hand-made: retention folded an hour once): its sums add up, as the reads added them. */
const BOTH_TABLES = { hash: '00000000000000cc', at: at(31), calls: 7, totalTimeMs: 3.5, rows: 1, hit: 1, read: 0 };

async function writePreviousStore(run: (text: string, values?: unknown[]) => Promise<unknown>) {
  await run("INSERT INTO environments (id, name, slug) VALUES ('env_old', 'Old', 'old')");
  await run(
    "INSERT INTO connections (id, environment_id, label, role, connection_string_encrypted, masked_connection_string) VALUES ('conn_old', 'env_old', 'primary', 'production', 'sealed', 'postgres://***')",
  );
  await run("INSERT INTO history_baselines (connection_id, environment_id, taken_at, stats_reset) VALUES ('conn_old', 'env_old', $1, '2026-09-30')", [at(42)]);
  const insert = (table: string, row: (typeof POINTS)[number]) =>
    run(
      `INSERT INTO ${table} (environment_id, hash, at, calls, total_time_ms, rows, shared_blks_hit, shared_blks_read) VALUES ('env_old', $1, $2, $3, $4, $5, $6, $7)`,
      [row.hash, row.at, row.calls, row.totalTimeMs, row.rows, row.hit, row.read],
    );
  for (const row of HOURLY) await insert('history_hourly', row);
  for (const row of POINTS) await insert('history_points', row);
  await insert('history_hourly', BOTH_TABLES);
  await insert('history_points', { ...BOTH_TABLES, at: at(31.5) });
}

type Reads = Pick<Store, 'db' | 'read' | 'close'>;

/**
 * A store at the previous migration, written; returns how it opens again: through openStore on
 * PostgreSQL, and on PGlite by the migrator openStore runs, on a cluster in memory (a folder's
 * initdb would cost this file half a minute).
 */
async function previousStore(backend: (typeof BACKENDS)[number]): Promise<() => Promise<Reads>> {
  if (backend === 'postgres') {
    const databaseUrl = await postgres.createDatabase('store_before');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await migratePg(drizzlePg(client), { migrationsFolder: previousMigrations });
      await writePreviousStore((text, values) => client.query(text, values));
    } finally {
      await client.end();
    }
    return () => openStore({ databaseUrl });
  }
  const client = await PGlite.create();
  await migratePglite(drizzlePglite(client), { migrationsFolder: previousMigrations });
  await writePreviousStore((text, values) => client.query(text, values));
  return async () => {
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    await migratePglite(db as never, { migrationsFolder });
    return {
      db,
      read: async <T>({ text, values }: { text: string; values: unknown[] }) => (await client.query<T>(text, values)).rows,
      close: () => client.close(),
    };
  };
}

describe.each(BACKENDS)('a store with two hourly tables, on %s', (backend) => {
  it('opens with one, every reading kept: the same points and sums as both tables read together', async () => {
    const reopen = await previousStore(backend);
    const store = await reopen();
    try {
      const tables = await store.read<{ hourly: string | null; baselines: string | null }>({
        name: '',
        text: "SELECT to_regclass('history_hourly')::text AS hourly, to_regclass('history_baselines')::text AS baselines",
        values: [],
      });
      expect(tables).toEqual([{ hourly: null, baselines: null }]);
      const previous = await store.read<{ connection_id: string; stats_reset: string }>({
        name: '',
        text: 'SELECT connection_id, stats_reset FROM history_previous_readings',
        values: [],
      });
      expect(previous).toEqual([{ connection_id: 'conn_old', stats_reset: '2026-09-30' }]);

      // the query's history: each folded hour a point at its start, then the points
      const window = { from: new Date(START - HOUR / 2), to: new Date(START + 45.5 * HOUR) };
      const history = await queryHistory(store, 'env_old', '00000000000000aa', window);
      const expected = [...HOURLY, ...POINTS.filter((p) => p.hash === '00000000000000aa')];
      expect(history.map((p) => [p.at, p.calls, p.totalTimeMs, p.rows, p.sharedBlksHit, p.sharedBlksRead])).toEqual(
        expected.map((p) => [p.at, p.calls, p.totalTimeMs, p.rows, p.hit, p.read]),
      );

      // the window's sums, per query, over every row either table held
      const top = await topQueries(store.db, 'env_old', window, 'calls', 10);
      const sums = new Map<string, { calls: number; totalTimeMs: number; rows: number }>();
      for (const row of [...HOURLY, ...POINTS, BOTH_TABLES, BOTH_TABLES]) {
        const sum = sums.get(row.hash) ?? { calls: 0, totalTimeMs: 0, rows: 0 };
        sums.set(row.hash, { calls: sum.calls + row.calls, totalTimeMs: sum.totalTimeMs + row.totalTimeMs, rows: sum.rows + row.rows });
      }
      expect(top.map((q) => q.hash).sort()).toEqual([...sums.keys()].sort());
      for (const query of top) {
        const sum = sums.get(query.hash)!;
        expect(query, query.hash).toMatchObject({ calls: sum.calls, rows: sum.rows });
        expect(query.totalTimeMs).toBeCloseTo(sum.totalTimeMs, 9);
      }
    } finally {
      await store.close();
    }
  });
});
