// CI run ingestion and the catalog rules it follows (counted once per run, newest text kept,
// idempotent on repo and run id, exact counts under concurrency), through the tRPC caller, on
// PGlite and on a real PostgreSQL server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestServices, stopTestPostgres } from '../../test/support/services';
import { appRouter } from '../routers/root';
import type { Services } from '../services-type';
import { createContext } from '../trpc';
import type { IngestRunInput } from '../../shared/ci';

afterAll(() => stopTestPostgres());

describe.each(BACKENDS)('CI ingestion on %s', (backend) => {
  let services: Services;
  const caller = () => appRouter.createCaller(createContext(services));
  /** Calls ingest and also reports the status the REST adapter would answer with. */
  const ingest = async (input: IngestRunInput) => {
    const ctx = createContext(services);
    const result = await appRouter.createCaller(ctx).ci.ingest(input);
    return { ...result, status: ctx.response.status ?? 201 };
  };
  let envId: string;
  let n = 0;
  let repo: string;

  beforeAll(async () => {
    services = await openTestServices(backend);
  });
  afterAll(() => services.store.close());

  beforeEach(async () => {
    n++;
    repo = `acme/app-${n}`;
    ({ id: envId } = await caller().env.create({ name: `App ${n}`, slug: `app-${n}` }));
    await caller().repos.link({ id: envId, repo });
  });

  const catalog = async (id = envId) => {
    const rows = await caller().queries.list({ id, limit: 1000, offset: 0 });
    return new Map(rows.map((r) => [r.hash, r]));
  };

  it('adds new queries to the linked environment and counts them once per run', async () => {
    const first = await ingest({
      repo,
      runId: '1',
      branch: 'main',
      queries: [
        { query: 'SELECT * FROM users WHERE id = 1' },
        { query: 'SELECT * FROM users WHERE id = 42' }, // same fingerprint: counts once
        { query: 'INSERT INTO orders (user_id, total) VALUES (1, 9.5)', calls: 3, meanTimeMs: 0.5 },
      ],
    });
    expect(first).toMatchObject({ environmentId: envId, queryCount: 2, newQueryCount: 2, rejected: [], status: 201 });

    const entries = await catalog();
    expect(entries.size).toBe(2);
    for (const entry of entries.values()) {
      expect(entry).toMatchObject({ lastSeenSource: 'ci', ciRunCount: 1 });
      expect(entry.firstSeenAt).toBe(entry.lastSeenAt);
    }
    const select = [...entries.values()].find((e) => e.formattedQuery.startsWith('SELECT'))!;
    expect(select.formattedQuery).toContain('$1');
    expect(select.formattedQuery).not.toContain('42');

    const second = await ingest({
      repo,
      runId: '2',
      queries: [{ query: 'select * from users where id = 7 -- newest text' }, { query: 'DELETE FROM sessions WHERE expires_at < now()' }],
    });
    expect(second).toMatchObject({ queryCount: 2, newQueryCount: 1, status: 201 });
    const after = await catalog();
    expect(after.size).toBe(3);
    const updated = after.get(select.hash)!;
    expect(updated.ciRunCount).toBe(2);
    expect(updated.firstSeenAt).toBe(select.firstSeenAt);
    expect(Date.parse(updated.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(select.lastSeenAt));
    const single = await caller().queries.get({ id: envId, hash: select.hash });
    expect(single.query).toBe('select * from users where id = 7 -- newest text');
  });

  it('keeps call sites per run and per catalog entry, without changing the fingerprint; a hostile comment stores nothing and breaks nothing', async () => {
    const plain = 'SELECT * FROM orders WHERE customer_id = $1';
    const tagged = `${plain} /*action:index,controller:orders,source_location:app/models/order.rb:88*/`;
    const django = `${plain} /*controller='report',route='%2Fapi%2Forders',framework='django%3A4.2'*/`;
    const hostile = `${plain} /*controller='${'\\\'"'.repeat(2000)}/* nested */ ${'x'.repeat(80_000)}*/`;
    const first = await ingest({ repo, runId: 'cs-1', queries: [{ query: tagged, calls: 2 }, { query: hostile }] });
    expect(first).toMatchObject({ queryCount: 1, newQueryCount: 1, rejected: [] });
    const [hash] = [...(await catalog()).keys()];
    const entry = await caller().queries.get({ id: envId, hash: hash! });
    const orders = {
      file: 'app/models/order.rb',
      line: 88,
      controller: 'orders',
      action: 'index',
      tags: { action: 'index', controller: 'orders', source_location: 'app/models/order.rb:88' },
    };
    expect(entry.callSites).toEqual([orders]);

    // a later run from another framework: its call site first, the earlier one kept
    await ingest({ repo, runId: 'cs-2', queries: [{ query: django }] });
    const report = {
      controller: 'report',
      route: '/api/orders',
      framework: 'django:4.2',
      tags: { controller: 'report', route: '/api/orders', framework: 'django:4.2' },
    };
    expect((await caller().queries.get({ id: envId, hash: hash! })).callSites).toEqual([report, orders]);
    // the same sighting again is not a second entry; the count of entries is bounded
    await ingest({ repo, runId: 'cs-3', queries: [{ query: tagged }] });
    expect((await caller().queries.get({ id: envId, hash: hash! })).callSites).toEqual([orders, report]);
    for (let i = 0; i < 12; i++) await ingest({ repo, runId: `cs-many-${i}`, queries: [{ query: `${plain} /*file='lib/job_${i}.rb:1'*/` }] });
    const many = (await caller().queries.get({ id: envId, hash: hash! })).callSites;
    expect(many).toHaveLength(10);
    expect(many[0]).toMatchObject({ file: 'lib/job_11.rb', line: 1 });
    expect((await catalog()).size).toBe(1);
  });

  it('is idempotent on (repo, runId): same id, status 200, no count changes', async () => {
    const run = { repo, runId: '77', queries: [{ query: 'SELECT 1 FROM accounts' }, { query: 'SELEC broken' }] };
    const first = await ingest(run);
    expect(first.status).toBe(201);
    // repo spelled differently: GitHub names are case-insensitive
    const again = await ingest({ ...run, repo: repo.toUpperCase(), queries: [{ query: 'SELECT 2 FROM other_table' }] });
    expect(again).toEqual({ ...first, status: 200 });
    const entries = await catalog();
    expect(entries.size).toBe(1);
    expect([...entries.values()][0]!.ciRunCount).toBe(1);
    expect((await caller().ci.count({ repo })).total).toBe(1);
  });

  it('catalogues a query under the hash it came with, and rejects an unparseable one without hash alone', async () => {
    const result = await ingest({
      repo,
      runId: 'h',
      queries: [
        { query: 'SELECT $1 FROM weird_dialect_thing!!', hash: 'c0ffee00c0ffee01', formattedQuery: 'SELECT $1 FROM weird' },
        { query: 'this is not sql' },
        { query: 'SELECT id FROM teams' },
        { query: 'not sql either', hash: 'C0FFEE00C0FFEE02' }, // fingerprints are compared in lowercase
      ],
    });
    expect(result.queryCount).toBe(3);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]!.index).toBe(1);
    expect(result.rejected[0]!.reason).toMatch(/syntax error/);
    const entries = await catalog();
    expect(entries.get('c0ffee00c0ffee01')!.formattedQuery).toBe('SELECT $1 FROM weird');
    // no formattedQuery and unparseable: shown as sent
    expect(entries.get('c0ffee00c0ffee02')!.formattedQuery).toBe('not sql either');

    const detail = await caller().ci.get({ id: result.id });
    expect(detail.rejected).toEqual(result.rejected);
    expect(detail.queries.map((q) => q.hash).sort()).toEqual([...entries.keys()].sort());
  });

  it('stores a run of an unlinked repository untagged and leaves every catalog alone; linking later rewrites nothing', async () => {
    const loose = `other-org/loose-${n}`;
    const result = await ingest({ repo: loose, runId: '1', queries: [{ query: 'SELECT * FROM invoices' }] });
    expect(result).toMatchObject({ environmentId: null, queryCount: 1, newQueryCount: 0 });
    expect((await catalog()).size).toBe(0);

    await caller().repos.link({ id: envId, repo: loose });
    expect((await catalog()).size).toBe(0);
    const [listed] = await caller().ci.list({ repo: loose, limit: 10, offset: 0 });
    expect(listed).toMatchObject({ id: result.id, environment: null, queryCount: 1 });

    const next = await ingest({ repo: loose, runId: '2', queries: [{ query: 'SELECT * FROM invoices' }] });
    expect(next).toMatchObject({ environmentId: envId, newQueryCount: 1 });
    const [newest] = await caller().ci.list({ repo: loose, limit: 1, offset: 0 });
    expect(newest!.environment).toEqual({ id: envId, name: `App ${n}`, slug: `app-${n}` });
  });

  it('keeps ciRunCount exact when 50 runs sharing queries arrive at once', async () => {
    const shared = Array.from({ length: 20 }, (_, i) => ({ query: `SELECT c${i} FROM shared_table_${i} WHERE id = 1` }));
    const runs = Array.from({ length: 50 }, (_, r) => ({
      repo,
      runId: `c-${r}`,
      // each run lists the shared queries in its own order, plus one of its own
      queries: [...shared.slice(r % 20), ...shared.slice(0, r % 20), { query: `SELECT own_${r} FROM t` }],
    }));
    const results = await Promise.all(runs.map((run) => ingest(run)));
    expect(new Set(results.map((r) => r.id)).size).toBe(50);
    const entries = await catalog();
    expect(entries.size).toBe(70);
    const sharedEntries = [...entries.values()].filter((e) => e.formattedQuery.includes('shared_table'));
    expect(sharedEntries).toHaveLength(20);
    for (const entry of sharedEntries) expect(entry.ciRunCount).toBe(50);
    // every shared query is new to exactly one run
    expect(results.reduce((sum, r) => sum + r.newQueryCount, 0)).toBe(70);
  });

  it('stores one run when the same run is posted many times at once', async () => {
    const run = { repo, runId: 'twin', queries: [{ query: 'SELECT * FROM twins' }] };
    const results = await Promise.all(Array.from({ length: 10 }, () => ingest(run)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect([...(await catalog()).values()][0]!.ciRunCount).toBe(1);
  });

  it('lists runs newest first with their environment, and reads one with its queries', async () => {
    const a = await ingest({ repo, runId: 'a', commitSha: 'abc1234', pullRequest: 12, queries: [{ query: 'SELECT 1 FROM a', calls: 5, meanTimeMs: 2 }] });
    const b = await ingest({ repo, runId: 'b', queries: [] });
    const runs = await caller().ci.list({ environmentId: envId, limit: 10, offset: 0 });
    expect(runs.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(runs[1]).toMatchObject({ repo, runId: 'a', commitSha: 'abc1234', pullRequest: 12, branch: null, queryCount: 1 });
    const detail = await caller().ci.get({ id: a.id });
    expect(detail.queries).toEqual([expect.objectContaining({ calls: 5, meanTimeMs: 2 })]);
    await expect(caller().ci.get({ id: 'run_missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps runs when their environment is deleted, untagged', async () => {
    const run = await ingest({ repo, runId: 'keep', queries: [{ query: 'SELECT 1 FROM kept' }] });
    await caller().env.delete({ id: envId });
    const detail = await caller().ci.get({ id: run.id });
    expect(detail.environment).toBeNull();
    expect(detail.queries).toHaveLength(1);
  });
});
