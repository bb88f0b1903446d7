// What `npm start` and `npm run serve` run from (server/start.mjs), built when out of date:
// - dist/server/main.mjs: server/main.ts and every source file it imports, as one ES module
//   (esbuild), the packages left to node_modules. Node loads it as it is: no TypeScript is
//   transpiled at start, and no loader hook stands between Node and each of its ~2,000 modules.
// - dist/client: the SPA (`vite build`, only for `npm start`).
// Each build records a hash of each of its inputs (dist/server/inputs.json, dist/client/.inputs.json);
// a build is out of date when an input's contents differ, or one is gone, from what was built.
// Contents, not modification times: a checkout, a copy or an image layer may give any file any
// date. `npm run build` (this file run directly) builds what is out of date; --force builds both
// anyway; --template also makes the PGlite template an empty DATA_DIR starts from
// (server/db/pglite-template.ts), which the Docker image makes at build time.
// Plain JavaScript, so `npm run serve` reads it without a TypeScript loader.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_OUT = path.join(ROOT, 'dist', 'server');
export const BUNDLE = path.join(SERVER_OUT, 'main.mjs');
const SERVER_STAMP = path.join(SERVER_OUT, 'inputs.json');
const CLIENT_OUT = path.join(ROOT, 'dist', 'client');
const CLIENT_STAMP = path.join(CLIENT_OUT, '.inputs.json');
/** Inputs of every server build besides the sources esbuild read: how it is built. */
const SERVER_BUILD_INPUTS = ['server/build.mjs', 'tsconfig.json', 'package.json'];
/** What the SPA's build reads besides client/ and shared/. */
const CLIENT_BUILD_INPUTS = ['vite.config.ts', 'tsconfig.json', 'tsconfig.client.json', 'package.json', 'package-lock.json'];

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/** { path: sha1 } of the files (paths relative to the checkout); undefined when one is missing. */
function hashes(files) {
  const out = {};
  for (const file of [...new Set(files)].sort()) {
    try {
      out[file] = createHash('sha1')
        .update(readFileSync(path.join(ROOT, file)))
        .digest('hex');
    } catch {
      return undefined;
    }
  }
  return out;
}

/** True when the stamp's inputs (and, when given, the list of them) are what is on disk now. */
function stampHolds(stampFile, currentInputs) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return false;
  }
  const built = stamp.inputs ?? {};
  const files = currentInputs ?? Object.keys(built);
  if (files.length === 0) return false;
  const now = hashes(files);
  if (!now || Object.keys(now).length !== Object.keys(built).length) return false;
  return Object.entries(now).every(([file, hash]) => built[file] === hash);
}

/** Writes a file whole or not at all: beside it, then renamed over it. */
function writeAtomically(file, contents) {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, contents);
  renameSync(aside, file);
}

// ---- the server ----

/** The server's bundle is there and was built from the sources as they are. */
export function serverFresh() {
  return existsSync(BUNDLE) && stampHolds(SERVER_STAMP);
}

/**
 * Loads the checkout's TypeScript files for esbuild, recording a hash of exactly what was compiled.
 * Source files ask for files beside them (the migrations, the SPA's build, a worker's entry, the
 * package.json) through import.meta.url: in the bundle each keeps meaning its own source file,
 * found from the bundle's location, so those paths stay what they are under tsx.
 */
function sources(compiled) {
  return {
    name: 'querytrail-sources',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path);
        compiled[rel(args.path)] = createHash('sha1').update(source).digest('hex');
        const url = `new URL(${JSON.stringify(path.relative(SERVER_OUT, args.path).split(path.sep).join('/'))}, import.meta.url)`;
        const contents = source
          .toString('utf8')
          .replace(/\bimport\.meta\.url\b/g, `${url}.href`)
          .replace(/\bimport\.meta\.filename\b/g, `__qtFileURLToPath(${url})`)
          .replace(/\bimport\.meta\.dirname\b/g, `__qtDirname(__qtFileURLToPath(${url}))`);
        return { contents, loader: 'ts' };
      });
    },
  };
}

