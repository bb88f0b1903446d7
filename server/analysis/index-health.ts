// Index health on an environment's page: production's findings (read by the analyzer's own query,
// through the gateway, when an analysis runs) and, for each unused, duplicate or redundant index,
// what dropping it would do to the catalog. Only the catalog queries whose production plan reads
// the index can plan differently without it; those are planned again in the analysis's shadow with
// the index marked invalid (advisor/what-if-drops.ts). An index no catalog query's plan reads is
// safe to drop as far as the catalog knows, without planning anything.
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import { analyzeSnapshot, ShadowSlots, sharedShadowSlots, type WhatIfDrop, type WhatIfDropResult, type QueryInput, type Snapshot } from '../../advisor/index';
import { readIndexHealth } from '../../analyzer/index-health';
import { openGateway } from '../../gateway/index';
import type { PlannedQuery } from '../../shared/analysis';
import type { SchemaFilters } from '../../shared/schema-filters';
import type { DropEffect, EnvironmentIndexHealth, IndexHealth, IndexHealthEntry } from '../../shared/index-health';
import { analysisRuns } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { notFoundInEnvironment } from '../domain/environments';
import type { WarmShadows } from '../verdict/shadows';

/** A query that plans more than this much dearer without an index is slower without it. */
export const SLOWER_RATIO = 1.01;
/** Indexes tried per analysis, and queries per index: beyond them the effect says it was not tried. */
const MAX_TRIED_INDEXES = 50;
const MAX_QUERIES_PER_INDEX = 200;

const DROPPABLE = new Set(['unused', 'duplicate', 'redundant']);

/** Reads production's index health, read-only, through the gateway. */
export async function readProductionIndexHealth(connectionString: string, schemaFilters?: SchemaFilters): Promise<IndexHealth> {
  const gateway = openGateway(connectionString, { limits: { poolSize: 1 } });
  try {
    // only the indexes of the schemas the connection's filters allow are read
    return await readIndexHealth(gateway, new Date(), schemaFilters);
  } finally {
    await gateway.close().catch(() => undefined);
  }
}

export interface DropEffectsInput {
  health: IndexHealth;
  snapshotId: string;
  snapshot: Snapshot;
  /** The catalog's plans against that snapshot (production's schema, no index dropped). */
  planned: PlannedQuery[];
  queries: readonly QueryInput[];
  shadows?: WarmShadows;
  slots?: ShadowSlots;
}

/** analyzeSnapshot takes a slot of its own: the caller has taken one already, around the warm server. */
const INSIDE_A_SLOT = new ShadowSlots({ maxConcurrent: Number.MAX_SAFE_INTEGER, queue: 0 });

/** The health with each droppable index's drop effect filled in. */
export async function withDropEffects(input: DropEffectsInput): Promise<IndexHealth> {
  const byHash = new Map(input.queries.map((q) => [q.hash, q]));
  const inSnapshot = new Set(input.snapshot.indexes.map((i) => `${i.schema}.${i.name}`));
  const effects = new Map<IndexHealthEntry, DropEffect>();
  const drops: { entry: IndexHealthEntry; drop: WhatIfDrop }[] = [];
  for (const entry of input.health.indexes) {
    if (!entry.kinds.some((k) => DROPPABLE.has(k))) continue;
    const key = `${entry.schema}.${entry.name}`;
    const using = input.planned.filter((p) => p.indexesUsed.includes(key)).flatMap((p) => byHash.get(p.hash) ?? []);
    if (using.length === 0) effects.set(entry, { queriesUsing: 0, slower: [], safeToDrop: true, error: null });
    else if (!inSnapshot.has(key)) effects.set(entry, notTried(using.length, 'Not in the production snapshot the analysis planned on.'));
    else if (drops.length >= MAX_TRIED_INDEXES)
      effects.set(entry, notTried(using.length, `Not tried: an analysis tries at most ${MAX_TRIED_INDEXES} indexes.`));
    else drops.push({ entry, drop: { schema: entry.schema, name: entry.name, queries: using.slice(0, MAX_QUERIES_PER_INDEX) } });
  }
  if (drops.length > 0) {
    const tried = await runWhatIfDrops(
      input,
      drops.map((d) => d.drop),
    );
    for (const { entry, drop } of drops) {
      const result = tried.find((r) => r.schema === drop.schema && r.name === drop.name);
      const using = input.planned.filter((p) => p.indexesUsed.includes(`${entry.schema}.${entry.name}`)).length;
      effects.set(entry, result ? effectOf(result, using, drop.queries.length) : notTried(using, 'Not tried.'));
    }
  }
  return { ...input.health, indexes: input.health.indexes.map((e) => ({ ...e, dropEffect: effects.get(e) ?? null })) };
}

const notTried = (queriesUsing: number, error: string): DropEffect => ({ queriesUsing, slower: [], safeToDrop: false, error });

/** Safe only when every query that reads it was planned without it and none got dearer. */
function effectOf(result: WhatIfDropResult, queriesUsing: number, tried: number): DropEffect {
  if (result.error) return notTried(queriesUsing, result.error);
  const slower = result.queries
    .filter((q) => q.costAfter > q.costBefore * SLOWER_RATIO)
    .sort((a, b) => b.costAfter - b.costBefore - (a.costAfter - a.costBefore));
  const allCompared = result.queries.length === queriesUsing && tried === queriesUsing;
  return {
    queriesUsing,
    slower,
    safeToDrop: slower.length === 0 && allCompared,
    error: allCompared ? null : `${queriesUsing - result.queries.length} of the ${queriesUsing} queries that read it could not be planned without it.`,
  };
}

/** In the shadow the analysis planned in (same snapshot, same kept database), nothing re-planned but the what-if drops. */
async function runWhatIfDrops(input: DropEffectsInput, drops: WhatIfDrop[]): Promise<WhatIfDropResult[]> {
  const plan = (shadow: Parameters<Parameters<WarmShadows['use']>[0]>[0]) =>
    analyzeSnapshot(input.snapshot, [], {
      shadow,
      reuseKey: JSON.stringify([input.snapshotId, '']),
      slots: INSIDE_A_SLOT,
      whatIfDrops: drops,
    });
  const result = await (input.slots ?? sharedShadowSlots()).run(() => (input.shadows ? input.shadows.use(plan) : plan(undefined)));
  return result.whatIfDrops ?? [];
}

/** The latest analysis that read production's index health; 404 when none has (or no such environment). */
export async function latestIndexHealth(db: Db, environmentId: string): Promise<EnvironmentIndexHealth> {
  const [row] = await db
    .select({ id: analysisRuns.id, finishedAt: analysisRuns.finishedAt, indexHealth: analysisRuns.indexHealth })
    .from(analysisRuns)
    .where(and(eq(analysisRuns.environmentId, environmentId), eq(analysisRuns.status, 'done'), isNotNull(analysisRuns.indexHealth)))
    .orderBy(desc(analysisRuns.startedAt), desc(analysisRuns.id))
    .limit(1);
  if (!row?.indexHealth || !row.finishedAt) {
    return notFoundInEnvironment(db, environmentId, notFound('Index health of this environment (run Analyze to read it)'));
  }
  return { analysisId: row.id, analyzedAt: row.finishedAt.toISOString(), health: row.indexHealth };
}
