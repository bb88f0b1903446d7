// Reading an environment's catalog: the list (filtered by source or text, most recently seen
// first, with each query's cost from the latest analysis, which the catalog keeps a copy of) and one
// entry with its full text. A page is read in the order of catalog_queries_recent_idx (or its
// per-source twin), so it costs the rows it returns (plus those skipped by offset), not a sort of
// the whole catalog.
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { CallSite } from '../../shared/call-sites';
import type { CatalogEntry, CatalogQuery, listQueriesInput } from '../../shared/environments';
import { isoFromUtcText } from '../../shared/dates';
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
type CatalogDetail = CatalogQuery & ProductionFigures & { callSites: CallSite[] };

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
  const [count] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(catalogQueries)
    .where(catalogFilters(input));
  return count?.total ?? 0;
}

/** How many entries match, whatever the page; 404 for an unknown environment. */
export async function countQueries(db: Db, input: CatalogFilters): Promise<number> {
  await requireEnvironment(db, input.id);
  return countMatching(db, input);
}

// The page and its total in one statement, straight from the driver and nearly in the API's shape
// (bigint as a number; timestamps as UTC text, which isoFromUtcText finishes): the list is the
// API's most frequent read, and a second round trip or a second mapping of every row would cost
// more than the statement itself. The page comes back as one JSON array: decoding one value costs
// either driver far less than decoding a hundred rows field by field, and on PGlite (PostgreSQL in
// this process) that decoding is the server's own thread. Only the page's rows are turned into
// JSON, after LIMIT and OFFSET, each as a row of named columns (json_build_object costs a third
// more, to_char on the timestamps a sixth). Each variant has a fixed text, so PostgreSQL keeps it
// prepared on each pooled connection. The total is read first and the page joined to it, so a page
// past the end still answers its total.
const pageStatement = (bySource: boolean) => ({
  name: bySource ? 'catalog-list-by-source' : 'catalog-list',
  text: `
    SELECT t.total, t.parts, coalesce(p.rows, '[]') AS rows
    FROM (SELECT coalesce(sum(n), 0)::int AS total, count(*)::int AS parts
          FROM catalog_counts
          WHERE environment_id = $1 ${bySource ? 'AND source = $4' : ''}) t,
    LATERAL (
      SELECT json_agg(e ORDER BY e."lastSeenAt" DESC, e.id DESC) AS rows
      FROM (SELECT c.id, c.hash, c.formatted_query AS "formattedQuery",
                   c.first_seen_at AT TIME ZONE 'UTC' AS "firstSeenAt", c.last_seen_at AT TIME ZONE 'UTC' AS "lastSeenAt",
                   c.last_seen_source AS "lastSeenSource", c.ci_run_count AS "ciRunCount",
                   c.production_calls AS "productionCalls", c.production_mean_time_ms AS "productionMeanTimeMs",
                   c.cost, c.recommendation_count AS "recommendationCount"
            FROM (SELECT * FROM catalog_queries c
                  WHERE c.environment_id = $1 ${bySource ? 'AND c.last_seen_source = $4' : ''}
                  ORDER BY c.last_seen_at DESC, c.id DESC
                  LIMIT $2 OFFSET $3) c) e
    ) p`,
});
const PAGE = pageStatement(false);
const PAGE_BY_SOURCE = pageStatement(true);

/** The statement a page of the list sends without a text search (exported for bench:read's floor). */
export function pageQuery(input: Pick<ListInput, 'id' | 'source' | 'limit' | 'offset'>) {
  const values: unknown[] = [input.id, input.limit, input.offset];
  if (input.source) values.push(input.source);
  return { ...(input.source ? PAGE_BY_SOURCE : PAGE), values };
}

interface PageRow {
  total: number;
  parts: number;
  /** Both drivers decode json columns. */
  rows: CatalogListEntry[];
}

export async function listQueries(store: Store, input: ListInput): Promise<Page<CatalogListEntry>> {
  if (input.q?.trim()) return searchQueries(store.db, input);
  const [{ total, parts, rows }] = (await store.read<PageRow>(pageQuery(input))) as [PageRow];
  await foldIfPiledUp(store.db, input.id, parts);
  // no row of the catalog: the environment may not exist (404); a page with rows proves it does
  if (rows.length === 0) await requireEnvironment(store.db, input.id);
  for (const row of rows) {
    row.firstSeenAt = isoFromUtcText(row.firstSeenAt);
    row.lastSeenAt = isoFromUtcText(row.lastSeenAt);
  }
  return { rows, total };
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
    callSites: row.callSites,
  };
}
