// The events the server emits on its own, received by a real HTTP receiver: a CI run whose verdict
// fails (planned against a real production PostgreSQL) notifies ci.verdict.failed once, a passing
// one nothing; an Analyze with indexes the previous one did not recommend notifies
// analysis.recommendation.new, the same recommendations again nothing. PGlite and PostgreSQL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../test/support/api';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { waitForAnalysis } from '../analysis/jobs';
import { closeWarmShadows } from '../verdict/shadows';

const BY_ACCOUNT = 'SELECT id, created_at FROM events WHERE account_id = $1';
/** No index serves it: a new query of a pull request that needs one. */
const BY_KIND = 'SELECT id FROM events WHERE kind = $1 AND created_at > $2';

let production: PostgresServer;
let productionUrl: string;
const received: Array<{ event: string; body: any }> = [];
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  productionUrl = await production.createDatabase('app');
  await production.query(
    `CREATE TABLE events (id bigint PRIMARY KEY, account_id int NOT NULL, kind text NOT NULL, created_at timestamptz NOT NULL, payload text);
     INSERT INTO events SELECT g, g % 4000, 'kind_' || (g % 200), now() - (g || ' seconds')::interval, repeat('x', 40)
     FROM generate_series(1, 100000) g;
     CREATE INDEX events_account_idx ON events (account_id);
     ANALYZE events;`,
    [],
    'app',
  );
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ event: String(req.headers['x-querytrail-event']), body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await closeWarmShadows();
  await production?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('events emitted by the server (%s)', (backend) => {
  let server: TestServer;
  let env: string;
  const repo = `acme/events-${backend}`;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) => requestJson(`${server.url}/api${path}`, init);
  const mine = (event: string) => received.filter((r) => r.event === event && r.body.environment.id === env);
  /** The deliveries of the environment once none is pending any more. */
  const settledLog = async (count: number) => {
    for (;;) {
      const log = (await api(`/env/${env}/webhooks/deliveries`)).body as Array<{ event: string; status: string }>;
      if (log.length >= count && log.every((d) => d.status !== 'pending')) return log;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const verdictOf = async (runId: string) => {
    for (;;) {
      const verdict = (await api(`/ci/runs/${runId}/verdict`)).body;
      if (verdict.status !== 'pending') return verdict;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const post = async (runId: string, branch: string, queries: string[]) => {
    const res = await api('/ci/runs', { method: 'POST', json: { repo, runId, branch, queries: queries.map((query) => ({ query, calls: 10 })) } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { webhookAllowPrivate: true }));
    env = (await api('/env', { method: 'POST', json: { name: 'Events', slug: 'events' } })).body.id;
    await api(`/env/${env}/connections`, { method: 'POST', json: { label: 'Primary', role: 'production', connectionString: productionUrl } });
    expect((await api(`/env/${env}/repos`, { method: 'POST', json: { repo } })).status).toBe(201);
    const hook = await api(`/env/${env}/webhooks`, {
      method: 'POST',
      json: { url: `${receiverUrl}/events`, events: ['ci.verdict.failed', 'analysis.recommendation.new'] },
    });
    expect(hook.status).toBe(201);
  });
  afterAll(() => server?.close());

  it('notifies a failing CI verdict once, and a passing one not at all', async () => {
    const mainRun = await post('1', 'main', [BY_ACCOUNT]);
    expect((await verdictOf(mainRun)).status).toBe('pass');
    const prRun = await post('2', 'feature/by-kind', [BY_ACCOUNT, BY_KIND]);
    expect((await verdictOf(prRun)).status).toBe('fail');

    const log = await settledLog(1);
    expect(log.filter((d) => d.event === 'ci.verdict.failed')).toHaveLength(1);
    const [failed] = mine('ci.verdict.failed');
    expect(failed!.body).toMatchObject({
      event: 'ci.verdict.failed',
      environment: { id: env, name: 'Events', slug: 'events' },
      data: { runId: prRun, ciRunId: '2', repo, branch: 'feature/by-kind', counts: { queries: 2, needIndex: 1 } },
    });
    expect(failed!.body.data.findings).toEqual([expect.objectContaining({ kind: 'new_query_needs_index' })]);
  });

  it('notifies new index recommendations of an Analyze, and not the same ones again', async () => {
    const analyze = async () => {
      const started = await api(`/env/${env}/analyze`, { method: 'POST' });
      expect(started.status).toBe(202);
      await waitForAnalysis(started.body.id);
      for (;;) {
        const latest = (await api(`/env/${env}/analyze`)).body;
        if (latest.status !== 'running') return latest;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const first = await analyze();
    expect(first.status).toBe('done');
    expect(first.indexes.length).toBeGreaterThan(0);
    await settledLog(2);
    const [notified] = mine('analysis.recommendation.new');
    expect(notified!.body.data).toMatchObject({ analysisId: first.id });
    expect(notified!.body.data.indexes.map((i: { createIndex: string }) => i.createIndex)).toEqual(
      first.indexes.map((i: { createIndex: string }) => i.createIndex),
    );

    const second = await analyze();
    expect(second.indexes.map((i: { createIndex: string }) => i.createIndex)).toEqual(first.indexes.map((i: { createIndex: string }) => i.createIndex));
    const log = await settledLog(2);
    expect(log.filter((d) => d.event === 'analysis.recommendation.new')).toHaveLength(1);
    expect(mine('analysis.recommendation.new')).toHaveLength(1);
  });
});
