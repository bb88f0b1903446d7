// The Webhooks section in a real browser: Debian's Chromium on the built SPA and the real server
// (PGlite), with a webhook to a real local receiver, one delivered test and one failing delivery,
// saved as test-results/screenshots/webhooks.png.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../server/webhooks/events';
import { requestJson } from '../support/api';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { openTestServices, type TestServer } from '../support/services';

let app: BrowserApp;
let server: TestServer;
let receiver: http.Server;
let answers = [204];

beforeAll(async () => {
  app = await startBrowserApp(openTestServices('pglite', { webhookAllowPrivate: true }));
  server = app.server;
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(answers.shift() ?? 204, { 'content-type': 'text/plain' }).end(answers.length ? '' : 'upstream relay is down'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await app?.close();
});

describe('Webhooks section in Chromium', () => {
  it('shows webhooks masked, the secret once, and the delivery log', async () => {
    const api = (path: string, init?: Parameters<typeof requestJson>[1]) => requestJson(`${server.url}/api${path}`, init);
    const env = (await api('/env', { method: 'POST', json: { name: 'Checkout Service', slug: 'checkout' } })).body.id as string;
    const port = (receiver.address() as AddressInfo).port;
    const relay = await api(`/env/${env}/webhooks`, {
      method: 'POST',
      json: { url: `http://127.0.0.1:${port}/relay/T0KEN`, events: ['production.query.new', 'production.query.regressed'] },
    });
    await api(`/env/${env}/webhooks/${relay.body.id}/test`, { method: 'POST' });
    answers = [500, 500];
    await emitEvent(server.services, env, 'production.query.regressed', { hash: '0123456789abcdef' });

    const { page } = app;
    await page.goto(`${server.url}/environments/${env}`);
    const section = page.getByRole('region', { name: /^Webhooks/ });
    await visible(section.getByRole('table', { name: 'Webhooks' }));
    await section.getByLabel('URL').fill('https://hooks.slack.com/services/T000/B000/XXXXsecret');
    await section.getByRole('button', { name: 'Add webhook' }).click();
    await visible(section.getByText(/signing secret is shown this once/));
    await visible(section.getByText('HTTP 204'));
    await visible(section.getByText('answered 500'));
    expect(await section.textContent()).not.toContain('XXXXsecret');
    expect(await section.textContent()).not.toContain('T0KEN');
    await section.scrollIntoViewIfNeeded();
    const file = await screenshot(page, 'webhooks');
    await section.screenshot({ path: file });
  });
});
