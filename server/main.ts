// `npm start`: the API and SPA on PORT (3000) and the analyzer beside it on ANALYZER_PORT (2345).
import { checkExposure, readConfig } from './config';
import { createApp } from './app';
import { openServices } from './services';

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
  console.log(`querytrail on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port} (store: ${where})`);
  console.log(`  REST:  http://localhost:${config.port}/api  (reference at /api/docs)`);
});
server.on('error', (error) => {
  console.error(`Cannot listen on ${config.host}:${config.port}: ${error.message}`);
  process.exit(1);
});

const shutdown = () => {
  server.close();
  void services.store.close().finally(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
