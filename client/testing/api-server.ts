// Started as a child process by component tests: the real web server on a PGlite store and, with
// --analyzer, the real analyzer beside it; with --production, a real PostgreSQL holding the shop
// database (test/support/shop.ts) to serve as an environment's production connection; with --team,
// a team server (API_TOKEN set) and a control endpoint that signs people in as the identity
// provider's callback does. They run outside jsdom because jsdom replaces Node globals (URL among
// them) that server code needs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAnalyzer, type RunningAnalyzer } from '../../analyzer/app';
import { sessionCookieName, startSession } from '../../server/auth/sessions';
import { readConfig } from '../../server/config';
import { upsertSignedInUser } from '../../server/domain/people';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { openTestServices, startTestServer, type TestServer } from '../../test/support/services';
import { createShopDatabase } from '../../test/support/shop';

/** The team server's API_TOKEN: the break-glass admin credential tests arrange data with. */
const BREAK_GLASS = 'component-tests-break-glass-token';
const team = process.argv.includes('--team');
/**
 * --oidc: the server says it has an identity provider (GET /auth/config), for the sign-in page;
 * nothing listens at its address, so following the link goes nowhere (test/e2e/teams.test.ts
 * signs in through a real one).
 */
// read as the server reads its environment, so the settings have every field the server expects;
// PUBLIC_URL (which the reader requires beside OIDC_ISSUER) is dropped again: this server's address
// is not known before it starts, and without PUBLIC_URL the Origin check uses the request's host
const oidc = process.argv.includes('--oidc')
  ? readConfig({ OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'querytrail', OIDC_CLIENT_SECRET: 'unused', PUBLIC_URL: 'http://127.0.0.1' }).auth.oidc
  : undefined;
const teamConfig = team ? { apiToken: BREAK_GLASS, auth: { ...readConfig({}).auth, oidc } } : {};
// webhooks may reach loopback: component tests run their receivers there
const server = await startTestServer(await openTestServices('pglite', { webhookAllowPrivate: true, ...teamConfig }));
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

/** What GET /auth/callback does once the provider vouched for the person: the person upserted, a session started. */
async function signIn(target: TestServer, email: string, name: string, admin: boolean) {
  const { db } = target.services.store;
  const auth = target.services.config.auth;
  const user = await upsertSignedInUser(db, { email, name }, admin ? [email] : []);
  const session = await startSession(db, auth, user.id);
  return { cookie: `${sessionCookieName(auth)}=${session.id}`, csrfToken: session.csrfToken };
}

/** POST {email, name?, admin?} → {cookie, csrfToken}: a person signed in, as the identity provider's callback would make them. */
async function startControl(target: TestServer): Promise<http.Server> {
  const control = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { email, name, admin } = JSON.parse(body) as { email: string; name?: string; admin?: boolean };
      signIn(target, email, name ?? email.split('@')[0]!, admin === true).then(
        (session) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session)),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  return control;
}
const control = team ? await startControl(server) : undefined;
const controlUrl = control ? `http://127.0.0.1:${(control.address() as AddressInfo).port}` : undefined;

process.stdout.write(
  `${JSON.stringify({ url: server.url, analyzerUrl: analyzer?.url, productionUrl, controlUrl, apiToken: team ? BREAK_GLASS : undefined })}\n`,
);
const stop = () => {
  control?.close();
  void Promise.all([server.close(), analyzer?.close(), production?.stop()]).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop); // the test process went away
process.stdin.resume();
