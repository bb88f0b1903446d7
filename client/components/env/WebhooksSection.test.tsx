// @vitest-environment jsdom
// The environment page's Webhooks section against the real web server (PGlite store) over the real
// tRPC client, sending to a real HTTP receiver: add (the secret shown once, the URL only masked),
// a refused URL beside its field, test, the delivery log, remove.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';

let server: ApiServer;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  server = await startApiServer();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['x-querytrail-signature']) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await server?.close();
});
afterEach(cleanup);

async function openWebhooks(id: string) {
  renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
  const section = await screen.findByRole('region', { name: /^Webhooks/ }, { timeout: 10_000 });
  await within(section).findByRole('button', { name: 'Add webhook' }, { timeout: 10_000 });
  return section;
}

describe('Webhooks section', () => {
  it('adds a webhook showing its secret once, tests it, logs the delivery and removes it', async () => {
    const id = (await server.api<{ id: string }>('POST', '/env', { name: 'Billing', slug: 'billing' })).body.id;
    const user = userEvent.setup();
    const section = await openWebhooks(id);
    expect(await within(section).findByText('No webhooks yet.')).toBeTruthy();

    const form = within(section).getByRole('form', { name: 'Add a webhook' });
    // a URL the server refuses (cloud metadata) is named beside the field, and nothing is stored
    await user.type(within(form).getByLabelText('URL'), 'http://169.254.169.254/latest');
    await user.click(within(form).getByRole('button', { name: 'Add webhook' }));
    expect(await within(form).findByText(/link-local/)).toBeTruthy();
    expect((await server.api<unknown[]>('GET', `/env/${id}/webhooks`)).body).toEqual([]);

    await user.clear(within(form).getByLabelText('URL'));
    await user.type(within(form).getByLabelText('URL'), `${receiverUrl}/hooks/secret-path-token`);
    await user.click(within(form).getByLabelText(/Analyze recommends a new index/));
    await user.click(within(form).getByRole('button', { name: 'Add webhook' }));

    const shown = await within(section).findByText(/signing secret is shown this once/);
    const secret = within(shown.closest('.callout') as HTMLElement).getByText(/^whsec_/).textContent!;
    const table = await within(section).findByRole('table', { name: 'Webhooks' });
    expect(within(table).getByText(`${receiverUrl}/hooks/…`)).toBeTruthy();
    expect(within(table).getByText('ci.verdict.failed')).toBeTruthy();
    expect(within(table).getByText('analysis.recommendation.new')).toBeTruthy();
    expect(section.textContent).not.toContain('secret-path-token');
    await user.click(within(section).getByRole('button', { name: 'I have saved it' }));
    expect(section.textContent).not.toContain(secret);

    await user.click(within(table).getByRole('button', { name: `Send a test to ${receiverUrl}/hooks/…` }));
    expect(await within(section).findByText('The test was answered with HTTP 204.')).toBeTruthy();
    const [delivery] = received;
    expect(delivery!.signature).toBe(`sha256=${createHmac('sha256', secret).update(delivery!.body).digest('hex')}`);
    const log = await within(section).findByRole('table', { name: 'Recent deliveries' });
    await waitFor(() => expect(within(log).getByText('webhook.test')).toBeTruthy());
    expect(within(log).getByText('delivered')).toBeTruthy();
    expect(within(log).getByText('HTTP 204')).toBeTruthy();

    await user.click(within(table).getByRole('button', { name: `Remove webhook ${receiverUrl}/hooks/…` }));
    expect(await within(section).findByText('No webhooks yet.')).toBeTruthy();
  });
});
