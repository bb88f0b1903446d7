// The list's total, kept by triggers instead of counted: it must equal a count of the catalog after
// every kind of write (new rows, a source changing, deletions, many small writes folded).
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, stopTestPostgres } from '../../test/support/services';
import type { Db } from '../db/store';
import { catalogSize } from './counts';
import { rowsOf } from './sql';
import type { CatalogRow, CatalogSource } from './catalog-write';
import { upsertOnItsOwn } from './upsert';

afterAll(() => stopTestPostgres());

const row = (i: number): CatalogRow => ({
  hash: i.toString(16).padStart(16, '0'),
  query: `SELECT ${i}`,
  formattedQuery: `SELECT ${i}`,
  calls: 1,
  meanTimeMs: 1,
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k));

async function counted(db: Db, environmentId: string, source?: string): Promise<number> {
  const [r] = await rowsOf<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM catalog_queries WHERE environment_id = ${environmentId} ${source ? sql`AND last_seen_source = ${source}` : sql``}`,
  );
  return r!.n;
}

describe.each(BACKENDS)('catalog counts on %s', (backend) => {
  it('equal a count of the catalog, per source and in all, after inserts, source changes, deletions and folds', async () => {
    const { store } = await openTestServices(backend);
    const db = store.db;
    for (const id of ['env_a', 'env_b']) await db.execute(sql`INSERT INTO environments (id, name, slug) VALUES (${id}, ${id}, ${id})`);
    const write = (environmentId: string, source: CatalogSource, rows: CatalogRow[]) => upsertOnItsOwn(db, { environmentId, source, rows });

    await write('env_a', 'ci', range(0, 100));
    await write('env_b', 'ci', range(0, 30));
    await write('env_a', 'production', range(50, 150)); // 50 move from ci to production, 50 new
    await write('env_a', 'manual', range(140, 141));
    // many small writes: more change rows than the fold threshold
    for (let i = 0; i < 80; i++) await write('env_a', i % 2 ? 'ci' : 'production', range(200 + i, 201 + i).concat(range(i, i + 1)));
    await db.execute(sql`DELETE FROM catalog_queries WHERE environment_id = 'env_a' AND hash < ${row(10).hash}`);

    for (const source of [undefined, 'ci', 'production', 'manual']) {
      expect(await catalogSize(db, 'env_a', source)).toBe(await counted(db, 'env_a', source));
    }
    const [changes] = await rowsOf<{ rows: number }>(db, sql`SELECT count(*)::int AS rows FROM catalog_counts WHERE environment_id = 'env_a'`);
    expect(changes!.rows).toBeLessThanOrEqual(3); // the first read folded them: one per source
    expect(await catalogSize(db, 'env_b')).toBe(30);

    await db.execute(sql`DELETE FROM environments WHERE id = 'env_a'`);
    expect(await rowsOf(db, sql`SELECT * FROM catalog_counts WHERE environment_id = 'env_a'`)).toEqual([]);
    expect(await catalogSize(db, 'env_b')).toBe(30);
    await store.close();
  }, 60_000);
});
