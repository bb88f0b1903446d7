// A team server in a real browser: Debian's Chromium on the built SPA, served by the real web server
// (PGlite) in team mode, signing in through a real OpenID provider (test/support/oidc-provider.ts)
// on its development login and consent pages. An admin (ADMIN_EMAILS) signs in with fetch and
// arranges two environments, with alice an editor of one only; alice then signs in in the browser,
// sees her environment and what an editor may do there, cannot open the other one, makes and
// revokes a personal token, and signs out; then the admin signs in in the browser, reads her
// changes in the audit log and manages members. Screenshots: test-results/screenshots/teams-*.png.
import { rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config';
import { buildClient, chromiumAvailable, CHROMIUM_PATH, launchBrowser, screenshot, visible } from '../support/browser';
import { freePort, signInWithFetch, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { openTestServices, startTestServer, type TestServer } from '../support/services';
import { requestJson, type JsonRequest } from '../support/api';

const ADMIN = 'ada@example.com';
const ALICE = 'alice@example.com';

let provider: TestOidcProvider;
let server: TestServer;
let clientDir: string | undefined;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

/** The admin's session, as signing in with fetch gave it. */
let admin: { cookie: string; csrfToken: string };
let checkout = '';
let payroll = '';
let ackedHash = '';

/** A REST call as the admin's browser would make it: the session cookie, and on changes the page's Origin and the CSRF token. */
function asAdmin(path: string, init: JsonRequest = {}) {
  const change: Record<string, string> = init.method && init.method !== 'GET' ? { origin: server.url, 'x-csrf-token': admin.csrfToken } : {};
  return requestJson(`${server.url}/api${path}`, { ...init, headers: { cookie: admin.cookie, ...change, ...init.headers } });
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium`);
  // PUBLIC_URL is the server's own address, which the provider must know as a redirect URI before either starts
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider({
    redirectUris: [`${publicUrl}/auth/callback`],
    accounts: [
      { email: ADMIN, name: 'Ada Admin' },
      { email: ALICE, name: 'Alice Editor' },
    ],
  });
  // the settings as the server reads them from its environment: every field it expects, with its defaults
  const { auth } = readConfig({
    PUBLIC_URL: publicUrl,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    ADMIN_EMAILS: ADMIN,
  });
  const [built, services] = await Promise.all([buildClient(), openTestServices('pglite', { auth })]);
  clientDir = built;
  server = await startTestServer(services, { clientDir, port });

  admin = await signInWithFetch(server.url, provider, ADMIN);
  checkout = (await asAdmin('/env', { method: 'POST', json: { name: 'Checkout Service', slug: 'checkout' } })).body.id;
  payroll = (await asAdmin('/env', { method: 'POST', json: { name: 'Payroll', slug: 'payroll' } })).body.id;
  expect((await asAdmin(`/env/${checkout}/members/${ALICE}`, { method: 'PUT', json: { role: 'editor' } })).status).toBe(200);
  // something alice may undo as an editor: a query the admin acknowledged
  ackedHash = (await asAdmin(`/env/${checkout}/queries`, { method: 'POST', json: { query: 'SELECT * FROM orders WHERE id = $1' } })).body.hash;
  await asAdmin(`/env/${checkout}/queries/${ackedHash}/acknowledge`, { method: 'POST', json: { note: 'Primary key lookup.' } });

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  // the provider's development pages import a web font: no reason to reach the internet for it
  await context.route(/fonts\.(googleapis|gstatic)\.com/, (route) => route.abort());
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await provider?.close();
  if (clientDir) rmSync(clientDir, { recursive: true, force: true });
});

describe('a team server in Chromium', () => {
  it('alice signs in, sees her environment as an editor, makes and revokes a token, and signs out', async () => {
    // signed out, any page is sign-in, which comes back to it
    await page.goto(`${server.url}/environments`);
    const signIn = page.getByRole('link', { name: 'Sign in with your identity provider' });
    await visible(signIn);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await screenshot(page, 'teams-sign-in', { fullPage: false });

    // the provider's development pages: any password for a known login, then consent
    await signIn.click();
    await page.locator('input[name="login"]').fill(ALICE);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/environments`);

    // only the environment she belongs to
    const list = page.getByRole('region', { name: /^All environments/ });
    await visible(list.getByRole('link', { name: /Checkout Service/ }));
    expect(await list.getByText('Payroll').count()).toBe(0);
    await visible(page.getByRole('button', { name: 'Account: Alice Editor' }));
    await screenshot(page, 'teams-environments', { fullPage: false });

    // as an editor: owners' controls say who may use them, editors' work
    await list.getByRole('link', { name: /Checkout Service/ }).click();
    await visible(page.getByRole('heading', { level: 1, name: 'Checkout Service' }));
    await visible(page.getByText('you: editor'));
    const del = page.getByRole('button', { name: 'Delete environment' });
    expect(await del.isDisabled()).toBe(true);
    await visible(page.getByText('Owners can delete this environment (you are an editor).'));
    const connections = page.getByRole('region', { name: /^Database Connections/ });
    await visible(connections.getByText('Owners can add and remove connections (you are an editor).'));
    expect(await connections.getByRole('form', { name: 'Add a connection' }).count()).toBe(0);
    const policy = page.getByRole('region', { name: /^Policy/ });
    await visible(policy.getByText('Owners can change the policy (you are an editor).'));
    expect(await policy.getByLabel('Comparison branch').isDisabled()).toBe(true);
    expect(await policy.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
    await visible(page.getByRole('region', { name: /^Webhooks/ }).getByText(/^Owners can add, test and remove webhooks/));
    await visible(page.getByRole('region', { name: /^CI Tokens/ }).getByText(/^Owners can make, see and revoke CI tokens/));
    const members = page.getByRole('region', { name: /^Members/ });
    await visible(members.getByText(ALICE));
    expect(await members.getByRole('form', { name: 'Add a member' }).count()).toBe(0);

    expect(await page.getByRole('button', { name: 'Analyze' }).isDisabled()).toBe(false);
    expect(await page.getByLabel('Readings').isDisabled()).toBe(false);
    const repos = page.getByRole('region', { name: /^Linked Repos/ });
    await repos.getByRole('textbox', { name: 'Repository' }).fill('acme/checkout');
    await repos.getByRole('button', { name: 'Link repository' }).click();
    await visible(repos.getByRole('button', { name: 'Unlink acme/checkout' }));
    const acknowledged = page.getByRole('region', { name: /^Acknowledged Queries/ });
    await visible(acknowledged.getByText(`by ${ADMIN}`));
    await page.getByRole('region', { name: /^Members/ }).scrollIntoViewIfNeeded();
    await screenshot(page, 'teams-environment-editor');
    await acknowledged.getByRole('button', { name: `Undo the acknowledgement of query ${ackedHash}` }).click();
    await visible(acknowledged.getByText('No acknowledged queries.'));

    // the other environment reads as one that does not exist
    await page.goto(`${server.url}/environments/${payroll}`);
    await visible(page.getByRole('heading', { name: 'Environment not found' }));
    await screenshot(page, 'teams-not-found', { fullPage: false });

    // a personal token, shown once, that acts as her until revoked
    await page.getByRole('button', { name: 'Account: Alice Editor' }).click();
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await screenshot(page, 'teams-user-menu', { fullPage: false });
    await page.getByRole('link', { name: 'Tokens' }).click();
    const tokens = page.getByRole('region', { name: /^Your tokens/ });
    await tokens.getByLabel('Name').fill('laptop');
    await tokens.getByRole('button', { name: 'Make token' }).click();
    const shown = tokens.locator('.new-token');
    await visible(shown.getByText(/will not be shown again/));
    const token = (await shown.locator('code').first().textContent())!;
    const me = await requestJson(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.body.email).toBe(ALICE);
    await screenshot(page, 'teams-tokens', { fullPage: false });
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    await tokens.getByRole('button', { name: 'Revoke laptop' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke token' }).click();
    await visible(tokens.getByText('revoked'));
    expect((await requestJson(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    // signing out ends the session: sign-in, here and on any page opened after
    await page.getByRole('button', { name: 'Account: Alice Editor' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${server.url}/sign-in`);
    await visible(page.getByText('You are signed out.'));
    await screenshot(page, 'teams-signed-out', { fullPage: false });
    await page.goto(`${server.url}/environments/${checkout}`);
    await visible(page.getByRole('link', { name: 'Sign in with your identity provider' }));
    expect(await page.getByText('Checkout Service').count()).toBe(0);

    expect(pageErrors).toEqual([]);
  }, 180_000);

  it("the admin manages the environment's members and reads the audit log of alice's changes", async () => {
    // the provider still knows alice: forget every cookie, as another person's browser would have none
    await page.context().clearCookies();
    await page.goto(`${server.url}/audit`);
    await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
    await page.locator('input[name="login"]').fill(ADMIN);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/audit`);

    const log = page.getByRole('table', { name: 'Audit log, newest first' });
    const linked = log.getByRole('row').filter({ hasText: 'repos.link' });
    await visible(linked.getByText(ALICE));
    await visible(linked.getByRole('link', { name: 'Checkout Service' }));
    await visible(log.getByRole('row').filter({ hasText: 'policy.unacknowledge' }).getByText(ALICE));
    const member = log.getByRole('row').filter({ hasText: 'members.set' });
    await member.locator('summary', { hasText: 'role' }).click();
    await visible(member.getByText('"editor"'));
    await screenshot(page, 'teams-audit', { fullPage: false });

    // an admin may do what an owner may: members' roles change here
    await page.goto(`${server.url}/environments/${checkout}`);
    const members = page.getByRole('region', { name: /^Members/ });
    await members.getByRole('combobox', { name: `Role of ${ALICE}` }).selectOption('viewer');
    await members.getByLabel('Email').fill('bob@example.com');
    await members.getByRole('button', { name: 'Add member' }).click();
    await visible(members.getByRole('combobox', { name: 'Role of bob@example.com' }));
    await page
      .getByRole('region', { name: /^CI Tokens/ })
      .getByLabel('Name')
      .fill('GitHub Actions');
    await page.getByRole('button', { name: 'Make CI token' }).click();
    await visible(page.getByText(/CI token “GitHub Actions” made/));
    expect((await asAdmin(`/env/${checkout}/members`)).body).toMatchObject([
      { email: ADMIN, role: 'owner' },
      { email: ALICE, role: 'viewer' },
      { email: 'bob@example.com', role: 'viewer' },
    ]);
    await members.scrollIntoViewIfNeeded();
    await screenshot(page, 'teams-environment-admin', { fullPage: false });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
