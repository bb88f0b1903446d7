// `npm start`: the API and SPA on PORT (3000) and the analyzer beside it on ANALYZER_PORT (2345).
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { checkExposure, checkSecretKey, readConfig } from './config';
import { createApp, keepIdleConnections } from './app';
import { openServices } from './services';
import { makeDataDirPrivate } from './private-files';
import { startAnalyzer } from '../analyzer/app';
import { closeWarmShadows } from './verdict/shadows';
import { closeDemos, restoreDemo } from './demo/demo';
import { FolderLockedError } from './db/folder-lock';
import { closePreparePool } from './catalog/prepare-pool';
import { sweepShadows, useShadowRegistry } from '../advisor/index';

// Whatever this process and its children create (the store, the key, scratch clusters) is private
// to its user; what an older version left readable under DATA_DIR is made private too.
process.umask(0o077);

const config = readConfig();
const refusal = checkExposure(config) ?? checkSecretKey(config);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
makeDataDirPrivate(config.dataDir);

// Shadow PostgreSQL servers are recorded under DATA_DIR while they run; what a querytrail killed
// before it could stop them (OOM, SIGKILL, a supervisor ending its whole group) is stopped now.
useShadowRegistry(path.join(config.dataDir, 'shadows'));
const swept = await sweepShadows().catch((error: Error) => (console.error(`shadow sweep: ${error.message}`), undefined));
if (swept?.removed.length)
  console.log(`querytrail: removed ${swept.removed.length} shadow PostgreSQL left by a stopped querytrail (${swept.stopped} processes stopped)`);

const services = await openServices(config).catch((error: unknown) => {
  // a refusal worded for the operator (DATA_DIR locked, ...) is printed alone, not as a stack
  console.error(error instanceof FolderLockedError ? error.message : error);
  process.exit(1);
});
const app = createApp(services);
const server = app.listen(config.port, config.host, () => {
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host;
  const { port } = server.address() as AddressInfo;
  console.log(`querytrail on http://${shown}:${port} (store: ${where})`);
  console.log(`  REST: http://${shown}:${port}/api  (reference at /api/docs)`);
});
keepIdleConnections(server);
server.on('error', (error) => {
  console.error(`Cannot listen on ${config.host}:${config.port}: ${error.message}`);
  process.exit(1);
});

// The analyzer reads users' databases, so it stays on loopback unless ANALYZER_HOST says otherwise.
const analyzer = await startAnalyzer({ port: config.analyzerPort, webPort: config.port }).catch((error: Error) => {
  console.error(`Analyzer not started on port ${config.analyzerPort}: ${error.message} (is another one running?)`);
  return undefined;
});
if (analyzer) console.log(`  analyzer: ${analyzer.url}`);
// the demo's PostgreSQL runs while the server does, as long as the demo's environment exists
void restoreDemo(services).catch((error: Error) => console.error(`demo: its PostgreSQL did not start: ${error.message}`));

const shutdown = (signal: NodeJS.Signals) => {
  console.log(`querytrail: ${signal}, stopping`);
  server.close();
  void Promise.all([analyzer?.close(), services.store.close(), closeWarmShadows(), closePreparePool(), closeDemos()]).finally(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
