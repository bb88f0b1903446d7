// Reading an environment's catalog: the list (filtered by source or text, most recently seen
// first, with each query's cost from the latest analysis) and one entry with its full text. A page
// is read in the order of catalog_queries_recent_idx (or its per-source twin), so it costs the
// rows it returns (plus those skipped by offset), not a sort of the whole catalog.
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { CatalogEntry, CatalogQuery, listQueriesInput } from '../../shared/environments';
import { catalogQueries, queryAnalyses } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { notFoundInEnvironment, requireEnvironment } from '../domain/environments';
import type { Page } from '../domain/paging';
import { catalogSize } from './counts';

/** What production sync records beside the catalog's own fields. */
interface ProductionFigures {
  productionCalls: number | null;
  productionMeanTimeMs: number | null;
}

type CatalogListEntry = CatalogEntry & ProductionFigures & { cost: number | null; recommendationCount: number | null };
type CatalogDetail = CatalogQuery & ProductionFigures;

type ListInput = z.infer<typeof listQueriesInput>;
type CatalogFilters = Pick<ListInput, 'id' | 'source' | 'q'>;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Text search matches the formatted text, the text as last seen, or the exact hash. */
function catalogFilters(input: CatalogFilters): SQL {
  const filters: SQL[] = [eq(catalogQueries.environmentId, input.id)];
  if (input.source) filters.push(eq(catalogQueries.lastSeenSource, input.source));
  const q = input.q?.trim();
  if (q) {
    const pattern = `%${escapeLike(q)}%`;
    filters.push(or(ilike(catalogQueries.formattedQuery, pattern), ilike(catalogQueries.query, pattern), eq(catalogQueries.hash, q))!);
  }
  return and(...filters)!;
}

/**
 * The list's total: a text search counts its matches (it reads every entry's text anyway); without
 * one, the count is read from catalog_counts (counts.ts), so a page costs the same in any catalog.
 */
async function countMatching(db: Db, input: CatalogFilters): Promise<number> {
  if (!input.q?.trim()) return catalogSize(db, input.id, input.source);
  const [count] = await db.select({ total: sql<number>`count(*)::int` }).from(catalogQueries).where(catalogFilters(input));
  return count?.total ?? 0;
}

/** How many entries match, whatever the page; 404 for an unknown environment. */
export async function countQueries(db: Db, input: CatalogFilters): Promise<number> {
  await requireEnvironment(db, input.id);
  return countMatching(db, input);
}

export async function listQueries(db: Db, input: ListInput): Promise<Page<CatalogListEntry>> {
  const [rows, total] = await Promise.all([
    db
      .select({
        id: catalogQueries.id,
        hash: catalogQueries.hash,
        formattedQuery: catalogQueries.formattedQuery,
        firstSeenAt: catalogQueries.firstSeenAt,
        lastSeenAt: catalogQueries.lastSeenAt,
        lastSeenSource: catalogQueries.lastSeenSource,
        ciRunCount: catalogQueries.ciRunCount,
        productionCalls: catalogQueries.productionCalls,
        productionMeanTimeMs: catalogQueries.productionMeanTimeMs,
        cost: queryAnalyses.cost,
        recommendationCount: queryAnalyses.recommendationCount,
      })
      .from(catalogQueries)
      .leftJoin(queryAnalyses, and(eq(queryAnalyses.environmentId, catalogQueries.environmentId), eq(queryAnalyses.hash, catalogQueries.hash)))
      .where(catalogFilters(input))
      .orderBy(desc(catalogQueries.lastSeenAt), desc(catalogQueries.id))
      .limit(input.limit)
      .offset(input.offset),
    countMatching(db, input),
  ]);
  // An empty page may be an unknown environment (404); a page with rows proves it exists, so the
  // common case costs no extra round trip.
  if (rows.length === 0) await requireEnvironment(db, input.id);
  return { rows: rows.map((r) => ({ ...r, firstSeenAt: r.firstSeenAt.toISOString(), lastSeenAt: r.lastSeenAt.toISOString() })), total };
}

export async function readQuery(db: Db, environmentId: string, hash: string): Promise<CatalogDetail> {
  const [row] = await db
    .select()
    .from(catalogQueries)
    .where(and(eq(catalogQueries.environmentId, environmentId), eq(catalogQueries.hash, hash)));
  if (!row) return notFoundInEnvironment(db, environmentId, notFound(`Query ${hash}`));
  return {
    id: row.id,
    hash: row.hash,
    query: row.query,
    formattedQuery: row.formattedQuery,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    lastSeenSource: row.lastSeenSource,
    ciRunCount: row.ciRunCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    productionCalls: row.productionCalls,
    productionMeanTimeMs: row.productionMeanTimeMs,
  };
}
