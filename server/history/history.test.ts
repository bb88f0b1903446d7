// Production history against a real PostgreSQL with pg_stat_statements: readings turn its totals
// into exact per-interval work, resets never make a negative or doubled point, primary and replica
// add up, dropping old points keeps totals, and the API answers windows and refuses bad ones.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../test/support/postgres';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../../test/support/services';
import { requestJson } from '../../test/support/api';
import { fingerprintQuery } from '../../shared/sql-fingerprint';
import { appRouter } from '../routers/root';
import { createContext } from '../trpc';
import type { Services } from '../services-type';
import { takeHistoryReading } from './reading';
import { pruneHistory } from './retention';
import { storePoints } from './reading';

const SELECT = 'SELECT name FROM items WHERE id = $1';
const UPDATE = 'UPDATE items SET stock = stock + 1 WHERE id = $1';

let production: PostgresServer;
let primaryUrl: string;
let replicaUrl: string;
let selectHash: string;
let updateHash: string;

async function run(url: string, text: string, times: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < times; i++) await client.query(text, [1 + (i % 50)]);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  production = await startPostgres({ statStatements: true });
  primaryUrl = await production.createDatabase('shop');
  replicaUrl = await production.createDatabase('shop_replica');
  for (const url of [primaryUrl, replicaUrl]) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('CREATE TABLE items (id int PRIMARY KEY, name text, stock int NOT NULL DEFAULT 0)');
    await client.query("INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g");
    await client.end();
  }
  selectHash = (await fingerprintQuery(SELECT)).hash;
  updateHash = (await fingerprintQuery(UPDATE)).hash;
});
afterAll(async () => {
  await production?.stop();
  await stopTestPostgres();
});

const minutes = (n: number) => new Date(Date.UTC(2026, 10, 20, 12, 0) + n * 60_000);

