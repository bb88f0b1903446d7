// Reading what "Analyze" stored: an environment's latest analysis (its progress, or its ranked
// index recommendations) and one query's plan, cost and recommendations.
import { and, desc, eq } from 'drizzle-orm';
import type { AnalysisStatus, QueryAnalysis } from '../../shared/analysis';
import { analysisRuns, queryAnalyses } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { notFoundInEnvironment } from '../domain/environments';

export function toStatus(row: typeof analysisRuns.$inferSelect): AnalysisStatus {
  return {
    id: row.id,
    environmentId: row.environmentId,
    status: row.status,
    phase: row.phase,
    done: row.done,
    total: row.total,
    queryCount: row.queryCount,
    connectionLabel: row.connectionLabel,
    error: row.error,
    warnings: row.warnings,
    indexes: row.indexes,
    ...(row.savingCurve && { savingCurve: row.savingCurve }),
    stopReason: row.stopReason ?? null,
    hiddenIndexes: row.hiddenIndexes,
    hiddenEffect: row.hiddenEffect ?? null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

/** The environment's most recently started analysis; 404 when none has run (or no such environment). */
export async function latestAnalysis(db: Db, environmentId: string): Promise<AnalysisStatus> {
  const [row] = await db
    .select()
    .from(analysisRuns)
    .where(eq(analysisRuns.environmentId, environmentId))
    .orderBy(desc(analysisRuns.startedAt), desc(analysisRuns.id))
    .limit(1);
  if (!row) return notFoundInEnvironment(db, environmentId, notFound('Analysis of this environment (none has run yet)'));
  return toStatus(row);
}

/** A query's latest analysis; 404 when it has none (or no such environment). */
export async function readQueryAnalysis(db: Db, environmentId: string, hash: string): Promise<QueryAnalysis> {
  const [row] = await db
    .select()
    .from(queryAnalyses)
    .where(and(eq(queryAnalyses.environmentId, environmentId), eq(queryAnalyses.hash, hash)));
  if (!row) return notFoundInEnvironment(db, environmentId, notFound(`Analysis of query ${hash}`));
  return {
    hash: row.hash,
    analysisId: row.analysisId,
    cost: row.cost,
    planShape: row.planShape,
    plan: row.plan,
    planAfter: row.planAfter,
    recommendations: row.recommendations,
    error: row.error,
    ...(row.warnings.length > 0 && { warnings: row.warnings }),
    analyzedAt: row.analyzedAt.toISOString(),
  };
}
