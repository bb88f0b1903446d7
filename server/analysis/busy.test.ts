// "Analyze" when every shadow planner is taken and the queue is full: the job fails at once with
// a message that says so, before production is read, instead of starting one more cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestServices, startTestServer, type TestServer } from '../../test/support/services';
import { analyzeQueries, ShadowSlots } from '../../advisor/index';
import { startAnalysis, waitForAnalysis } from './jobs';

let server: TestServer;
const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await fetch(`${server.url}/api${path}`, {
    method: init.method ?? 'GET',
    headers: init.json === undefined ? {} : { 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

beforeAll(async () => {
  server = await startTestServer(await openTestServices('pglite'));
});
afterAll(() => server?.close());

describe('analysis while the shadow planners are busy', () => {
  it('fails the job with a clear message and reaches no database', async () => {
    const { body } = await api('/env', { method: 'POST', json: { name: 'Busy', slug: 'busy' } });
    // Port 1: nothing listens there; a job that got as far as connecting would say so instead.
    await api(`/env/${body.id}/connections`, { method: 'POST', json: { label: 'prod', role: 'production', connectionString: 'postgres://app:pw@127.0.0.1:1/shop' } });
    await api(`/env/${body.id}/queries`, { method: 'POST', json: { query: 'SELECT 1' } });
    const slots = new ShadowSlots({ maxConcurrent: 1, queue: 0 });
    let release!: () => void;
    const occupied = slots.run(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const { status } = await startAnalysis(server.services, body.id, (input) => analyzeQueries({ ...input, options: { ...input.options, slots } }));
      await waitForAnalysis(status.id);
      const latest = await api(`/env/${body.id}/analyze`);
      expect(latest.body).toMatchObject({ status: 'failed', phase: 'failed', error: 'Every shadow planner is busy and the queue is full; try again in a minute.' });
    } finally {
      release();
      await occupied;
    }
  });
});
