// Webhooks through the real HTTP API, delivered to a real HTTP receiver, on PGlite and PostgreSQL:
// the signature verifies with the secret given once; a 500 is retried and the delivery sent once
// after the 200; a delivered one is never sent again; the URL never comes back, nor into a log.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { readConfig } from '../config';
import { requestJson } from '../../test/support/api';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { deliverWebhook, MAX_ATTEMPTS, RetryDelivery } from './deliver';
import { emitEvent } from './events';

afterAll(stopTestPostgres);

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records each request and answers with the next scripted status (200 when none is left). */
async function startReceiver() {
  const received: Received[] = [];
  const script: Array<number | { status: number; location: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.shift() ?? 200;
      if (typeof next === 'object') res.writeHead(next.status, { location: next.location }).end();
      else res.writeHead(next, { 'content-type': 'text/plain' }).end(next === 200 ? 'ok' : `receiver says ${next}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, script, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** How a receiver checks a delivery: HMAC-SHA256 of the raw body with the secret, compared in constant time. */
function verify(secret: string, body: string, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// The part of a webhook URL that is its credential, as Slack's are: it must never come back out.
const SECRET_PATH = '/hooks/T0SECRET/B0SECRET/xoxsecretpathtoken';

describe.each(BACKENDS)('webhooks (%s)', (backend) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let envId: string;
  const logs: string[] = [];
  const api = (path: string, init?: Parameters<typeof requestJson>[1]) => requestJson(`${server.url}/api${path}`, init);

  beforeAll(async () => {
    // retries 1 s apart (doubling) instead of JOB_RETRY_DELAY_SECONDS' 10
    server = await startTestServer(await openTestServices(backend, { webhookAllowPrivate: true, jobs: { ...readConfig({}).jobs, retryDelaySeconds: 1 } }));
    receiver = await startReceiver();
    envId = (await api('/env', { method: 'POST', json: { name: 'Payments', slug: 'payments' } })).body.id;
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });
  beforeEach(async () => {
    // each test's webhooks only: an earlier test's would take their share of the receiver's script
    for (const hook of (await api(`/env/${envId}/webhooks`)).body) await api(`/env/${envId}/webhooks/${hook.id}`, { method: 'DELETE' });
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
    }
    receiver.script.length = 0;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    // whatever happened in the test, the URL's secret part was never logged
    expect(logs.filter((line) => line.includes('xoxsecretpathtoken'))).toEqual([]);
  });

  const addWebhook = async (events: string[], extra: Record<string, unknown> = {}) => {
    const res = await api(`/env/${envId}/webhooks`, { method: 'POST', json: { url: `${receiver.url}${SECRET_PATH}`, events, ...extra } });
    expect(res.status).toBe(201);
    return res;
  };
  const deliveries = async () => (await api(`/env/${envId}/webhooks/deliveries?limit=50`)).body as Array<Record<string, any>>;

  it('stores the URL sealed, returns the generated secret once, and lists the URL masked', async () => {
    const created = await addWebhook(['ci.verdict.failed']);
    expect(created.body).toMatchObject({ maskedUrl: `${receiver.url}/hooks/…`, format: 'json', events: ['ci.verdict.failed'] });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.text).not.toContain('xoxsecretpathtoken');

    const list = await api(`/env/${envId}/webhooks`);
    expect(list.status).toBe(200);
    expect(list.body.find((w: { id: string }) => w.id === created.body.id)).toEqual({
      id: created.body.id,
      maskedUrl: `${receiver.url}/hooks/…`,
      format: 'json',
      events: ['ci.verdict.failed'],
      createdAt: expect.any(String),
    });
    expect(list.text).not.toContain('xoxsecretpathtoken');
    expect(list.text).not.toContain(created.body.secret);
    // the environment and the OpenAPI document say nothing of it either
    expect((await api(`/env/${envId}`)).text).not.toContain('xoxsecretpathtoken');

    const stored = await server.services.store.db.execute(sql`SELECT url_encrypted, secret_encrypted FROM webhooks WHERE id = ${created.body.id}`);
    const row = (stored as unknown as { rows: Array<Record<string, string>> }).rows[0]!;
    expect(row.url_encrypted).not.toContain('xoxsecretpathtoken');
    expect(row.secret_encrypted).not.toContain(created.body.secret);

    expect((await api(`/env/${envId}/webhooks/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/env/${envId}/webhooks`)).body.some((w: { id: string }) => w.id === created.body.id)).toBe(false);
  });

  /** The delivery as the log shows it, once `done` says it has settled (the queue's worker sends it meanwhile). */
  const settled = async (id: string, done = (d: Record<string, any>) => d.status !== 'pending') => {
    for (;;) {
      const found = (await deliveries()).find((d) => d.id === id);
      if (found && done(found)) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('delivers an event from the queue signed with the secret, retries after a 500, and never sends it again after success', async () => {
    const hook = await addWebhook(['ci.verdict.failed', 'analysis.recommendation.new']);
    const other = await addWebhook(['production.query.new']);
    const before = receiver.received.length;

    receiver.script.push(500);
    const [id, ...more] = await emitEvent(
      server.services,
      envId,
      'ci.verdict.failed',
      { runId: 'run_1', repo: 'acme/payments', branch: 'feature' },
      { key: 'run_1' },
    );
    expect(more).toEqual([]); // only the webhook subscribed to the event
    expect(id).toBeDefined();
    // the same event about the same run again (a retried verdict job): nobody is notified twice
    expect(await emitEvent(server.services, envId, 'ci.verdict.failed', { runId: 'run_1' }, { key: 'run_1' })).toEqual([]);

    const logged = await settled(id!);
    expect(logged).toMatchObject({
      webhookId: hook.body.id,
      event: 'ci.verdict.failed',
      status: 'delivered',
      attempts: 2,
      responseStatus: 200,
      lastError: null,
    });
    expect(logged.deliveredAt).toEqual(expect.any(String));

    await deliverWebhook(server.services, id!); // a stray second job: nothing is sent
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(2);
    expect(got[0]!.body).toBe(got[1]!.body); // the retry sends the same bytes
    expect(got[0]!.path).toBe(SECRET_PATH);

    const delivery = got[1]!;
    expect(verify(hook.body.secret, delivery.body, delivery.headers['x-querytrail-signature'])).toBe(true);
    expect(verify(other.body.secret, delivery.body, delivery.headers['x-querytrail-signature'])).toBe(false);
    expect(delivery.headers['x-querytrail-event']).toBe('ci.verdict.failed');
    expect(delivery.headers['x-querytrail-delivery']).toBe(id);
    expect(delivery.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(delivery.body);
    expect(payload).toEqual({
      event: 'ci.verdict.failed',
      environment: { id: envId, name: 'Payments', slug: 'payments' },
      occurredAt: expect.any(String),
      data: { runId: 'run_1', repo: 'acme/payments', branch: 'feature' },
    });
    expect(new Date(payload.occurredAt).toISOString()).toBe(payload.occurredAt);
    expect(JSON.stringify(await deliveries())).not.toContain('xoxsecretpathtoken');
  });

  it('keeps the first answer of a failing receiver in the log while retrying', async () => {
    await addWebhook(['production.query.new']);
    receiver.script.push(503, 503);
    const [id] = await emitEvent(server.services, envId, 'production.query.new', { hash: 'fedcba9876543210' });
    const retrying = await settled(id!, (d) => d.attempts >= 1 && d.responseStatus === 503);
    expect(retrying).toMatchObject({ status: 'pending', lastError: 'answered 503', responseExcerpt: 'receiver says 503' });
    expect(await settled(id!)).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('fails a delivery after the last attempt, and does not follow redirects', async () => {
    const hook = await addWebhook(['production.query.regressed']);
    // stored as emitEvent stores one, but sent here attempt by attempt instead of by the queue
    const id = `whd_direct${backend}`;
    await server.services.store.db.execute(
      sql`INSERT INTO webhook_deliveries (id, webhook_id, environment_id, event, body) VALUES (${id}, ${hook.body.id}, ${envId}, 'production.query.regressed', ${JSON.stringify({ event: 'production.query.regressed', environment: { id: envId, name: 'Payments', slug: 'payments' }, occurredAt: new Date().toISOString(), data: {} })})`,
    );
    const before = receiver.received.length;
    receiver.script.push({ status: 302, location: '/elsewhere' }, ...Array<number>(MAX_ATTEMPTS).fill(503));
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) await expect(deliverWebhook(server.services, id)).rejects.toBeInstanceOf(RetryDelivery);
    await deliverWebhook(server.services, id); // the last attempt fails the delivery instead of asking for another
    await deliverWebhook(server.services, id);
    const logged = (await deliveries()).find((d) => d.id === id)!;
    expect(logged).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, responseStatus: 503, lastError: 'answered 503' });
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(MAX_ATTEMPTS);
    expect(got.every((r) => r.path === SECRET_PATH)).toBe(true); // /elsewhere was never asked
  });

  it('sends a test event at once and answers how the receiver took it', async () => {
    const hook = await addWebhook(['analysis.recommendation.new'], { secret: 'my-own-signing-secret' });
    expect(hook.body.secret).toBe('my-own-signing-secret');
    const ok = await api(`/env/${envId}/webhooks/${hook.body.id}/test`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ event: 'webhook.test', status: 'delivered', attempts: 1, responseStatus: 200 });
    const got = receiver.received.at(-1)!;
    expect(verify('my-own-signing-secret', got.body, got.headers['x-querytrail-signature'])).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({ event: 'webhook.test', environment: { id: envId } });

    receiver.script.push(500);
    const failed = await api(`/env/${envId}/webhooks/${hook.body.id}/test`, { method: 'POST' });
    expect(failed.body).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 500, lastError: 'answered 500' });
  });

  it('refuses bad input with 400 in the one error shape, and unknown ids with 404', async () => {
    const post = (json: unknown) => api(`/env/${envId}/webhooks`, { method: 'POST', json });
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://example.com/x', events: ['ci.verdict.failed'] }, 'url'],
      [{ url: 'not a url', events: ['ci.verdict.failed'] }, 'url'],
      [{ url: 'https://user:pw@example.com/x', events: ['ci.verdict.failed'] }, 'url'],
      [{ url: 'https://example.com/x', events: [] }, 'events'],
      [{ url: 'https://example.com/x', events: ['ci.verdict.passed'] }, 'events.0'],
      [{ url: 'https://example.com/x', events: ['ci.verdict.failed', 'ci.verdict.failed'] }, 'events'],
      [{ url: 'https://example.com/x', events: ['ci.verdict.failed'], secret: 'short' }, 'secret'],
      [{ url: 'http://169.254.169.254/latest/meta-data', events: ['ci.verdict.failed'] }, 'url'],
      [{ events: ['ci.verdict.failed'] }, 'url'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect((await api(`/env/${envId}/webhooks`)).body.every((w: { maskedUrl: string }) => !w.maskedUrl.includes('example.com'))).toBe(true);

    expect((await api('/env/env_missing/webhooks', { method: 'POST', json: { url: 'https://example.com/x', events: ['ci.verdict.failed'] } })).status).toBe(
      404,
    );
    const missing = await api(`/env/${envId}/webhooks/wh_missing`, { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: 'Webhook wh_missing not found' });
    expect((await api(`/env/${envId}/webhooks/wh_missing/test`, { method: 'POST' })).status).toBe(404);
  });

  it('shows a Slack incoming webhook masked as Slack, to be sent { text }', async () => {
    const res = await api(`/env/${envId}/webhooks`, {
      method: 'POST',
      json: { url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXXsecret', events: ['production.query.new'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ maskedUrl: 'https://hooks.slack.com/services/…', format: 'slack' });
    expect(res.text).not.toContain('XXXXXXXXsecret');
  });
});

describe('webhooks to private addresses (default: refused)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(await openTestServices('pglite'));
  });
  afterAll(() => server?.close());

  it('refuses loopback and private addresses unless WEBHOOK_ALLOW_PRIVATE is set', async () => {
    const envId = (await requestJson(`${server.url}/api/env`, { method: 'POST', json: { name: 'Shop', slug: 'shop' } })).body.id;
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://[::ffff:192.168.0.1]/x']) {
      const res = await requestJson(`${server.url}/api/env/${envId}/webhooks`, { method: 'POST', json: { url, events: ['ci.verdict.failed'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.issues).toEqual([{ path: 'url', message: expect.stringContaining('WEBHOOK_ALLOW_PRIVATE=1') }]);
    }
  });
});
