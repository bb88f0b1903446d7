// The catalog list as a client pages through it, on PGlite and on a real PostgreSQL server: most
// recently seen first, pages that join up, the total beside every page (past the end too), each
// source on its own, a text search, and every field as the single-query read answers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, stopTestPostgres } from '../../test/support/services';
import { appRouter } from '../routers/root';
import type { Services } from '../services-type';
import { createContext } from '../trpc';
import type { CatalogRow, CatalogSource } from './catalog-write';
import { upsertOnItsOwn } from './upsert';

afterAll(() => stopTestPostgres());

const row = (i: number): CatalogRow => ({
  hash: i.toString(16).padStart(16, '0'),
  query: `SELECT ${i} FROM items`,
  formattedQuery: `SELECT\n  ${i}\nFROM items`,
  calls: 1_000_000_000_000 + i, // beyond 32 bits: the figure must come back whole, as a number
  meanTimeMs: i / 4,
});

describe.each(BACKENDS)('the catalog list on %s', (backend) => {
  let services: Services;
  const caller = () => appRouter.createCaller(createContext(services));
  /** The list as REST answers it: the page, and the total its X-Total-Count header carries. */
  const list = async (input: { limit?: number; offset?: number; source?: CatalogSource; q?: string }) => {
    const ctx = createContext(services);
    const rows = await appRouter.createCaller(ctx).queries.list({ id: envId, limit: 1000, offset: 0, ...input });
    return { rows, total: Number(ctx.response.headers['X-Total-Count']) };
  };
  let envId: string;

  beforeAll(async () => {
    services = await openTestServices(backend);
    ({ id: envId } = await caller().env.create({ name: 'Listed', slug: 'listed' }));
    const { id: otherId } = await caller().env.create({ name: 'Other', slug: 'other' });
    const db = services.store.db;
    const write = (environmentId: string, source: CatalogSource, rows: CatalogRow[]) => upsertOnItsOwn(db, { environmentId, source, rows });
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k));
    await write(envId, 'ci', range(0, 60));
    await write(envId, 'production', range(60, 90));
    await write(envId, 'manual', range(90, 95));
    await write(otherId, 'ci', range(0, 40)); // the same hashes in another environment stay out
    // distinct times, microseconds included, and one tie broken by id
    await db.execute(sql`
      UPDATE catalog_queries SET last_seen_at = timestamptz '2026-01-01 00:00:00.123456+00' + (('x' || hash)::bit(64)::bigint % 37) * interval '1 hour'
      WHERE environment_id = ${envId}`);
    await db.execute(sql`
      INSERT INTO analysis_runs (id, environment_id, status, phase, connection_label, finished_at)
      VALUES ('an_listed', ${envId}, 'done', 'done', 'production', now())`);
    await db.execute(sql`
      INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, recommendations, recommendation_count, analyzed_at)
      VALUES (${envId}, ${row(3).hash}, 'an_listed', 1234.5, 'Seq Scan', '[]'::jsonb, 2, now())`);
  });
  afterAll(() => services.store.close());

  it('lists most recently seen first (ties by id), in pages that join up, with the total beside each', async () => {
    const all = await list({});
    expect(all.total).toBe(95);
    expect(all.rows).toHaveLength(95);
    const sorted = [...all.rows].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt) || b.id.localeCompare(a.id));
    expect(all.rows.map((r) => r.id)).toEqual(sorted.map((r) => r.id));

    const pages = [];
    for (let offset = 0; offset < 95; offset += 20) {
      const page = await list({ limit: 20, offset });
      expect(page.total).toBe(95);
      pages.push(...page.rows);
    }
    expect(pages.map((r) => r.id)).toEqual(all.rows.map((r) => r.id));

    expect(await list({ limit: 20, offset: 500 })).toEqual({ rows: [], total: 95 });
  });

  it('answers every field as the single-query read does, with the latest analysis beside it', async () => {
    const { rows } = await list({});
    for (const entry of rows.filter((_, i) => i % 7 === 0).concat(rows.find((r) => r.hash === row(3).hash)!)) {
      const one = await caller().queries.get({ id: envId, hash: entry.hash });
      expect(entry).toEqual({
        id: one.id,
        hash: one.hash,
        formattedQuery: one.formattedQuery,
        firstSeenAt: one.firstSeenAt,
        lastSeenAt: one.lastSeenAt,
        lastSeenSource: one.lastSeenSource,
        ciRunCount: one.ciRunCount,
        productionCalls: one.productionCalls,
        productionMeanTimeMs: one.productionMeanTimeMs,
        cost: entry.hash === row(3).hash ? 1234.5 : null,
        recommendationCount: entry.hash === row(3).hash ? 2 : null,
      });
    }
    const production = rows.find((r) => r.hash === row(61).hash)!;
    expect(production.productionCalls).toBe(1_000_000_000_061);
    expect(production.lastSeenAt).toMatch(/^2026-01-0[12]T\d\d:00:00\.123Z$/);
  });

  it("shows each query's latest analysis as query_analyses holds it, through updates and deletions", async () => {
    const db = services.store.db;
    const costOf = async (i: number) => {
      const entry = (await list({})).rows.find((r) => r.hash === row(i).hash)!;
      return [entry.cost, entry.recommendationCount];
    };
    await db.execute(sql`UPDATE query_analyses SET cost = 99, recommendation_count = 0 WHERE environment_id = ${envId}`);
    expect(await costOf(3)).toEqual([99, 0]);
    await db.execute(sql`
      INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, recommendations, recommendation_count, analyzed_at)
      VALUES (${envId}, ${row(4).hash}, 'an_listed', 7, 'Index Scan', '[]'::jsonb, 1, now())`);
    expect(await costOf(4)).toEqual([7, 1]);
    // an entry that arrives after its query was analyzed shows that analysis at once
    await db.execute(sql`
      INSERT INTO query_analyses (environment_id, hash, analysis_id, cost, plan_shape, recommendations, recommendation_count, analyzed_at)
      VALUES (${envId}, ${row(200).hash}, 'an_listed', 5, 'Index Scan', '[]'::jsonb, 0, now())`);
    await upsertOnItsOwn(db, { environmentId: envId, source: 'manual', rows: [row(200)] });
    expect(await costOf(200)).toEqual([5, 0]);
    await db.execute(sql`DELETE FROM catalog_queries WHERE environment_id = ${envId} AND hash = ${row(200).hash}`);
    // the analysis run goes, and its rows with it by cascade
    await db.execute(sql`DELETE FROM analysis_runs WHERE id = 'an_listed'`);
    expect(await costOf(3)).toEqual([null, null]);
    expect(await costOf(4)).toEqual([null, null]);
    expect((await list({})).rows.every((r) => r.cost === null && r.recommendationCount === null)).toBe(true);
  });

  it('lists one source at a time, and searches the text', async () => {
    for (const [source, size] of [
      ['ci', 60],
      ['production', 30],
      ['manual', 5],
    ] as const) {
      const page = await list({ source, limit: 10 });
      expect(page.total).toBe(size);
      expect(page.rows).toHaveLength(Math.min(10, size));
      expect(page.rows.every((r) => r.lastSeenSource === source)).toBe(true);
    }
    const found = await list({ q: 'select 93 from' });
    expect(found.total).toBe(1);
    expect(found.rows).toEqual((await list({})).rows.filter((r) => r.hash === row(93).hash));
  });

  it('answers 404 for an unknown environment, and an empty page for an empty one', async () => {
    await expect(caller().queries.list({ id: 'env_nope', limit: 10, offset: 0 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { id } = await caller().env.create({ name: 'Empty', slug: 'empty' });
    const ctx = createContext(services);
    expect(await appRouter.createCaller(ctx).queries.list({ id, limit: 10, offset: 0 })).toEqual([]);
    expect(ctx.response.headers['X-Total-Count']).toBe('0');
  });
});
