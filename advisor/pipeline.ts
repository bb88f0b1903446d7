// One analysis of a snapshot, start to end: the part of the snapshot its queries need, a shadow
// database built or reused (prepared-shadow.ts), every query planned with and without candidates,
// the workload's choice, what-if drops, and the kept database handed back.
import type { PlannedQuery } from '../shared/analysis.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { candidateKey, candidateTarget, candidatesFor, type CandidateOptions } from './candidates.js';
import { tableMapOf } from './table-map.js';
import { btreeHeights, descentCost } from './descent.js';
import type { LiveCandidate } from './live-candidates.js';
import { planObjectsReader } from './plan-objects.js';
import { plannedCost } from './planned-cost.js';
import { chooseVerified, costWith, recommendFor, unplanned, type QueryInput } from './recommend.js';
import { claimKept, type KeptShadow } from './kept-shadows.js';
import { queryRefs, subsetSnapshot } from './scope.js';
import { explain } from '../shadow/explain.js';
import type { ShadowDatabase } from '../shadow/types.js';
import { dropShadowAccess } from '../shadow/access.js';
import { planWhatIfDrops } from './what-if-drops.js';
import { hiddenStatisticsWarnings, withQueryStatisticsWarnings } from './hidden-statistics.js';
import { startShadowServer } from '../shadow/server.js';
import type { Snapshot } from '../snapshot/types.js';
import { refusalReason } from '../shadow/statement.js';
import { UsageCollector, type TableUsage } from './usage.js';
import { annotateRecommendations, withSharedCandidates } from './workload.js';
import type { AnalysisResult, AnalyzeOptions, PreparedQuery } from './types.js';
import { buildShadow, canGrow, reuseShadow, type PreparedShadow } from './prepared-shadow.js';

/**
 * The part of the snapshot the queries and what-if drops need (scope.ts), or all of it. A text that
 * is refused is never planned, so it needs nothing.
 */
function shadowScope(snapshot: Snapshot, queries: QueryInput[], opts: AnalyzeOptions): Snapshot {
  if (opts.fullShadow || !snapshot.graph) return snapshot;
  const texts = [...queries, ...(opts.whatIfDrops ?? []).flatMap((t) => t.queries)].map((q) => q.query).filter((sql) => !refusalReason(sql));
  const keyOf = new Map(Object.entries(snapshot.graph.relations).map(([key, r]) => [`${r.schema}\u0000${r.name}`, key]));
  const dropTables = (opts.whatIfDrops ?? []).flatMap((t) => {
    const index = snapshot.indexes.find((i) => i.schema === t.schema && i.name === t.name);
    const key = index && keyOf.get(`${index.schema}\u0000${index.table}`);
    return key ? [key] : [];
  });
  return subsetSnapshot(snapshot, queryRefs(texts), { used: dropTables });
}

