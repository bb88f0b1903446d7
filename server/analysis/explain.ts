// One statement planned on request against production's statistics: the same path as a CI run's
// verdict (the environment's current snapshot, read only as far as the statement needs, then the
// plan cache and a warm shadow server), for a text that is in no catalog yet. The statement
// is checked before anything is read: exactly one statement that EXPLAIN plans without running,
// as the analyzer's POST /postgres/analyze checks each of its queries. Nothing runs against the
// user's database but the read-only snapshot read; the plan is made in the shadow.
import { TRPCError } from '@trpc/server';
import { queryRefs, refusalReason, subsetSnapshot } from '../../advisor/index';
import { messageOf, redactConnectionString } from '../../gateway/index';
import type { ExplainedQuery } from '../../shared/analysis';
import { fingerprintOf, formatQuery, loadParser } from '../../shared/sql-fingerprint';
import { requireProductionConnections } from '../domain/connections';
import { badRequest, upstream } from '../errors';
import type { Services } from '../services-type';
import { planCached } from '../verdict/cache';
import { warmShadows } from '../verdict/shadows';
import { currentSnapshot } from '../verdict/snapshots';

export async function explainQuery(services: Services, environmentId: string, sql: string): Promise<ExplainedQuery> {
  await loadParser();
  const refused = refusalReason(sql);
  if (refused) throw badRequest(`Query ${refused}`, [{ path: 'sql', message: refused }]);
  const hash = fingerprintOf(sql);
  const [production] = await requireProductionConnections(
    services.store.db,
    services.secrets,
    environmentId,
    'so a query can be planned against its statistics',
  );
  const refs = queryRefs([sql]);
  try {
    const snapshot = await currentSnapshot(services, environmentId, { maxAgeMs: services.config.snapshotMaxAgeSeconds * 1000, scope: refs });
    const { plans, warnings } = await planCached(services.store.db, {
      environmentId,
      snapshotId: snapshot.id,
      snapshot: subsetSnapshot(snapshot.snapshot, refs),
      digest: '',
      queries: [{ hash, query: sql }],
      shadows: warmShadows(services.config),
      withPlans: true,
    });
    const planned = plans.get(hash);
    const { alternatives: _alternatives, plannedAt: _plannedAt, ...plan } = planned ?? { ...NOT_PLANNED, hash, alternatives: [], plannedAt: undefined };
    return { ...plan, formattedQuery: await formatQuery(sql), snapshotAt: snapshot.readAt.toISOString(), warnings };
  } catch (error) {
    if (error instanceof TRPCError) throw error;
    throw upstream(`The query could not be planned against production: ${redactConnectionString(messageOf(error), production.connectionString)}`);
  }
}

const NOT_PLANNED = {
  cost: null,
  planShape: null,
  plan: null,
  planAfter: null,
  recommendations: [],
  indexesUsed: [],
  tablesUsed: [],
  error: 'The shadow planner returned no plan for the query',
};