describe.each(BACKENDS)('production history with the store on %s', (backend) => {
  let services: Services;
  let envId: string;
  const caller = () => appRouter.createCaller(createContext(services));
  const history = (hash: string) => caller().history.query({ id: envId, hash, from: minutes(-1).toISOString(), to: minutes(600).toISOString() });
  const callsAt = async (hash: string, at: Date) => (await history(hash)).find((p) => p.at === at.toISOString())?.calls;

  beforeAll(async () => {
    services = await openTestServices(backend);
    ({ id: envId } = await caller().env.create({ name: 'Shop', slug: 'shop' }));
    await caller().connections.add({ id: envId, label: 'primary', role: 'production', connectionString: primaryUrl });
    await production.query('SELECT pg_stat_statements_reset()', [], 'shop');
  });
  afterAll(() => services.store.close());

  it('stores no points for the first reading, then exactly the calls made between two readings', async () => {
    await run(primaryUrl, SELECT, 4); // before the baseline: never a point
    const baseline = await takeHistoryReading(services, envId, { now: minutes(0) });
    expect(baseline?.connections).toEqual([{ id: expect.any(String), label: 'primary', result: 'baseline' }]);
    expect(baseline?.points).toBe(0);

    await run(primaryUrl, SELECT, 7);
    await run(primaryUrl, UPDATE, 3); // first seen now: counts in full
    const second = await takeHistoryReading(services, envId, { now: minutes(10) });
    expect(second?.connections[0]?.result).toBe('points');
    const [selectPoint] = await history(selectHash);
    expect(selectPoint).toMatchObject({ at: minutes(10).toISOString(), calls: 7, rows: 7 });
    expect(selectPoint!.totalTimeMs).toBeGreaterThan(0);
    expect(selectPoint!.meanTimeMs).toBeCloseTo(selectPoint!.totalTimeMs / 7, 9);
    expect(selectPoint!.sharedBlksHit + selectPoint!.sharedBlksRead).toBeGreaterThan(0);
    expect(await history(updateHash)).toEqual([expect.objectContaining({ at: minutes(10).toISOString(), calls: 3, rows: 3 })]);

    // nothing ran: no point (our own reads of pg_stat_statements are never counted)
    await takeHistoryReading(services, envId, { now: minutes(20) });
    expect(await callsAt(selectHash, minutes(20))).toBeUndefined();
  });

  it('never stores a negative or doubled point across pg_stat_statements_reset()', async () => {
    await run(primaryUrl, SELECT, 5);
    await production.query('SELECT pg_stat_statements_reset()', [], 'shop');
    await run(primaryUrl, SELECT, 2);
    await takeHistoryReading(services, envId, { now: minutes(30) });
    expect(await callsAt(selectHash, minutes(30))).toBe(2);

    await run(primaryUrl, SELECT, 4);
    await takeHistoryReading(services, envId, { now: minutes(40) });
    expect(await callsAt(selectHash, minutes(40))).toBe(4);

    // one entry reset on its own (stats_reset unchanged): its counters went down, the new value counts
    const { rows } = await production.query<{ queryid: string }>(
      `SELECT queryid::text FROM pg_stat_statements WHERE query = $1 AND dbid = (SELECT oid FROM pg_database WHERE datname = 'shop')`,
      [SELECT],
      'shop',
    );
    await run(primaryUrl, SELECT, 9);
    for (const { queryid } of rows) await production.query('SELECT pg_stat_statements_reset(0, 0, $1::bigint)', [queryid], 'shop');
    await run(primaryUrl, SELECT, 1);
    await takeHistoryReading(services, envId, { now: minutes(50) });
    expect(await callsAt(selectHash, minutes(50))).toBe(1);

    for (const point of [...(await history(selectHash)), ...(await history(updateHash))]) {
      for (const figure of [point.calls, point.totalTimeMs, point.rows, point.sharedBlksHit, point.sharedBlksRead]) expect(figure).toBeGreaterThanOrEqual(0);
    }
  });

  it('adds a replica from its own first reading and sums the work of primary and replica', async () => {
    const { id: replicaId } = await caller().connections.add({ id: envId, label: 'replica', role: 'production', connectionString: replicaUrl });
    await run(replicaUrl, SELECT, 6);
    const first = await takeHistoryReading(services, envId, { now: minutes(60) });
    expect(first?.connections.map((c) => c.result)).toEqual(['points', 'baseline']);

    await run(primaryUrl, SELECT, 3);
    await run(replicaUrl, SELECT, 2);
    await takeHistoryReading(services, envId, { now: minutes(70) });
    expect(await callsAt(selectHash, minutes(70))).toBe(5);

    const top = await caller().history.top({ id: envId, from: minutes(65).toISOString(), to: minutes(75).toISOString(), by: 'calls', limit: 5 });
    expect(top[0]).toMatchObject({ hash: selectHash, calls: 5 });
    await caller().connections.remove({ id: envId, connectionId: replicaId });
  });

  it("sums a window's whole hours from the hour sums and its partial hours from the points: the same totals as every point", async () => {
    const { id: sumsEnv } = await caller().env.create({ name: 'Sums', slug: 'sums' });
    const start = Date.UTC(2026, 10, 20, 0, 0);
    // 10-minute points over two days with figures that differ per point, then a second reading of
    // some reading times, which adds to their points (the sums must follow updates too)
    for (let t = start; t <= start + 2 * 86_400_000; t += 600_000) {
      const i = (t / 600_000) % 11;
      await storePoints(
        services.store.db,
        sumsEnv,
        new Date(t),
        new Map([
          ['00000000000000aa', { calls: 1 + i, totalTimeMs: 0.37 * (1 + i), rows: i, sharedBlksHit: 3 * i, sharedBlksRead: i % 3 }],
          ['00000000000000bb', { calls: 2, totalTimeMs: 1.5, rows: 2, sharedBlksHit: 1, sharedBlksRead: 0 }],
        ]),
      );
    }
    for (let t = start + 3_600_000; t <= start + 30 * 3_600_000; t += 7 * 600_000) {
      await storePoints(
        services.store.db,
        sumsEnv,
        new Date(t),
        new Map([['00000000000000aa', { calls: 5, totalTimeMs: 2.5, rows: 1, sharedBlksHit: 1, sharedBlksRead: 1 }]]),
      );
    }
    const points = await caller().history.query({
      id: sumsEnv,
      hash: '00000000000000aa',
      from: new Date(start - 1).toISOString(),
      to: new Date(start + 3 * 86_400_000).toISOString(),
    });
    // windows on and off the hour, shorter than an hour, and reaching past the points
    for (const [fromMinutes, toMinutes] of [
      [0, 1440],
      [7, 1453],
      [-30, 95],
      [61, 119],
      [60, 120],
      [1430, 2900],
      [35, 41],
    ] as const) {
      const from = new Date(start + fromMinutes * 60_000);
      const to = new Date(start + toMinutes * 60_000);
      const inWindow = points.filter((p) => p.at > from.toISOString() && p.at <= to.toISOString());
      const [top] = await caller().history.top({ id: sumsEnv, from: from.toISOString(), to: to.toISOString(), by: 'calls', limit: 1 });
      const expected = (figure: 'calls' | 'rows' | 'sharedBlksHit' | 'sharedBlksRead' | 'totalTimeMs') => inWindow.reduce((sum, p) => sum + p[figure], 0);
      expect(top, `${fromMinutes}-${toMinutes} min`).toMatchObject({ hash: '00000000000000aa', calls: expected('calls'), rows: expected('rows') });
      expect(top).toMatchObject({ sharedBlksHit: expected('sharedBlksHit'), sharedBlksRead: expected('sharedBlksRead') });
      expect(top!.totalTimeMs).toBeCloseTo(expected('totalTimeMs'), 6);
    }
  });

  it('drops points past full resolution, their hour sums keeping the same totals, and drops hour sums past theirs', async () => {
    const { id: retentionEnv } = await caller().env.create({ name: 'Retention', slug: 'retention' });
    const now = new Date(Date.UTC(2026, 10, 20, 12, 0));
    const day = 86_400_000;
    // 10-minute points from 9 days ago to now for two queries, and one point past hourly retention
    for (let t = now.getTime() - 9 * day; t <= now.getTime(); t += 600_000) {
      const i = (t / 600_000) % 7;
      await storePoints(
        services.store.db,
        retentionEnv,
        new Date(t),
        new Map([
          ['00000000000000aa', { calls: 1 + i, totalTimeMs: 0.5 * (1 + i), rows: i, sharedBlksHit: 2 * i, sharedBlksRead: i % 2 }],
          ['00000000000000bb', { calls: 3, totalTimeMs: 1.25, rows: 3, sharedBlksHit: 1, sharedBlksRead: 0 }],
        ]),
      );
    }
    await storePoints(
      services.store.db,
      retentionEnv,
      new Date(now.getTime() - 100 * day),
      new Map([['00000000000000aa', { calls: 1, totalTimeMs: 1, rows: 1, sharedBlksHit: 1, sharedBlksRead: 1 }]]),
    );
    const window = { id: retentionEnv, from: new Date(now.getTime() - 10 * day).toISOString(), to: now.toISOString(), by: 'calls' as const, limit: 10 };
    const before = await caller().history.top(window);
    const hourOld = async () => (await caller().history.query({ id: retentionEnv, hash: '00000000000000aa', from: window.from, to: window.to })).length;
    const pointsBefore = await hourOld();

    const outcome = await pruneHistory(services, { now });
    expect(outcome.hourSumsDropped).toBe(1); // the 100-day-old point's hour sum is past hourly retention too
    const after = await caller().history.top(window);
    for (const [i, row] of before.entries()) {
      expect(after[i]).toMatchObject({
        hash: row.hash,
        calls: row.calls,
        rows: row.rows,
        sharedBlksHit: row.sharedBlksHit,
        sharedBlksRead: row.sharedBlksRead,
      });
      expect(after[i]!.totalTimeMs).toBeCloseTo(row.totalTimeMs, 6);
    }
    // the last 7 days at full resolution (6 points an hour), the 2 days before summed per hour
    expect(await hourOld()).toBeLessThan(pointsBefore);
    // windows off the hour over dropped points, and across the cutoff: a dropped hour's sum counts as
    // a point at the hour's start, alike in a query's history and in the window's sums
    const hours = (n: number) => new Date(now.getTime() + n * 3_600_000).toISOString();
    for (const [from, to] of [
      [-8 * 24 - 0.5, -8 * 24 + 1.5],
      [-7 * 24 - 2.25, -7 * 24 + 0.75],
      [-8 * 24 + 0.25, -8 * 24 + 1],
    ] as const) {
      const inWindow = await caller().history.query({ id: retentionEnv, hash: '00000000000000aa', from: hours(from), to: hours(to) });
      const sums = await caller().history.top({ id: retentionEnv, from: hours(from), to: hours(to), by: 'calls', limit: 10 });
      expect(inWindow.length, `${from} h to ${to} h`).toBeGreaterThan(0);
      expect(sums.find((q) => q.hash === '00000000000000aa')?.calls, `${from} h to ${to} h`).toBe(inWindow.reduce((sum, p) => sum + p.calls, 0));
    }
    const again = await pruneHistory(services, { now });
    expect(again).toEqual({ pointsDropped: 0, hourSumsDropped: 0 }); // each hour's points go once
    expect(await caller().history.top(window)).toEqual(after);
  });
});

