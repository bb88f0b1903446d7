// The catalog: search_queries (a page of entries by text, fingerprint or source) and get_query
// (one entry whole: its text, latest production plan and cost, recommendations, call sites and
// the last week of production history summed up).
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { queryAnalysisSchema, type QueryAnalysis } from '../../../shared/analysis';
import { catalogDetail, catalogListEntry } from '../../../shared/catalog';
import { hashSchema, sourceSchema } from '../../../shared/environments';
import { HISTORY_RANGES, type HistoryPoint } from '../../../shared/history';
import { sqlText } from '../../../shared/validation';
import { environmentInput, pageSizeInput, READ_ONLY, type Caller, type Registration } from '../caller';
import { clip, cursorInput, offsetOf, pageFields, pageFromStore } from '../paging';
import { answer } from '../results';

const PAGE = 20;
const MAX_PAGE = 50;
/** A list shows this much of each text; get_query has the whole. */
const LIST_TEXT = 2000;
const CALL_SITES = 20;

const fingerprintInput = hashSchema.describe('A query fingerprint: the 16 hexadecimal digits of an entry’s `hash`');

const historySummary = z.object({
  window: z.literal('7d'),
  points: z.number().int().describe('Snapshots with work in the window'),
  calls: z.number(),
  totalTimeMs: z.number(),
  meanTimeMs: z.number().nullable(),
  firstAt: z.string().nullable(),
  lastAt: z.string().nullable(),
});

export const catalogTools: Registration = (server, caller) => {
  server.registerTool(
    'search_queries',
    {
      title: 'Search the query catalog',
      description:
        `Catalog entries of an environment, most recently seen first, ${PAGE} per page: by a text the query contains, by its fingerprint, or all; ` +
        `optionally only those last seen from one source (ci, production, manual). Each text is cut to ${LIST_TEXT} characters (truncated: true); get_query has the whole.`,
      inputSchema: {
        environment: environmentInput,
        text: sqlText('Search text', 1000).optional().describe('Text the query contains (case-insensitive)'),
        fingerprint: fingerprintInput.optional(),
        source: sourceSchema.optional(),
        limit: pageSizeInput(MAX_PAGE, PAGE),
        cursor: cursorInput,
      },
      outputSchema: { queries: z.array(catalogListEntry.extend({ truncated: z.boolean() })), ...pageFields },
      annotations: READ_ONLY,
    },
    (input) =>
      answer('search_queries', async () => {
        const offset = offsetOf(input.cursor);
        const limit = input.limit ?? PAGE;
        if (input.fingerprint !== undefined) {
          const entry = await caller.queries.get({ id: input.environment, hash: input.fingerprint });
          const analysis = await orNullWhenMissing(caller.analysis.query({ id: input.environment, hash: input.fingerprint }));
          const found = input.source === undefined || entry.lastSeenSource === input.source ? [listEntryOf(entry, analysis)] : [];
          return { queries: found.slice(offset, offset + limit), total: found.length, nextCursor: null };
        }
        const filter = { id: input.environment, q: input.text, source: input.source };
        const [rows, { total }] = await Promise.all([caller.queries.list({ ...filter, limit, offset }), caller.queries.count(filter)]);
        const page = pageFromStore(rows, offset, total);
        return { queries: page.items.map(clipped), total: page.total, nextCursor: page.nextCursor };
      }),
  );

  server.registerTool(
    'get_query',
    {
      title: 'Read one catalog query',
      description:
        "One catalog entry by its fingerprint: the query's text, its latest production cost and plan with the recommended indexes (null before an analysis), " +
        `where the application issues it (up to ${CALL_SITES} call sites) and its production work over the last 7 days.`,
      inputSchema: { environment: environmentInput, hash: fingerprintInput },
      outputSchema: {
        query: catalogDetail,
        callSiteCount: z.number().int(),
        analysis: queryAnalysisSchema.nullable().describe('The latest analysis of the query against production; null when none has planned it yet'),
        history: historySummary,
      },
      annotations: READ_ONLY,
    },
    ({ environment, hash }) =>
      answer('get_query', async () => {
        const entry = await caller.queries.get({ id: environment, hash });
        const [analysis, history] = await Promise.all([
          orNullWhenMissing(caller.analysis.query({ id: environment, hash })),
          caller.history.query({ id: environment, hash, from: new Date(Date.now() - HISTORY_RANGES['7d']).toISOString() }),
        ]);
        return {
          query: { ...entry, callSites: entry.callSites.slice(0, CALL_SITES) },
          callSiteCount: entry.callSites.length,
          analysis,
          history: summaryOf(history),
        };
      }),
  );
};

type ListEntry = Awaited<ReturnType<Caller['queries']['list']>>[number];
type Detail = Awaited<ReturnType<Caller['queries']['get']>>;

function clipped(entry: ListEntry): ListEntry & { truncated: boolean } {
  const { text, truncated } = clip(entry.formattedQuery, LIST_TEXT);
  return { ...entry, formattedQuery: text, truncated };
}

/** The single read as a list entry, with its latest analysis' cost as the list has it. */
function listEntryOf({ query: _query, createdAt: _created, updatedAt: _updated, callSites: _callSites, ...entry }: Detail, analysis: QueryAnalysis | null) {
  return clipped({ ...entry, cost: analysis?.cost ?? null, recommendationCount: analysis ? analysis.recommendations.length : null });
}

async function orNullWhenMissing<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TRPCError && error.code === 'NOT_FOUND' && /^Analysis of query/.test(error.message)) return null;
    throw error;
  }
}

function summaryOf(points: HistoryPoint[]): z.infer<typeof historySummary> {
  const calls = points.reduce((sum, p) => sum + p.calls, 0);
  const totalTimeMs = points.reduce((sum, p) => sum + p.totalTimeMs, 0);
  return {
    window: '7d',
    points: points.length,
    calls,
    totalTimeMs,
    meanTimeMs: calls > 0 ? totalTimeMs / calls : null,
    firstAt: points[0]?.at ?? null,
    lastAt: points.at(-1)?.at ?? null,
  };
}
