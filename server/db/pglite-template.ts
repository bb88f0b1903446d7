// A new PGlite store starts from a copy of a template instead of running initdb. PGlite's initdb
// (WebAssembly) is most of an empty DATA_DIR's start: 4 s on a quiet 2-core machine, more under
// load, and pg-boss making its schema another second, where copying a closed cluster takes a few
// hundred milliseconds. The template is what the first empty store would have been: a cluster made
// by PGlite.create on a folder of its own, every migration applied and the job queue's schema made
// (queue/index.ts), then closed cleanly (a cold copy of a stopped PostgreSQL is a valid cluster).
// It is made once, the first time an empty store opens, and kept under
// dist/server/pglite-template/<key>, the key naming PGlite's version and hashing the migrations and
// pg-boss's version: a change of any makes a new one (and the old one is removed). Nothing depends
// on it: when it cannot be made or copied (a read-only checkout, a full disk), the store runs
// initdb as before. `npm run build -- --template` makes it ahead (the Docker image does).
// A store in memory (no DATA_DIR: the tests, the demo) starts the same way from the same cluster
// dumped as a tar (<key>.tar beside the folder), which PGlite loads into its memory.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { installQueueSchema } from '../queue/index';

const here = path.dirname(fileURLToPath(import.meta.url));
export const migrationsFolder = path.join(here, 'migrations');
/** Where templates are kept: beside the server's bundle, a build output (gitignored). */
export const TEMPLATES = path.join(here, '..', '..', 'dist', 'server', 'pglite-template');

/** The version of an installed package (found from its entry point: not every package exports its package.json). */
function packageVersion(name: string): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`${name}: package.json not found`);
    dir = up;
  }
}

/** PGlite's and pg-boss's versions and the migrations' contents: what a template's cluster is made of. */
export function templateKey(): string {
  const hash = createHash('sha256');
  const files = [
    ...readdirSync(migrationsFolder)
      .filter((f) => f.endsWith('.sql'))
      .sort(),
    path.join('meta', '_journal.json'),
  ];
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(migrationsFolder, file)))
      .update('\0');
  hash.update(`pg-boss ${packageVersion('pg-boss')}`);
  return `pglite-${packageVersion('@electric-sql/pglite')}-${hash.digest('hex').slice(0, 16)}`;
}

/** Makes the template of this key unless it exists; returns its folder, or undefined when it cannot be made. */
export async function ensureTemplate(key = templateKey()): Promise<string | undefined> {
  const target = path.join(TEMPLATES, key);
  if (existsSync(path.join(target, 'PG_VERSION'))) return target;
  // made aside and renamed into place, so a template is never seen half made; processes making it
  // at once each make their own and the first rename wins
  const making = path.join(TEMPLATES, `.making-${key}-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(TEMPLATES, { recursive: true });
    mkdirSync(making, { mode: 0o700 });
    await (await makeCluster(making)).close();
    try {
      renameSync(making, target);
    } catch (error) {
      if (!existsSync(path.join(target, 'PG_VERSION'))) throw error;
    }
    // templates of another PGlite or other migrations are of no further use
    for (const name of readdirSync(TEMPLATES)) {
      if (name !== key && name !== `${key}.tar` && name.startsWith('pglite-')) rmSync(path.join(TEMPLATES, name), { recursive: true, force: true });
    }
    return target;
  } catch (error) {
    console.warn(`querytrail: no PGlite template (${error instanceof Error ? error.message : error}); the new store runs initdb`);
    return undefined;
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
}

/** A migrated cluster with the queue's schema, as a fresh PGlite at `dataDir` (undefined: in memory) makes it. */
async function makeCluster(dataDir?: string): Promise<PGlite> {
  const client = await PGlite.create(dataDir);
  try {
    await migrate(drizzle(client), { migrationsFolder });
    await installQueueSchema(client);
    return client;
  } catch (error) {
    await client.close();
    throw error;
  }
}

/**
 * The template as a tar for a store in memory (made first if need be, and kept beside the folder
 * templates); undefined when it cannot be had, and the store runs initdb.
 */
export async function memoryTemplate(key = templateKey()): Promise<Blob | undefined> {
  if (process.env.PGLITE_TEMPLATE === '0') return undefined;
  const target = path.join(TEMPLATES, `${key}.tar`);
  try {
    if (existsSync(target)) return new Blob([readFileSync(target)]);
    const client = await makeCluster();
    let tar: Blob;
    try {
      // written to the data files first, so loading it replays no WAL
      await client.exec('CHECKPOINT');
      tar = await client.dumpDataDir('none');
    } finally {
      await client.close();
    }
    // written aside and renamed into place, as the folder is
    const making = `${target}.${process.pid}-${Date.now()}`;
    mkdirSync(TEMPLATES, { recursive: true });
    writeFileSync(making, Buffer.from(await tar.arrayBuffer()), { mode: 0o600 });
    renameSync(making, target);
    return tar;
  } catch (error) {
    console.warn(`querytrail: no PGlite template in memory (${error instanceof Error ? error.message : error}); the store runs initdb`);
    return undefined;
  }
}

/**
 * Fills an empty folder with a copy of the template (made first if need be). False when the
 * folder was not empty or no template could be had: then nothing was written and the caller's
 * PGlite runs initdb as it always did.
 */
export async function copyTemplate(dataDir: string): Promise<boolean> {
  // PGLITE_TEMPLATE=0: initdb every time, as before templates (bench:start's baseline)
  if (process.env.PGLITE_TEMPLATE === '0') return false;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return false;
  const template = await ensureTemplate();
  if (!template) return false;
  try {
    cpSync(template, dataDir, { recursive: true });
    return true;
  } catch {
    // a partial copy is no cluster: back to an empty folder, for initdb
    for (const name of existsSync(dataDir) ? readdirSync(dataDir) : []) rmSync(path.join(dataDir, name), { recursive: true, force: true });
    return false;
  }
}
