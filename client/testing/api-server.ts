// Started as a child process by component tests: the real web server on a PGlite store and, with
// --analyzer, the real analyzer beside it; with --production, a real PostgreSQL holding the shop
// database (test/support/shop.ts) to serve as an environment's production connection. They run
// outside jsdom because jsdom replaces Node globals (URL among them) that server code needs.
import { startAnalyzer, type RunningAnalyzer } from '../../analyzer/app';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { openTestServices, startTestServer } from '../../test/support/services';
import { createShopDatabase } from '../../test/support/shop';

// webhooks may reach loopback: component tests run their receivers there
const server = await startTestServer(await openTestServices('pglite', { webhookAllowPrivate: true }));
let analyzer: RunningAnalyzer | undefined;
if (process.argv.includes('--analyzer')) {
  analyzer = await startAnalyzer({ port: 0, webPort: Number(new URL(server.url).port), log: () => undefined, env: {} });
}
let production: PostgresServer | undefined;
let productionUrl: string | undefined;
if (process.argv.includes('--production')) {
  const statStatements = process.argv.includes('--stat-statements');
  production = await startPostgres({ statStatements });
  productionUrl = await createShopDatabase(production);
  if (statStatements) await production.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements', [], new URL(productionUrl).pathname.slice(1));
}
process.stdout.write(`${JSON.stringify({ url: server.url, analyzerUrl: analyzer?.url, productionUrl })}\n`);
const stop = () => void Promise.all([server.close(), analyzer?.close(), production?.stop()]).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop); // the test process went away
process.stdin.resume();