export async function planSnapshot(whole: Snapshot, queries: QueryInput[], opts: AnalyzeOptions): Promise<AnalysisResult> {
  const progress = opts.onProgress ?? (() => undefined);
  await loadParser();
  // Only what these queries need goes into the shadow; everything below reads that part.
  const snapshot = shadowScope(whole, queries, opts);
  progress({ phase: 'shadow', done: 0, total: 1 });
  const server = opts.shadow ?? (await startShadowServer());
  let claim = opts.shadow && opts.reuseKey !== undefined ? await claimKept(opts.shadow, opts.reuseKey) : undefined;
  if (claim?.kept && !canGrow(claim.kept, snapshot)) {
    // It lacks what only a new database can have (a schema or extension): built anew under the same key.
    await dropShadowAccess(server, claim.kept.built.name).catch(() => undefined);
    claim = { kept: undefined, release: claim.release };
  }
  const dbName = claim?.kept?.built.name ?? `shadow_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  let db: ShadowDatabase | undefined;
  let kept: KeptShadow | undefined;
  let failed = false;
  try {
    // Parse every query and gather its candidates before any relation is extended (see shadow/relation-files.ts).
    const prepared = prepareQueries(snapshot, queries, opts.candidates);
    let shadow: PreparedShadow;
    if (claim?.kept) {
      kept = claim.kept;
      shadow = await reuseShadow(server, kept, snapshot, prepared, opts, progress);
    } else {
      shadow = await buildShadow(server, dbName, snapshot, prepared, opts, progress);
      if (claim) kept = { key: opts.reuseKey!, ...shadow.kept };
    }
    db = shadow.db;

    const heights = btreeHeights(snapshot);
    for (const c of [...shadow.live.values(), ...shadow.runIndexes]) for (const [name, h] of c.heights) heights.set(name, h);
    const cpuOperatorCost = Number(snapshot.settings.cpu_operator_cost ?? 0.0025);
    const costOf = costWith((plan) => descentCost(plan, heights, cpuOperatorCost));
    const limits = { minSavedPct: opts.minSavedPct ?? 5, maxPerQuery: opts.maxIndexesPerQuery ?? 2 };
    const objectsOf = planObjectsReader(snapshot);
    const results: PlannedQuery[] = [];
    for (const [i, q] of queries.entries()) {
      progress({ phase: 'queries', done: i, total: queries.length });
      const p = prepared[i]!;
      if (p.refused) {
        results.push(unplanned(q.hash, p.error!));
        continue;
      }
      const candidates = p.candidates.map((c) => shadow.live.get(candidateKey(c))).filter((c): c is LiveCandidate => !!c);
      const planned = await recommendFor(db.session, q, candidates, p.error, limits, costOf);
      // From the plan as it is: recommendations are not applied in it.
      results.push({ ...planned, ...objectsOf(planned.plan) });
    }
    annotateRecommendations(results, snapshot);
    const whatIfDrops = opts.whatIfDrops?.length ? await planWhatIfDrops(db.session, opts.whatIfDrops, costOf) : undefined;
    const session = db.session;
    const cost = async (i: number, indexes: LiveCandidate[]) =>
      costOf(
        await explain(
          session,
          queries[i]!.query,
          indexes.flatMap((c) => c.oids),
        ),
      );
    const columns = prepared.map((p) => p.columns);
    if (opts.whatIf) await opts.whatIf.run({ live: [...shadow.live.values()], candidatesOf: prepared.map((p) => p.candidates), cost, results, columns });
    const byStatement = new Map([...shadow.live.values()].map((c) => [`CREATE INDEX ON ${candidateTarget(c)}`, c]));
    // The tables a query concerns: those its plan reads and those of its candidates.
    const tables = results.map((r, i) => (r.plan ? new Set([...r.tablesUsed, ...prepared[i]!.candidates.map((c) => `${c.schema}.${c.table}`)]) : null));
    const plannedWorkload = plannedCost(
      tables,
      queries.map((q) => q.calls ?? 1),
      cost,
      columns,
    );
    const workloadCost = Object.assign((statements: string[]) => plannedWorkload.perQuery(statements.flatMap((s) => byStatement.get(s) ?? [])), {
      plans: plannedWorkload.plans,
    });
    const choice = await chooseVerified(results, opts.budget ?? {}, workloadCost);
    progress({ phase: 'done', done: queries.length, total: queries.length });
    const planned = withQueryStatisticsWarnings(snapshot, results);
    const warnings = [...shadow.warnings, ...hiddenStatisticsWarnings(snapshot, planned)];
    return { queries: planned, ...choice, warnings, ...(whatIfDrops && { whatIfDrops }) };
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    // Closed before the claim is released: the next analysis may shrink the tables' files.
    if (db) await db.close().catch(() => undefined);
    if (!opts.shadow) await server.stop();
    else {
      claim?.release(failed ? undefined : kept);
      if (!claim || failed) await dropShadowAccess(server, dbName).catch(() => undefined);
    }
  }
}

/**
 * A text that is not exactly one plannable statement is refused here and never sent; one the
 * candidate reader cannot follow is still planned, with the parse error kept beside its plan.
 */
function prepareQueries(snapshot: Snapshot, queries: QueryInput[], options: CandidateOptions | undefined): PreparedQuery[] {
  const tables = tableMapOf(snapshot);
  const prepared = queries.map((q): PreparedQuery => {
    const refused = refusalReason(q.query);
    if (refused) return { candidates: [], error: refused, refused: true };
    try {
      const usages = new UsageCollector(tables).collect(q.query);
      return { candidates: candidatesFor(usages, tables, options), error: undefined, refused: false, columns: columnsRead(usages) };
    } catch (e) {
      return { candidates: [], error: `parse: ${(e as Error).message}`, refused: false };
    }
  });
  // Other queries' candidates that extend a query's own are tried on it too: the workload's choice needs them.
  const shared = withSharedCandidates(prepared.map((p) => p.candidates));
  return prepared.map((p, i) => ({ ...p, candidates: p.refused ? [] : shared[i]! }));
}

/** The columns a query reads per table, every reference to a table together. */
function columnsRead(usages: TableUsage[]): Map<string, Set<string> | null> {
  const out = new Map<string, Set<string> | null>();
  for (const u of usages) {
    const table = `${u.schema}.${u.table}`;
    const known = out.get(table);
    if (known === null) continue;
    out.set(table, u.referenced === null ? null : new Set([...(known ?? []), ...u.referenced]));
  }
  return out;
}
