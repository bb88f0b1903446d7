#!/usr/bin/env node
// The package's command. The sources are TypeScript; tsx (a dependency) loads them on the fly, with
// this package's own tsconfig whatever the working directory, so `npx querytrail` works from a
// checkout after `npm ci` without a build step.
import { fileURLToPath, URL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../cli/main.ts', {
  parentURL: import.meta.url,
  tsconfig: fileURLToPath(new URL('../tsconfig.node.json', import.meta.url)),
});
const code = await main(process.argv.slice(2), process.env);
// Exit now: an idle keep-alive socket of fetch would otherwise hold the process for seconds.
process.exit(code);
