// `npm run serve` (`node server/start.mjs`) and `npm start` (`node server/start.mjs --client`):
// server/main.ts run from its bundle, dist/server/main.mjs, rebuilt first when a source file has
// changed since it was built (server/build.mjs; a fraction of a second), and with --client the SPA
// built first when client/ or shared/ changed since its last build. The server runs in this very
// process (its pid is the server's, signals reach it). Should the bundle not build (esbuild missing,
// dist/ not writable), the sources run through tsx, as `node --import tsx server/main.ts` does.
import { pathToFileURL } from 'node:url';
import { BUNDLE, buildClient, buildServer, clientFresh, serverFresh } from './build.mjs';

if (process.argv.includes('--client') && !clientFresh()) {
  try {
    buildClient();
  } catch (error) {
    console.error(`querytrail: the web app did not build: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}

let bundled = serverFresh();
if (!bundled) {
  try {
    await buildServer();
    bundled = true;
  } catch (error) {
    console.warn(`querytrail: the server bundle was not built (${error instanceof Error ? error.message : error}); running the TypeScript sources through tsx`);
  }
}

if (bundled) {
  // Stack traces name lines of the bundle, which keeps the sources' names and layout. Mapping them
  // to the sources (dist/server/main.mjs.map) is left to `node --enable-source-maps server/start.mjs`:
  // enabled, Node reads the source map of every package that ships one, at each start.
  await import(pathToFileURL(BUNDLE).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
