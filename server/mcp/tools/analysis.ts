// What production's statistics say: explain_query (one statement planned now in the shadow),
// recommend_indexes (the latest analysis' ranked indexes, optionally cut to a budget) and
// index_health (production's unused, duplicate, redundant and invalid indexes).
import { z } from 'zod';
import {
  analysisStatusSchema,
  explainedQuerySchema,
  explainQueryInput,
  indexRecommendationSchema,
  workloadBudgetSchema,
  type IndexRecommendation,
  type WorkloadBudget,
} from '../../../shared/analysis';
import { indexHealthEntrySchema } from '../../../shared/index-health';
import { environmentInput, pageSizeInput, READ_ONLY, type Registration } from '../caller';
import { cursorInput, offsetOf, pageFields, pageOf } from '../paging';
import { answer } from '../results';

const PAGE = 10;
const MAX_PAGE = 50;

/** The latest analysis without its ranked indexes (paged beside it) and its progress counters. */
const analysisSummary = analysisStatusSchema
  .pick({ id: true, status: true, phase: true, queryCount: true, connectionLabel: true, startedAt: true, finishedAt: true, error: true, warnings: true })
  .extend({ hiddenIndexes: z.array(z.string()).describe('Non-empty for a what-if analysis: its indexes are ranked as if these were dropped') });

export const analysisTools: Registration = (server, caller) => {
  server.registerTool(
    'explain_query',
    {
      title: 'Plan a query against production',
      description:
        "Plans one statement with production's schema and planner statistics in querytrail's scratch shadow PostgreSQL (never on the production database, " +
        'and the statement is never executed): its plan, estimated cost and the indexes that would lower it. ' +
        'Exactly one SELECT, INSERT, UPDATE, DELETE or MERGE statement; anything else, or several statements, is refused.',
      inputSchema: { environment: environmentInput, sql: explainQueryInput.shape.sql },
      outputSchema: explainedQuerySchema.shape,
      annotations: READ_ONLY,
    },
    ({ environment, sql }) => answer('explain_query', () => caller.analysis.explain({ id: environment, sql })),
  );

  server.registerTool(
    'recommend_indexes',
    {
      title: 'Recommended indexes',
      description:
        "The indexes the environment's latest analysis recommends for its whole catalog, the most total time saved first, " +
        `${PAGE} per page. With a budget, only the ranked indexes that fit it (at most maxIndexes, estimated sizes within maxBytes). ` +
        'An analysis is started by an editor in querytrail (Analyze); this tool only reads the latest one.',
      inputSchema: { environment: environmentInput, budget: workloadBudgetSchema.optional(), limit: pageSizeInput(MAX_PAGE, PAGE), cursor: cursorInput },
      outputSchema: { analysis: analysisSummary, indexes: z.array(indexRecommendationSchema), ...pageFields },
      annotations: READ_ONLY,
    },
    ({ environment, budget, limit, cursor }) =>
      answer('recommend_indexes', async () => {
        const offset = offsetOf(cursor);
        const latest = await caller.analysis.latest({ id: environment });
        const { indexes, hiddenIndexes, hiddenEffect: _effect, environmentId: _env, done: _done, total: _total, ...summary } = latest;
        const page = pageOf(withinBudget(indexes, budget), offset, limit ?? PAGE);
        return { analysis: { ...summary, hiddenIndexes: hiddenIndexes ?? [] }, indexes: page.items, total: page.total, nextCursor: page.nextCursor };
      }),
  );

  server.registerTool(
    'index_health',
    {
      title: 'Index health',
      description:
        "Production's indexes that cost writes and space without serving reads (unused, duplicate, redundant, invalid), as the latest analysis read them, " +
        `with what dropping each would do to the catalog's plans; ${PAGE} per page.`,
      inputSchema: { environment: environmentInput, limit: pageSizeInput(MAX_PAGE, PAGE), cursor: cursorInput },
      outputSchema: {
        analysisId: z.string(),
        analyzedAt: z.string(),
        statsReset: z.string().nullable(),
        readAt: z.string(),
        indexes: z.array(indexHealthEntrySchema),
        ...pageFields,
      },
      annotations: READ_ONLY,
    },
    ({ environment, limit, cursor }) =>
      answer('index_health', async () => {
        const { analysisId, analyzedAt, health } = await caller.analysis.indexHealth({ id: environment });
        const page = pageOf(health.indexes, offsetOf(cursor), limit ?? PAGE);
        return {
          analysisId,
          analyzedAt,
          statsReset: health.statsReset,
          readAt: health.readAt,
          indexes: page.items,
          total: page.total,
          nextCursor: page.nextCursor,
        };
      }),
  );
};

/** The ranked indexes that fit the budget, in rank order: one that does not fit is passed over for the next. */
function withinBudget(ranked: IndexRecommendation[], budget: WorkloadBudget | undefined): IndexRecommendation[] {
  if (!budget) return ranked;
  const chosen: IndexRecommendation[] = [];
  let bytes = 0;
  for (const index of ranked) {
    if (budget.maxIndexes !== undefined && chosen.length >= budget.maxIndexes) break;
    const size = index.estimatedBytes ?? 0;
    if (budget.maxBytes !== undefined && bytes + size > budget.maxBytes) continue;
    chosen.push(index);
    bytes += size;
  }
  return chosen;
}
