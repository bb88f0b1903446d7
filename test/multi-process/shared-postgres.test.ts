// Several server processes on one PostgreSQL, as a company runs querytrail behind a load balancer:
// they start together on a fresh database, share the catalog, and share one SECRET_KEY.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { requestJson } from '../support/api';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { listening, startServerProcess } from './server-process';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres({ statStatements: false });
}, 120_000);
afterAll(() => postgres?.stop());

const journal = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../server/db/migrations/meta/_journal.json'), 'utf8')) as {
  entries: { tag: string }[];
};

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'qt-multi-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function freshDatabase(): Promise<{ name: string; url: string }> {
  const name = `qt_multi_${randomBytes(4).toString('hex')}`;
  return { name, url: await postgres.createDatabase(name) };
}

/** A run's queries as CI sends them without fingerprints, so each server fingerprints them itself. */
const runQueries = (from: number, count: number) =>
  Array.from({ length: count }, (_, k) => ({ query: `SELECT id, total FROM orders WHERE f${(from + k) % 1000} = ${k} AND status = 'open'` }));

describe('two servers on one PostgreSQL', () => {
  it('start at the same instant on a fresh database, apply the migrations once, and count concurrent ingestion exactly', async () => {
    const database = await freshDatabase();
    const env = { DATABASE_URL: database.url, SECRET_KEY: 'one key for every server' };
    const [a, b] = await Promise.all([
      listening(startServerProcess({ ...env, DATA_DIR: dataDir() })),
      listening(startServerProcess({ ...env, DATA_DIR: dataDir() })),
    ]);

    const applied = await postgres.query<{ n: number; distinct: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT hash)::int AS distinct FROM drizzle.__drizzle_migrations',
      [],
      database.name,
    );
    expect(applied.rows[0]).toEqual({ n: journal.entries.length, distinct: journal.entries.length });

    // one environment made through a, its repository linked through b
    const created = await requestJson(`${a.url}/api/env`, { method: 'POST', json: { name: 'Shop', slug: 'shop' } });
    expect(created.status).toBe(201);
    const envId = created.body.id as string;
    expect((await requestJson(`${b.url}/api/env/${envId}/repos`, { method: 'POST', json: { repo: 'acme/shop' } })).status).toBe(201);

    // 12 runs of 300 queries, overlapping, posted at once alternately through a and b
    const runs = Array.from({ length: 12 }, (_, r) => ({ runId: `run-${r}`, from: r * 70, count: 300 }));
    const answers = await Promise.all(
      runs.map((run, r) =>
        requestJson(`${(r % 2 ? b : a).url}/api/ci/runs`, {
          method: 'POST',
          json: { repo: 'acme/shop', runId: run.runId, queries: runQueries(run.from, run.count) },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(runs.map(() => 201));

    const expected = new Map<string, number>();
    for (const run of runs) for (let k = 0; k < run.count; k++) expected.set(`f${(run.from + k) % 1000}`, (expected.get(`f${(run.from + k) % 1000}`) ?? 0) + 1);
    const stored = await postgres.query<{ query: string; ci_run_count: number }>(
      'SELECT query, ci_run_count FROM catalog_queries WHERE environment_id = $1',
      [envId],
      database.name,
    );
    const got = new Map(stored.rows.map((row) => [/\bf\d+/.exec(row.query)![0], row.ci_run_count]));
    expect(got).toEqual(expected);
    expect(answers.reduce((n, answer) => n + (answer.body.newQueryCount as number), 0)).toBe(expected.size);
    for (const server of [a, b]) {
      const page = await requestJson(`${server.url}/api/env/${envId}/queries?limit=10`);
      expect(page.headers.get('x-total-count')).toBe(String(expected.size));
    }
    await Promise.all([a.stop(), b.stop()]);
  }, 180_000);
});

describe('SECRET_KEY with DATABASE_URL', () => {
  it('a server on DATABASE_URL without SECRET_KEY refuses to start and says why', async () => {
    const database = await freshDatabase();
    const started = await startServerProcess({ DATABASE_URL: database.url, DATA_DIR: dataDir() });
    expect(started.listening).toBe(false);
    if (started.listening) return;
    expect(started.code).toBe(1);
    expect(started.output).toContain('SECRET_KEY is required with DATABASE_URL');
  }, 60_000);

  it('a connection saved under another key answers 409 naming the key, starts no analysis, and leaves verdicts unavailable with the reason', async () => {
    const database = await freshDatabase();
    const a = await listening(startServerProcess({ DATABASE_URL: database.url, SECRET_KEY: 'key of server a', DATA_DIR: dataDir() }));
    const b = await listening(startServerProcess({ DATABASE_URL: database.url, SECRET_KEY: 'another key', DATA_DIR: dataDir() }));
    const envId = (await requestJson(`${a.url}/api/env`, { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id as string;
    const added = await requestJson(`${a.url}/api/env/${envId}/connections`, {
      method: 'POST',
      json: { label: 'prod', role: 'production', connectionString: postgres.url(database.name) },
    });
    expect(added.status).toBe(201);

    const sync = await requestJson(`${b.url}/api/env/${envId}/queries/sync-production`, { method: 'POST', json: {} });
    expect(sync.status).toBe(409);
    expect(sync.body.error.code).toBe('conflict');
    expect(sync.body.error.message).toMatch(/Connection "prod": .*cannot be decrypted.*SECRET_KEY/);
    expect(sync.text).not.toContain('authenticate data');

    const analyze = await requestJson(`${b.url}/api/env/${envId}/analyze`, { method: 'POST', json: {} });
    expect(analyze.status).toBe(409);
    expect(analyze.body.error.message).toMatch(/cannot be decrypted/);
    const running = await postgres.query("SELECT id FROM analysis_runs WHERE status = 'running'", [], database.name);
    expect(running.rows).toEqual([]);

    // a CI run stored through b: its verdict cannot be had, and says why
    expect((await requestJson(`${b.url}/api/env/${envId}/repos`, { method: 'POST', json: { repo: 'acme/shop' } })).status).toBe(201);
    const run = await requestJson(`${b.url}/api/ci/runs`, { method: 'POST', json: { repo: 'acme/shop', runId: '1', queries: [{ query: 'SELECT 1' }] } });
    expect(run.status).toBe(201);
    const verdict = await requestJson(`${b.url}/api/ci/runs/${run.body.id}/verdict`);
    expect(verdict.body.status).toBe('unavailable');
    expect(verdict.body.reason).toMatch(/cannot be decrypted/);
    await Promise.all([a.stop(), b.stop()]);
  }, 120_000);
});
