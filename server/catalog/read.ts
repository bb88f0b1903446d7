// Reading an environment's catalog: the list (filtered by source or text, most recently seen
// first, with each query's cost from the latest analysis, which the catalog keeps a copy of) and one
// entry with its full text. A page is read in the order of catalog_queries_recent_idx (or its
// per-source twin), so it costs the rows it returns (plus those skipped by offset), not a sort of
// the whole catalog.
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { CatalogEntry, CatalogQuery, listQueriesInput } from '../../shared/environments';
import { catalogQueries } from '../db/schema';
import type { Db, Store } from '../db/store';
import { notFound } from '../errors';
import { notFoundInEnvironment, requireEnvironment } from '../domain/environments';
import type { Page } from '../domain/paging';
import { catalogSize, foldIfPiledUp } from './counts';

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

// The page and its total in one statement, straight from the driver and already in the API's shape
// (timestamps as ISO 8601 text, bigint as a number): the list is the API's most frequent read, and
// a second round trip or a second mapping of every row would cost more than the statement itself.
// Each variant has a fixed text, so PostgreSQL keeps it prepared on each pooled connection. The
// total comes first and the page is joined to it, so a page past the end still answers its total.
const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const pageStatement = (bySource: boolean) => ({
  name: bySource ? 'catalog-list-by-source' : 'catalog-list',
  text: `
    SELECT t.total, t.parts, p.id, p.hash, p."formattedQuery", p."firstSeenAt", p."lastSeenAt", p."lastSeenSource",
           p."ciRunCount", p."productionCalls", p."productionMeanTimeMs", p.cost, p."recommendationCount"
    FROM (SELECT coalesce(sum(n), 0)::int AS total, count(*)::int AS parts
          FROM catalog_counts
          WHERE environment_id = $1 ${bySource ? 'AND source = $4' : ''}) t
    LEFT JOIN LATERAL (
      SELECT c.id, c.hash, c.formatted_query AS "formattedQuery",
             ${isoText('c.first_seen_at')} AS "firstSeenAt", ${isoText('c.last_seen_at')} AS "lastSeenAt",
             c.last_seen_source AS "lastSeenSource", c.ci_run_count AS "ciRunCount",
             c.production_calls::float8 AS "productionCalls", c.production_mean_time_ms AS "productionMeanTimeMs",
             c.cost, c.recommendation_count AS "recommendationCount", c.last_seen_at AS seen
      FROM catalog_queries c
      WHERE c.environment_id = $1 ${bySource ? 'AND c.last_seen_source = $4' : ''}
      ORDER BY c.last_seen_at DESC, c.id DESC
      LIMIT $2 OFFSET $3
    ) p ON true
    ORDER BY p.seen DESC, p.id DESC`,
});
const PAGE = pageStatement(false);
const PAGE_BY_SOURCE = pageStatement(true);

/** The statement a page of the list sends without a text search (exported for bench:read's floor). */
export function pageQuery(input: Pick<ListInput, 'id' | 'source' | 'limit' | 'offset'>) {
  const values: unknown[] = [input.id, input.limit, input.offset];
  if (input.source) values.push(input.source);
  return { ...(input.source ? PAGE_BY_SOURCE : PAGE), values };
}

type PageRow = { [K in keyof CatalogListEntry]: CatalogListEntry[K] | null } & { total: number; parts: number };

export async function listQueries(store: Store, input: ListInput): Promise<Page<CatalogListEntry>> {
  if (input.q?.trim()) return searchQueries(store.db, input);
  const result = await store.read<PageRow>(pageQuery(input));
  const { total, parts } = result[0]!;
  await foldIfPiledUp(store.db, input.id, parts);
  // no row of the catalog: the environment may not exist (404); a page with rows proves it does
  if (result[0]!.id === null) {
    await requireEnvironment(store.db, input.id);
    return { rows: [], total };
  }
  // every row also carries total and parts: the list's output schema passes on the entry's fields only
  return { rows: result as unknown as CatalogListEntry[], total };
}

/** A text search reads every entry's text anyway: the page and a count of its matches. */
async function searchQueries(db: Db, input: ListInput): Promise<Page<CatalogListEntry>> {
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
        cost: catalogQueries.cost,
        recommendationCount: catalogQueries.recommendationCount,
      })
      .from(catalogQueries)
      .where(catalogFilters(input))
      .orderBy(desc(catalogQueries.lastSeenAt), desc(catalogQueries.id))
      .limit(input.limit)
      .offset(input.offset),
    countMatching(db, input),
  ]);
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
