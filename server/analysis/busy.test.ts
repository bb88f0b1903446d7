// "Analyze" when every shadow planner is taken and the queue is full: the job fails at once with
// a message that says so instead of starting one more cluster. Production's snapshot is fresh in
// the store, so production is not read either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestServices, startTestServer, type TestServer } from '../../test/support/services';
import { ShadowSlots } from '../../advisor/index';
import { productionSnapshots } from '../db/schema';
import { startAnalysis, waitForAnalysis } from './jobs';
import { requestJson } from '../../test/support/api';

let server: TestServer;
const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);

beforeAll(async () => {
  server = await startTestServer(await openTestServices('pglite'));
});
afterAll(() => server?.close());

describe('analysis while the shadow planners are busy', () => {
  it('fails the job with a clear message and reaches no database', async () => {
    const { body } = await api('/env', { method: 'POST', json: { name: 'Busy', slug: 'busy' } });
    // Port 1: nothing listens there; a job that got as far as connecting would say so instead.
    const connection = await api(`/env/${body.id}/connections`, {
      method: 'POST',
      json: { label: 'prod', role: 'production', connectionString: 'postgres://app:pw@127.0.0.1:1/shop' },
    });
    await server.services.store.db
      .insert(productionSnapshots)
      .values({ id: 'snap_busy', environmentId: body.id, connectionId: connection.body.id, readAt: new Date(), digest: 'd', snapshot: {} });
    await api(`/env/${body.id}/queries`, { method: 'POST', json: { query: 'SELECT 1' } });
    const slots = new ShadowSlots({ maxConcurrent: 1, queue: 0 });
    let release!: () => void;
    const occupied = slots.run(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const { status } = await startAnalysis(server.services, body.id, { slots });
      await waitForAnalysis(status.id);
      const latest = await api(`/env/${body.id}/analyze`);
      expect(latest.body).toMatchObject({
        status: 'failed',
        phase: 'failed',
        error: 'Every shadow planner is busy and the queue is full; try again in a minute.',
      });
    } finally {
      release();
      await occupied;
    }
  });
});
