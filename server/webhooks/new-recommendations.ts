// analysis.recommendation.new: an Analyze that recommends indexes the environment's previous one
// did not (the first one: all it recommends). What-if analyses never notify; the analysis id is
// the event key, so an analysis notifies once.
import { and, desc, eq, sql } from 'drizzle-orm';
import { analysisRuns } from '../db/schema';
import type { Services } from '../services-type';
import { emitEvent } from './events';

export async function emitNewRecommendations(services: Services, environmentId: string, analysisId: string): Promise<void> {
  try {
    const { db } = services.store;
    const [current] = await db.select().from(analysisRuns).where(eq(analysisRuns.id, analysisId));
    if (!current || current.status !== 'done' || current.hiddenIndexes.length > 0) return;
    const [previous] = await db
      .select({ indexes: analysisRuns.indexes })
      .from(analysisRuns)
      .where(
        and(
          eq(analysisRuns.environmentId, environmentId),
          eq(analysisRuns.status, 'done'),
          sql`${analysisRuns.hiddenIndexes} = '[]'::jsonb`,
          sql`(${analysisRuns.startedAt}, ${analysisRuns.id}) < (${current.startedAt.toISOString()}::timestamptz, ${analysisId})`,
        ),
      )
      .orderBy(desc(analysisRuns.startedAt), desc(analysisRuns.id))
      .limit(1);
    const before = new Set((previous?.indexes ?? []).map((i) => i.createIndex));
    const fresh = current.indexes.filter((i) => !before.has(i.createIndex));
    if (fresh.length === 0) return;
    await emitEvent(
      services,
      environmentId,
      'analysis.recommendation.new',
      {
        analysisId,
        indexes: fresh.map((i) => ({ createIndex: i.createIndex, table: i.table, totalSaved: i.totalSaved, queries: i.queries.length })),
      },
      { key: analysisId },
    );
  } catch (error) {
    console.error(`[webhooks] analysis ${analysisId} could not be checked for new recommendations: ${error instanceof Error ? error.message : String(error)}`);
  }
}
