#!/usr/bin/env node
// The package's command. `ci-report` runs the committed bundle (dist/querytrail.mjs, built by
// `npm run build:cli`), the very file the GitHub Action runs. Commands that need the whole checkout
// (the web server's sources: `demo`) run from the TypeScript sources through tsx, as does
// everything when QUERYTRAIL_FROM_SOURCES=1 (development) or when dist/ is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';

/** Keep in step with SOURCE_COMMANDS in cli/main.ts. */
const SOURCE_COMMANDS = new Set(['demo']);

const bundle = new URL('../dist/querytrail.mjs', import.meta.url);
const command = process.argv[2];

if (SOURCE_COMMANDS.has(command) || process.env.QUERYTRAIL_FROM_SOURCES === '1' || !existsSync(bundle)) {
  const { tsImport } = await import('tsx/esm/api');
  const { main } = await tsImport('../cli/main.ts', {
    parentURL: import.meta.url,
    tsconfig: fileURLToPath(new URL('../tsconfig.node.json', import.meta.url)),
  });
  const code = await main(process.argv.slice(2), process.env);
  // Exit now: an idle keep-alive socket of fetch would otherwise hold the process for seconds.
  process.exit(code);
} else {
  // runs the command line (process.argv) and exits
  await import(bundle.href);
}
