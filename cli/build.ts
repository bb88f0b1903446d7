// `npm run build:cli`: the CLI as one file users' CI runs with nothing to install (the action, and
// `npx querytrail ci-report`): dist/querytrail.mjs with its dependencies bundled, beside
// libpg-query's WASM parser, which its loader reads from the bundle's own folder. The build is
// deterministic (same sources, same bytes), so a test rebuilds it and compares with dist/.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
/** What dist/ holds: the bundle and the parser's WASM. */
export const BUNDLE_FILES = ['querytrail.mjs', 'libpg-query.wasm'] as const;

// The bundle is ESM; the CommonJS modules in it (pg, libpg-query's Emscripten loader) expect
// `require`, `__filename` and `__dirname`, the loader to find libpg-query.wasm beside itself.
// libpg-query's parser is one huge WASM function: V8's optimizing tier compiles it in the
// background for seconds (and ~70 MB), and the process waits for that at exit. A CI report parses
// too little for it to pay off: the baseline compiler alone is faster end to end (measured by
// bench:cli), so the flag is set before the bundled code compiles the module.
const BANNER = [
  "import { createRequire as __qtCreateRequire } from 'node:module';",
  "import { fileURLToPath as __qtFileURLToPath } from 'node:url';",
  "import { setFlagsFromString as __qtSetFlags } from 'node:v8';",
  "__qtSetFlags('--liftoff-only');",
  'const require = __qtCreateRequire(import.meta.url);',
  'const __filename = __qtFileURLToPath(import.meta.url);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join('\n');

/** Folders of the checkout the CLI must never pull in: it is a client of the API. */
const FORBIDDEN = /^(server|client|advisor|bench|test)\//;

/** `./demo` and the like run from the checkout (see SOURCE_COMMANDS in cli/main.ts): never bundled. */
const sourceCommandsStayOut: Plugin = {
  name: 'source-commands-stay-out',
  setup(b) {
    b.onResolve({ filter: /^\.\/demo(\.ts)?$/ }, (args) =>
      args.importer.endsWith(path.join('cli', 'main.ts')) ? { path: '../cli/demo.ts', external: true } : undefined,
    );
  },
};

export async function buildCli(outdir = DIST): Promise<{ bytes: Record<string, number> }> {
  // only our files: dist/client is the SPA's build (vite.config.ts)
  for (const file of BUNDLE_FILES) await rm(path.join(outdir, file), { force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { querytrail: 'cli/run.ts' },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    // licences of the bundled packages stay with their code
    legalComments: 'eof',
    banner: { js: BANNER },
    // optional drivers pg looks for and users' CI does not have
    external: ['pg-native', 'cloudflare:sockets'],
    plugins: [sourceCommandsStayOut],
    metafile: true,
    logLevel: 'warning',
  });
  const forbidden = Object.keys(result.metafile.inputs).filter((input) => FORBIDDEN.test(input));
  if (forbidden.length) throw new Error(`the CLI bundle pulls in code that is not the CLI's: ${forbidden.join(', ')}`);
  await copyFile(path.join(ROOT, 'node_modules', 'libpg-query', 'wasm', 'libpg-query.wasm'), path.join(outdir, 'libpg-query.wasm'));
  const bytes: Record<string, number> = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) bytes[path.basename(file)] = output.bytes;
  return { bytes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ? path.resolve(process.argv[2]) : DIST;
  const { bytes } = await buildCli(outdir);
  for (const [file, size] of Object.entries(bytes)) console.log(`${path.relative(ROOT, path.join(outdir, file))}: ${(size / 1024).toFixed(0)} KiB`);
}
