// How `npm run serve` and `npm start` start (server/start.mjs): from the server's bundle,
// dist/server/main.mjs, built from the sources when they changed (server/build.mjs), and a new
// PGlite store copied from the template cluster (db/pglite-template.ts) instead of initdb. The rest
// of the suite runs the TypeScript sources; these run what users run.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore, type Store } from './db/store';
import { copyTemplate, ensureTemplate, memoryTemplate, migrationsFolder, templateKey } from './db/pglite-template';
import { environments } from './db/schema';

const root = path.resolve(import.meta.dirname, '..');
const tmp = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'qt-bundle-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** `node server/start.mjs` (what `npm run serve` runs) on free ports; resolves once it listens. */
async function serve(dataDir: string) {
  const child = spawn(process.execPath, ['server/start.mjs'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ANALYZER_PORT: '0', DATA_DIR: dataDir, API_TOKEN: '', SECRET_KEY: '', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /querytrail on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`server/start.mjs exited with ${code}: ${output}`)));
  });
  return {
    url,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('npm run serve (server/start.mjs)', () => {
  it('runs the server from its bundle: a new DATA_DIR, then the same one again, keeping what was written', async () => {
    const dataDir = path.join(tmp(), 'data');
    const first = await serve(dataDir);
    // the bundle is what ran, and it finds the files its sources find beside them (migrations, the API reference)
    expect(existsSync(path.join(root, 'dist', 'server', 'main.mjs'))).toBe(true);
    expect((await fetch(`${first.url}/api/env`)).status).toBe(200);
    const created = await fetch(`${first.url}/api/env`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bundled', slug: 'bundled' }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${first.url}/api/openapi.json`)).status).toBe(200);
    expect((await fetch(`${first.url}/api/docs/`)).status).toBe(200);
    expect(await first.stop()).toBe(0);

    const again = await serve(dataDir);
    const list = (await (await fetch(`${again.url}/api/env`)).json()) as { slug: string }[];
    expect(list.map((e) => e.slug)).toEqual(['bundled']);
    expect(await again.stop()).toBe(0);
    expect(again.output()).not.toContain('through tsx');
  }, 180_000);
});

/** A store made from the template: every migration applied, the job queue's schema made, and it takes writes. */
async function expectMigratedStore(store: Store) {
  onTestFinished(() => store.close());
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  const [row] = await store.read<{ migrations: number; queue: number }>({
    name: 'template_check',
    text: "SELECT (SELECT count(*) FROM drizzle.__drizzle_migrations)::int AS migrations, (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'pgboss')::int AS queue",
    values: [],
  });
  expect(row!.migrations).toBe(journal.entries.length);
  expect(row!.queue).toBeGreaterThan(0);
  await store.db.insert(environments).values({ id: 'env_t', name: 'T', slug: 't' });
  expect((await store.db.select().from(environments)).map((e) => e.slug)).toEqual(['t']);
}

describe('the PGlite template', () => {
  it('gives a new store every migration and the job queue schema, as initdb and the first start would', async () => {
    expect(await ensureTemplate()).toBe(path.join(root, 'dist', 'server', 'pglite-template', templateKey()));
    await expectMigratedStore(await openStore({ dataDir: tmp() }));
  });

  it('gives a store in memory the same cluster, loaded from the template as a tar', async () => {
    const key = templateKey();
    expect(await memoryTemplate(key)).toBeDefined();
    expect(existsSync(path.join(root, 'dist', 'server', 'pglite-template', `${key}.tar`))).toBe(true);
    await expectMigratedStore(await openStore({}));
  });

  it('copies into an empty folder only', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'pglite'));
    writeFileSync(path.join(dir, 'pglite', 'something'), '');
    expect(await copyTemplate(path.join(dir, 'pglite'))).toBe(false);
    expect(existsSync(path.join(dir, 'pglite', 'PG_VERSION'))).toBe(false);
  });
});
