// How the server starts: key file, refusal to expose itself, the embedded store surviving restarts.
import { describe, expect, it, onTestFinished } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSecrets, loadKey } from './secrets';
import { openStore } from './db/store';
import { environments } from './db/schema';

const run = promisify(execFile);
const tmp = () => mkdtempSync(path.join(tmpdir(), 'qt-start-'));
const root = path.resolve(import.meta.dirname, '..');

/** Every directory and file under dir (dir included), with its permission bits. */
function walk(dir: string): { path: string; mode: number; dir: boolean }[] {
  const stat = lstatSync(dir);
  const here = { path: dir, mode: stat.mode & 0o777, dir: stat.isDirectory() };
  if (!stat.isDirectory()) return [here];
  return [here, ...readdirSync(dir).flatMap((entry) => walk(path.join(dir, entry)))];
}

/** What anyone but the owner could read, write or enter. */
const notPrivate = (dir: string) =>
  walk(dir)
    .filter((e) => e.mode & 0o077)
    .map((e) => `${e.mode.toString(8)} ${path.relative(dir, e.path)}`);

/** `npm run serve` (server/main.ts) as a child process on free ports; resolves once it listens. */
async function startMain(dataDir: string) {
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), ['server/main.ts'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ANALYZER_PORT: '0', DATA_DIR: dataDir, API_TOKEN: '', SECRET_KEY: '', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /querytrail on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`server/main.ts exited with ${code}: ${output}`)));
  });
  return {
    url,
    /** SIGTERM, as a service manager stops it; resolves with the exit code. */
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('secrets', () => {
  it('creates a 0600 key file once and decrypts what it encrypted; a wrong key cannot', () => {
    const dir = tmp();
    const key = loadKey({ dataDir: dir });
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadKey({ dataDir: dir }).equals(key)).toBe(true);
    const sealed = createSecrets(key).encrypt('postgres://u:pw@h/db');
    expect(sealed).not.toContain('pw@h');
    expect(createSecrets(key).decrypt(sealed)).toBe('postgres://u:pw@h/db');
    expect(() => createSecrets(loadKey({ dataDir: dir, secretKey: 'other' })).decrypt(sealed)).toThrow();
  });
});

describe('embedded store', () => {
  it('keeps data in DATA_DIR across restarts', async () => {
    const dir = tmp();
    const first = await openStore({ dataDir: dir });
    await first.db.insert(environments).values({ id: 'env_keep', name: 'Keep', slug: 'keep' });
    await first.close();
    const second = await openStore({ dataDir: dir });
    expect((await second.db.select().from(environments)).map((e) => e.slug)).toEqual(['keep']);
    await second.close();
  });
});

describe('npm start', () => {
  it('refuses to listen on a non-loopback host without API_TOKEN', async () => {
    const result = await run('npx', ['tsx', 'server/main.ts'], {
      env: { ...process.env, HOST: '0.0.0.0', PORT: '0', DATA_DIR: tmp(), API_TOKEN: '', ALLOW_UNAUTHENTICATED: '' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((result as { code: number }).code).toBe(1);
    expect((result as { stderr: string }).stderr).toContain('Refusing to listen on 0.0.0.0 without API_TOKEN');
  });
});

describe('DATA_DIR is private to the user running querytrail', () => {
  it('creates the store, its WAL and configuration, and the key as 0700 folders and 0600 files', async () => {
    const parent = tmp();
    onTestFinished(() => rmSync(parent, { recursive: true, force: true }));
    const dataDir = path.join(parent, 'data');
    const server = await startMain(dataDir);
    const created = await fetch(`${server.url}/api/env`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Private', slug: 'private' }),
    });
    expect(created.status).toBe(201);
    for (const file of ['secret.key', 'pglite/postgresql.conf', 'pglite/pg_hba.conf', 'pglite/PG_VERSION', 'pglite/pg_wal']) {
      expect(existsSync(path.join(dataDir, file)), file).toBe(true);
    }
    expect(walk(dataDir).length).toBeGreaterThan(100);
    expect(notPrivate(dataDir)).toEqual([]);
    expect(await server.stop()).toBe(0);
    expect(notPrivate(dataDir)).toEqual([]);
  });

  it('makes a store an older version left world-readable private at start, and keeps its data', async () => {
    const dataDir = tmp();
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const old = await openStore({ dataDir });
    await old.db.insert(environments).values({ id: 'env_old', name: 'Old', slug: 'old' });
    await old.close();
    writeFileSync(path.join(dataDir, 'secret.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`);
    for (const entry of walk(dataDir)) chmodSync(entry.path, entry.dir ? 0o777 : 0o666);
    expect(notPrivate(dataDir).length).toBeGreaterThan(100);

    const server = await startMain(dataDir);
    expect(notPrivate(dataDir)).toEqual([]);
    const list = (await (await fetch(`${server.url}/api/env`)).json()) as { slug: string }[];
    expect(list.map((e) => e.slug)).toEqual(['old']);
    expect(await server.stop()).toBe(0);
    expect(notPrivate(dataDir)).toEqual([]);
  });
});
