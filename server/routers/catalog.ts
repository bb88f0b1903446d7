// Reading an environment's query catalog. Ingestion (server/catalog/) fills it.
import type { TRPCRouterRecord } from '@trpc/server';
import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { catalogEntry, catalogQuery, getQueryInput, listQueriesInput } from '../../shared/environments';
import { catalogQueries } from '../db/schema';
import { notFound } from '../errors';
import { publicProcedure } from '../trpc';
import { requireEnvironment } from './environments';

const TAG = ['Query catalog'];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export const catalogRouter = {
  list: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/queries',
        tags: TAG,
        summary: 'List catalog queries, most recently seen first',
        description: 'The total number of matching queries is in the X-Total-Count header.',
      },
    })
    .input(listQueriesInput)
    .output(z.array(catalogEntry))
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      await requireEnvironment(db, input.id);
      const filters: SQL[] = [eq(catalogQueries.environmentId, input.id)];
      if (input.source) filters.push(eq(catalogQueries.lastSeenSource, input.source));
      if (input.q?.trim()) {
        const pattern = `%${escapeLike(input.q.trim())}%`;
        filters.push(or(ilike(catalogQueries.formattedQuery, pattern), ilike(catalogQueries.query, pattern), eq(catalogQueries.hash, input.q.trim()))!);
      }
      const where = and(...filters);
      const [rows, [count]] = await Promise.all([
        db
          .select({
            id: catalogQueries.id,
            hash: catalogQueries.hash,
            formattedQuery: catalogQueries.formattedQuery,
            firstSeenAt: catalogQueries.firstSeenAt,
            lastSeenAt: catalogQueries.lastSeenAt,
            lastSeenSource: catalogQueries.lastSeenSource,
            ciRunCount: catalogQueries.ciRunCount,
          })
          .from(catalogQueries)
          .where(where)
          .orderBy(desc(catalogQueries.lastSeenAt), desc(catalogQueries.id))
          .limit(input.limit)
          .offset(input.offset),
        db.select({ total: sql<number>`count(*)::int` }).from(catalogQueries).where(where),
      ]);
      ctx.response.headers['X-Total-Count'] = String(count?.total ?? 0);
      return rows.map((r) => ({ ...r, firstSeenAt: r.firstSeenAt.toISOString(), lastSeenAt: r.lastSeenAt.toISOString() }));
    }),

  get: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/queries/{hash}', tags: TAG, summary: 'Read one catalog query by its fingerprint hash' } })
    .input(getQueryInput)
    .output(catalogQuery)
    .query(async ({ ctx, input }) => {
      const { db } = ctx.store;
      const [row] = await db
        .select()
        .from(catalogQueries)
        .where(and(eq(catalogQueries.environmentId, input.id), eq(catalogQueries.hash, input.hash)));
      if (!row) {
        await requireEnvironment(db, input.id);
        throw notFound(`Query ${input.hash}`);
      }
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
      };
    }),
} satisfies TRPCRouterRecord;