describe.each(BACKENDS)('the history API on %s', (backend) => {
  let server: TestServer;
  let envId: string;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    ({
      body: { id: envId },
    } = await requestJson(`${server.url}/api/env`, { method: 'POST', json: { name: 'Api', slug: 'api' } }));
    const at = new Date(Date.UTC(2026, 10, 20, 12, 0));
    for (let hour = 0; hour < 4; hour++) {
      // the query takes 2 ms a call for two hours, then 5 ms
      await storePoints(
        server.services.store.db,
        envId,
        new Date(at.getTime() + hour * 3_600_000),
        new Map([
          ['00000000000000aa', { calls: 10, totalTimeMs: hour < 2 ? 20 : 50, rows: 10, sharedBlksHit: 5, sharedBlksRead: 1 }],
          ['00000000000000bb', { calls: 100, totalTimeMs: 10, rows: 0, sharedBlksHit: 0, sharedBlksRead: 0 }],
        ]),
      );
    }
  });
  afterAll(() => server.close());

  const api = (path: string) => requestJson(`${server.url}/api/env/${envId}${path}`);

  it("answers a query's points in the window", async () => {
    const answer = await api('/queries/00000000000000AA/history?from=2026-11-20T12:30:00Z&to=2026-11-20T14:00:00Z');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { at: '2026-11-20T13:00:00.000Z', calls: 10, totalTimeMs: 20, meanTimeMs: 2, rows: 10, sharedBlksHit: 5, sharedBlksRead: 1 },
      { at: '2026-11-20T14:00:00.000Z', calls: 10, totalTimeMs: 50, meanTimeMs: 5, rows: 10, sharedBlksHit: 5, sharedBlksRead: 1 },
    ]);
  });

  it('answers the heaviest queries by total time, calls or mean time', async () => {
    const window = 'from=2026-11-20T11:00:00Z&to=2026-11-20T16:00:00Z';
    const byTime = await api(`/history/top?${window}`);
    expect(byTime.body.map((q: { hash: string }) => q.hash)).toEqual(['00000000000000aa', '00000000000000bb']);
    expect(byTime.body[0]).toMatchObject({ calls: 40, totalTimeMs: 140, meanTimeMs: 3.5, formattedQuery: null });
    expect((await api(`/history/top?${window}&by=calls&limit=1`)).body).toEqual([expect.objectContaining({ hash: '00000000000000bb', calls: 400 })]);
  });

  it('answers the queries whose mean time rose by more than the threshold against the previous window', async () => {
    const answer = await api('/history/regressed?from=2026-11-20T13:00:00Z&to=2026-11-20T15:00:00Z');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { hash: '00000000000000aa', formattedQuery: null, calls: 20, meanTimeMs: 5, previousCalls: 20, previousMeanTimeMs: 2, changePercent: 150, causes: [] },
    ]);
    expect((await api('/history/regressed?from=2026-11-20T13:00:00Z&to=2026-11-20T15:00:00Z&threshold=200')).body).toEqual([]);
  });

  it.each([
    ['from after to', '/history/top?from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z', 'from'],
    ['a window over 400 days', '/history/top?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['a date that is not ISO 8601', '/queries/00000000000000aa/history?from=yesterday', 'from'],
    ['an unknown order', '/history/top?by=rows', 'by'],
    ['a limit past 500', '/history/top?limit=501', 'limit'],
    ['a threshold below 1', '/history/regressed?threshold=0', 'threshold'],
    ['a hash that is not a fingerprint', '/queries/xyz/history', 'hash'],
  ])('refuses %s with 400', async (_name, path, field) => {
    const answer = await api(path);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    expect(answer.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
  });

  it.each(['/history/top', '/queries/00000000000000aa/history'])('answers 404 for %s of an unknown environment', async (path) => {
    const answer = await requestJson(`${server.url}/api/env/env_nope${path}`);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('not_found');
  });

  it('answers no points for a query production never ran', async () => {
    const answer = await api('/queries/00000000000000cc/history?from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z');
    expect(answer).toMatchObject({ status: 200, body: [] });
  });

  it('keeps the interval setting per environment: null for the default, 0 for off, at least 5 seconds', async () => {
    const patch = (json: unknown) => requestJson(`${server.url}/api/env/${envId}`, { method: 'PATCH', json });
    expect((await patch({ snapshotIntervalSeconds: 60 })).body).toMatchObject({ snapshotIntervalSeconds: 60 });
    expect((await api('')).body).toMatchObject({ snapshotIntervalSeconds: 60 });
    expect((await patch({ snapshotIntervalSeconds: 0 })).body).toMatchObject({ snapshotIntervalSeconds: 0 });
    expect((await patch({ snapshotIntervalSeconds: 4 })).status).toBe(400);
    expect((await patch({ snapshotIntervalSeconds: null })).body).toMatchObject({ snapshotIntervalSeconds: null });
  });
});
