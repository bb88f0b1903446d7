// The two "what if it were dropped" parts of an environment's analysis:
// - a what-if analysis (hiddenIndexes): the catalog planned again against the production snapshot
//   without those indexes (cached under a digest of their names, like a CI run's schema), its cost
//   compared query by query with production's plans;
// - index health: production's findings, each unused, duplicate or redundant index with its drop
//   effect (index-health.ts).
import { createHash } from 'node:crypto';
import { chooseIndexes, resolveIndexNames, withoutIndexes, type QueryInput, type ShadowSlots } from '../../advisor/index';
import { redactConnectionString } from '../../gateway/index';
import type { PlannedQuery, WorkloadBudget } from '../../shared/analysis';
import type { DropEffect, IndexHealth } from '../../shared/index-health';
import type { SchemaFilters } from '../../shared/schema-filters';
import type { Services } from '../services-type';
import { planCached, type CachedPlan } from '../verdict/cache';
import { warmShadows } from '../verdict/shadows';
import type { StoredSnapshot } from '../verdict/snapshots';
import { readProductionIndexHealth, SLOWER_RATIO, withDropEffects } from './index-health';

/** What an analysis planned: the catalog's queries and their plans against production's snapshot. */
export interface PlanningContext {
  services: Services;
  environmentId: string;
  snapshot: StoredSnapshot;
  queries: QueryInput[];
  planned: PlannedQuery[];
  slots?: ShadowSlots;
  budget?: WorkloadBudget;
}

export const inputsOf = (queries: { hash: string; query: string; calls: number | null }[]): QueryInput[] =>
  queries.map((q) => ({ hash: q.hash, query: q.query, calls: q.calls ?? undefined }));

/** Production's index health, or the error that kept it from being read (an analysis goes on without it). */
export function readIndexFindings(connectionString: string, schemaFilters?: SchemaFilters): Promise<IndexHealth | Error> {
  return readProductionIndexHealth(connectionString, schemaFilters).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

/**
 * The findings with their drop effects, tried against the analysis's plans. Without plans (an
 * empty catalog) no catalog query reads any index. A read that failed is a warning.
 */
export async function healthWithEffects(
  found: IndexHealth | Error,
  planning: PlanningContext | undefined,
  warnings: string[],
  connectionString: string,
): Promise<IndexHealth | undefined> {
  if (found instanceof Error) {
    warnings.push(`Index health could not be read: ${redactConnectionString(found.message, connectionString)}`);
    return undefined;
  }
  if (!planning) {
    return {
      ...found,
      indexes: found.indexes.map((e) => ({
        ...e,
        dropEffect: e.kinds.some((k) => k !== 'invalid') ? { queriesUsing: 0, slower: [], safeToDrop: true, error: null } : null,
      })),
    };
  }
  return withDropEffects({
    health: found,
    snapshotId: planning.snapshot.id,
    snapshot: planning.snapshot.snapshot,
    planned: planning.planned,
    queries: planning.queries,
    shadows: warmShadows(planning.services.config),
    slots: planning.slots,
  });
}

/** The catalog planned without `dropped` (schema.name each, resolved when the analysis started). */
export async function whatIfResult(
  input: PlanningContext & { dropped: string[]; onProgress?: (done: number, total: number) => void },
): Promise<{ queries: PlannedQuery[]; warnings: string[]; hiddenEffect: DropEffect } & ReturnType<typeof chooseIndexes>> {
  const { snapshot } = input;
  const resolved = resolveIndexNames(snapshot.snapshot, input.dropped);
  if (resolved.problems.length) throw new Error(`The hidden indexes are no longer in production: ${resolved.problems.map((p) => p.message).join(' ')}`);
  const without = await planCached(input.services.store.db, {
    environmentId: input.environmentId,
    snapshotId: snapshot.id,
    snapshot: withoutIndexes(snapshot.snapshot, resolved.indexes),
    // The cache key keeps its "hidden:" prefix: plans cached under it stay valid.
    digest: `hidden:${createHash('sha256')
      .update([...input.dropped].sort().join('\n'))
      .digest('hex')}`,
    queries: input.queries,
    withPlans: true,
    shadows: warmShadows(input.services.config),
    slots: input.slots,
    onProgress: input.onProgress,
  });
  const planned = plansOf(input.queries, without.plans);
  return {
    queries: planned,
    ...chooseIndexes(planned, input.budget),
    warnings: without.warnings,
    hiddenEffect: dropEffectOf(input.planned, planned, input.dropped),
  };
}

function plansOf(queries: { hash: string }[], plans: Map<string, CachedPlan>): PlannedQuery[] {
  return queries.flatMap((q) => {
    const p = plans.get(q.hash);
    if (!p) return [];
    const { plannedAt: _plannedAt, ...plan } = p;
    return [plan];
  });
}

/** Every query dearer by more than SLOWER_RATIO without the dropped indexes; queriesUsing counts the production plans that read one. */
function dropEffectOf(before: PlannedQuery[], after: PlannedQuery[], dropped: string[]): DropEffect {
  const afterByHash = new Map(after.map((q) => [q.hash, q]));
  const slower = before.flatMap((q) => {
    const a = afterByHash.get(q.hash);
    if (q.cost === null || a?.cost == null || a.cost <= q.cost * SLOWER_RATIO) return [];
    return [{ hash: q.hash, costBefore: q.cost, costAfter: a.cost }];
  });
  slower.sort((a, b) => b.costAfter - b.costBefore - (a.costAfter - a.costBefore));
  const queriesUsing = before.filter((q) => q.indexesUsed.some((i) => dropped.includes(i))).length;
  return { queriesUsing, slower, safeToDrop: slower.length === 0, error: null };
}