const BANNER = ["import { fileURLToPath as __qtFileURLToPath } from 'node:url';", "import { dirname as __qtDirname } from 'node:path';"].join('\n');

/** Bundles server/main.ts into dist/server/main.mjs and records what it was built from. */
export async function buildServer() {
  // esbuild is a devDependency, and tsx's own (a dependency): there after `npm ci --omit=dev` too
  const { build } = await import('esbuild');
  mkdirSync(SERVER_OUT, { recursive: true });
  const aside = path.join(SERVER_OUT, `.main.${process.pid}.mjs`);
  /** What esbuild compiled, hashed as it read it (a file changed meanwhile makes the next start build again). */
  const compiled = {};
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ['server/main.ts'],
      outfile: aside,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // the packages load from node_modules as they do under tsx (their own files, WASM and workers beside them)
      packages: 'external',
      banner: { js: BANNER },
      sourcemap: 'linked',
      sourcesContent: false,
      plugins: [sources(compiled)],
      metafile: true,
      logLevel: 'warning',
    });
    const others = hashes([
      ...Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/') && !(file in compiled)),
      ...SERVER_BUILD_INPUTS,
    ]);
    if (!others) throw new Error('a source file went away while the server was being built');
    const inputs = Object.fromEntries(Object.entries({ ...others, ...compiled }).sort(([a], [b]) => a.localeCompare(b)));
    // the map names the bundle it maps: renamed with it
    const map = readFileSync(`${aside}.map`, 'utf8').replace(path.basename(aside), path.basename(BUNDLE));
    writeAtomically(`${BUNDLE}.map`, map);
    const code = readFileSync(aside, 'utf8').replace(`sourceMappingURL=${path.basename(aside)}.map`, `sourceMappingURL=${path.basename(BUNDLE)}.map`);
    writeAtomically(BUNDLE, code);
    writeAtomically(SERVER_STAMP, `${JSON.stringify({ inputs }, null, 1)}\n`);
  } finally {
    rmSync(aside, { force: true });
    rmSync(`${aside}.map`, { force: true });
  }
}

// ---- the SPA ----

/** Every file under a folder, relative to the checkout; tests are no part of a build. */
function filesUnder(folder) {
  const dir = path.join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.test\.[cm]?[jt]sx?$/.test(entry.name))
    .map((entry) => rel(path.join(entry.parentPath ?? entry.path, entry.name)));
}

const clientInputs = () => [...filesUnder('client'), ...filesUnder('shared'), ...CLIENT_BUILD_INPUTS.filter((file) => existsSync(path.join(ROOT, file)))];

/** The SPA's build is there and was made from client/, shared/ and the build's settings as they are. */
export function clientFresh() {
  return existsSync(path.join(CLIENT_OUT, 'index.html')) && stampHolds(CLIENT_STAMP, clientInputs());
}

/** `vite build` (its own process, as `npm run build:client` runs it); throws when it fails. */
export function buildClient() {
  const inputs = hashes(clientInputs());
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  const built = spawnSync(process.execPath, [vite, 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`vite build ${built.signal ? `was stopped by ${built.signal}` : `exited with code ${built.status}`}`);
  // the inputs as they were when the build began: a file changed meanwhile makes the next start build again
  if (inputs) writeAtomically(CLIENT_STAMP, `${JSON.stringify({ inputs }, null, 1)}\n`);
}

// ---- `npm run build` ----

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  try {
    if (force || !clientFresh()) buildClient();
    else console.log('dist/client: up to date');
    if (force || !serverFresh()) {
      await buildServer();
      console.log(`${rel(BUNDLE)}: built`);
    } else console.log(`${rel(BUNDLE)}: up to date`);
    if (args.includes('--template')) {
      const { tsImport } = await import('tsx/esm/api');
      const template = await tsImport(pathToFileURL(path.join(ROOT, 'server', 'db', 'pglite-template.ts')).href, import.meta.url);
      const made = await template.ensureTemplate();
      if (!made) throw new Error('the PGlite template could not be made');
      console.log(`${rel(made)}: ready`);
    }
  } catch (error) {
    console.error(`querytrail build: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
