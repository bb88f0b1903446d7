// `npm start`: the API and SPA on PORT (3000) and the analyzer beside it on ANALYZER_PORT (2345).
import { checkExposure, readConfig } from './config';
import { createApp } from './app';
import { openServices } from './services';
import { startAnalyzer } from '../analyzer/app';

const config = readConfig();
const refusal = checkExposure(config);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}

const services = await openServices(config);
const app = createApp(services);
const server = app.listen(config.port, config.host, () => {
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host;
  console.log(`querytrail on http://${shown}:${config.port} (store: ${where})`);
  console.log(`  REST: http://${shown}:${config.port}/api  (reference at /api/docs)`);
});
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

const shutdown = () => {
  server.close();
  void Promise.all([analyzer?.close(), services.store.close()]).finally(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
