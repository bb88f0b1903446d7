// What leaves the server for a webhook, without the store: the Slack body, the masked URL, the
// address rules on a name that resolves privately, and the time limit, against real sockets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedAddress, refusedHost } from './addresses';
import { maskWebhookUrl, requestBody, type WebhookPayload } from './body';
import { sendWebhook } from './send';

const environment = { id: 'env_1', name: 'Payments', slug: 'payments' };
const stored = (event: WebhookPayload['event'], data: Record<string, unknown>) =>
  JSON.stringify({ event, environment, occurredAt: '2026-11-24T10:00:00.000Z', data } satisfies WebhookPayload);

describe('the Slack body', () => {
  it('is { text } naming the environment and what happened, for every event', () => {
    const verdict = JSON.parse(
      requestBody(stored('ci.verdict.failed', { runId: 'run_7', repo: 'acme/payments', branch: 'feat/x', summary: '2 regressions' }), true),
    );
    expect(Object.keys(verdict)).toEqual(['text']);
    expect(verdict.text).toBe(':x: CI verdict *failed* in *Payments*: acme/payments on `feat/x` (run run_7). 2 regressions');

    const recommendation = JSON.parse(
      requestBody(stored('analysis.recommendation.new', { indexes: [{ createIndex: 'CREATE INDEX ON orders (customer_id)' }] }), true),
    );
    expect(recommendation.text).toBe(':bulb: Analyze in *Payments* recommends 1 new index:\n• `CREATE INDEX ON orders (customer_id)`');

    const query = JSON.parse(requestBody(stored('production.query.new', { hash: '0123456789abcdef', query: 'SELECT 1' }), true));
    expect(query.text).toContain('New query in production in *Payments* (`0123456789abcdef`)');
    expect(JSON.parse(requestBody(stored('production.query.regressed', {}), true)).text).toContain('regressed in *Payments*');
    expect(JSON.parse(requestBody(stored('webhook.test', {}), true)).text).toContain('this webhook works');
  });

  it('leaves other receivers the payload byte for byte', () => {
    const body = stored('production.query.new', { hash: 'abc' });
    expect(requestBody(body, false)).toBe(body);
  });
});

describe('the masked URL', () => {
  it('keeps scheme, host and a plain first folder, never the secret path or query', () => {
    expect(maskWebhookUrl(new URL('https://hooks.slack.com/services/T0/B0/secret'))).toBe('https://hooks.slack.com/services/…');
    expect(maskWebhookUrl(new URL('https://example.com/Tok3nXYZ'))).toBe('https://example.com/…');
    expect(maskWebhookUrl(new URL('https://example.com:8443/?token=abc'))).toBe('https://example.com:8443/…');
    expect(maskWebhookUrl(new URL('http://example.com'))).toBe('http://example.com');
  });
});

describe('addresses', () => {
  it('refuses link-local always, private and loopback unless allowed', () => {
    expect(refusedAddress('169.254.169.254', true)).toMatch(/link-local/);
    expect(refusedAddress('fe80::1', true)).toMatch(/link-local/);
    expect(refusedAddress('10.0.0.1', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE/);
    expect(refusedAddress('::ffff:127.0.0.1', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE/);
    expect(refusedAddress('fd00::1', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE/);
    expect(refusedAddress('10.0.0.1', true)).toBeUndefined();
    expect(refusedAddress('93.184.216.34', false)).toBeUndefined();
    expect(refusedHost('LOCALHOST.', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE/);
    expect(refusedHost('example.com', false)).toBeUndefined();
  });
});

describe('sending', () => {
  let server: http.Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((req) => {
      requests++;
      req.resume(); // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a name that resolves to a private address when connecting, before any request', async () => {
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved || !refusedAddress(resolved.address, false)) return; // this machine's name is public: nothing to show here
    const result = await sendWebhook(new URL(`http://${name}:${port}/hook`), '{}', {}, { allowPrivate: false });
    expect(result).toMatchObject({ permanent: true, error: expect.stringMatching(new RegExp(`^${name} resolves to .*WEBHOOK_ALLOW_PRIVATE`)) });
    expect(requests).toBe(0);
  });

  it('gives up on a receiver that does not answer in time, as a failure to retry', async () => {
    const result = await sendWebhook(new URL(`http://127.0.0.1:${port}/hook`), '{}', {}, { allowPrivate: true, timeoutMs: 300 });
    expect(result).toEqual({ error: 'no answer within 0.3 s', permanent: false });
    expect(requests).toBe(1);
  });
});
