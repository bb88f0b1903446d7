// A query added to the catalog by hand (lastSeenSource manual).
import type { Db } from '../db/store';
import { badRequest } from '../errors';
import { requireEnvironment } from '../domain/environments';
import { prepareOne } from './prepare';
import type { CatalogRow } from './catalog-write';
import { upsertOnItsOwn } from './upsert';

/** Adds or refreshes one query; 400 naming `query` when it does not parse. Returns its hash and whether it was new. */
export async function addManualQuery(db: Db, environmentId: string, query: string, hash?: string): Promise<{ hash: string; created: boolean }> {
  let row: CatalogRow;
  try {
    row = await prepareOne(query, hash);
  } catch (error) {
    throw badRequest((error as Error).message, [{ path: 'query', message: (error as Error).message }]);
  }
  await requireEnvironment(db, environmentId);
  const newQueryCount = await upsertOnItsOwn(db, { environmentId, source: 'manual', rows: [row] });
  return { hash: row.hash, created: newQueryCount === 1 };
}
