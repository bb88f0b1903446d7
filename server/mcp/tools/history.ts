// Production history: top_queries (the heaviest queries of a window) and regressed_queries (those
// whose mean time rose against the window before). The store ranks at most MAX_RANKED of either;
// a page is cut from the first offset + page rows of that ranking.
import { z } from 'zod';
import { HISTORY_RANGES, regressedQuery, TOP_ORDERS, topQuery, type HistoryRange } from '../../../shared/history';
import { environmentInput, pageSizeInput, READ_ONLY, type Registration } from '../caller';
import { cursorAt, cursorInput, offsetOf, pageFields } from '../paging';
import { answer } from '../results';

const PAGE = 20;
const MAX_PAGE = 50;
/** The most the history procedures rank in one read. */
const MAX_RANKED = 500;

const windowInput = z
  .enum(Object.keys(HISTORY_RANGES) as [HistoryRange, ...HistoryRange[]])
  .optional()
  .describe('How far back from now: 1h, 24h (default), 7d or 90d');

const windowOf = (window: HistoryRange = '24h') => {
  const to = new Date();
  return { from: new Date(to.getTime() - HISTORY_RANGES[window]).toISOString(), to: to.toISOString() };
};

/** The page at `offset` of a ranking read as its first `offset + size + 1` rows (bounded): the extra row says whether there is more. */
async function rankedPage<T>(cursor: string | undefined, size: number, read: (limit: number) => Promise<T[]>) {
  const offset = offsetOf(cursor);
  const limit = Math.min(MAX_RANKED, offset + size + 1);
  const rows = offset < MAX_RANKED ? await read(limit) : [];
  const items = rows.slice(offset, offset + size);
  const more = rows.length > offset + size;
  return { items, nextCursor: more ? cursorAt(offset + size) : null };
}

const rankedFields = {
  nextCursor: pageFields.nextCursor,
  window: z.object({ from: z.string(), to: z.string() }),
};

export const historyTools: Registration = (server, caller) => {
  server.registerTool(
    'top_queries',
    {
      title: 'Heaviest production queries',
      description: `The environment's heaviest production queries in a window, by total time (default), calls or mean time, ${PAGE} per page, at most ${MAX_RANKED} in all.`,
      inputSchema: {
        environment: environmentInput,
        window: windowInput,
        by: z.enum(TOP_ORDERS).optional(),
        limit: pageSizeInput(MAX_PAGE, PAGE),
        cursor: cursorInput,
      },
      outputSchema: { queries: z.array(topQuery), ...rankedFields },
      annotations: READ_ONLY,
    },
    ({ environment, window, by, limit, cursor }) =>
      answer('top_queries', async () => {
        const span = windowOf(window);
        const page = await rankedPage(cursor, limit ?? PAGE, (n) => caller.history.top({ id: environment, ...span, by: by ?? 'totalTime', limit: n }));
        return { queries: page.items, nextCursor: page.nextCursor, window: span };
      }),
  );

  server.registerTool(
    'regressed_queries',
    {
      title: 'Regressed production queries',
      description:
        'Production queries whose mean time in the window rose by more than `threshold` percent (default 50) against the previous window of the same length, ' +
        `the largest rise first, ${PAGE} per page, at most ${MAX_RANKED} in all.`,
      inputSchema: {
        environment: environmentInput,
        window: windowInput,
        threshold: z.number().min(1).max(100_000).optional().describe('Percent the mean time must have risen by (default 50)'),
        limit: pageSizeInput(MAX_PAGE, PAGE),
        cursor: cursorInput,
      },
      outputSchema: { queries: z.array(regressedQuery), ...rankedFields },
      annotations: READ_ONLY,
    },
    ({ environment, window, threshold, limit, cursor }) =>
      answer('regressed_queries', async () => {
        const span = windowOf(window);
        const page = await rankedPage(cursor, limit ?? PAGE, (n) =>
          caller.history.regressed({ id: environment, ...span, threshold: threshold ?? 50, limit: n }),
        );
        return { queries: page.items, nextCursor: page.nextCursor, window: span };
      }),
  );
};
