// A shadow database ready to plan a run's queries on: built from the snapshot (schema, endpoint
// rows, candidates, statistics, relation files at production's length) or a kept one reused and
// grown with what these queries need, and the candidate indexes built in it.
import { candidateKey, type IndexCandidate } from './candidates.js';
import { createCandidates as buildCandidates, liveRunIndex, sizeCandidates, type LiveCandidate } from './live-candidates.js';
import type { KeptShadow } from './kept-shadows.js';
import { ddlKey } from './scope.js';
import { createShadowDatabase, extendShadowDatabase, reopenShadowDatabase } from '../shadow/database.js';
import { extendFiles, extendRelations, shrinkFiles, storageInfo, tableFiles, type ExtendJob } from '../shadow/relation-files.js';
import { restoreRelationSizes, restoreStatistics } from '../shadow/statistics.js';
import { storeEndpointRows } from '../shadow/endpoint-rows.js';
import type { ShadowDatabase, ShadowServer } from '../shadow/types.js';
import type { Snapshot } from '../snapshot/types.js';
import type { AnalysisProgress, AnalyzeOptions, PreparedQuery } from './types.js';

/** A shadow database ready to plan on: its session, candidates and the run schema's indexes, sized. */
export interface PreparedShadow {
  db: ShadowDatabase;
  /** Candidates of these queries, by candidateKey. */
  live: Map<string, LiveCandidate>;
  runIndexes: LiveCandidate[];
  warnings: string[];
  /** What a kept database remembers of its build. */
  kept: Omit<KeptShadow, 'key'>;
}

/** Builds the shadow database from the snapshot: schema, endpoint rows, candidates, statistics, sizes. */
export async function buildShadow(
  server: ShadowServer,
  dbName: string,
  snapshot: Snapshot,
  prepared: PreparedQuery[],
  opts: AnalyzeOptions,
  progress: (p: AnalysisProgress) => void,
): Promise<PreparedShadow> {
  const db = await createShadowDatabase(server, snapshot, dbName, snapshot.locale, opts.statementTimeoutMs);
  try {
    const warnings = [...db.notCopied, ...db.ddlErrors.map((e) => `DDL not rebuilt: ${e.error}: ${e.sql.slice(0, 200)}`)];
    progress({ phase: 'shadow', done: 1, total: 1 });
    // Before candidates are built, so they hold the two rows as the real index would.
    await storeEndpointRows(db, snapshot);
    const extra = opts.whatIf?.extra?.(prepared.map((p) => p.candidates)) ?? [];
    const built = await createCandidates(db, newCandidates(prepared, new Map(), extra), 1, snapshot, progress);
    const tables = await tableFiles(db, snapshot.relations);

    await restoreStatistics(db, snapshot).then((r) => warnings.push(...r.warnings));
    const relations = await extendRelations(server, db, snapshot.relations);
    const candidateFiles: ExtendJob[] = [];
    candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
    const runIndexes = await sizeRunIndexes(db, snapshot, candidateFiles, warnings);
    const storage = await storageInfo(server, db.session);
    await extendFiles(server, storage, candidateFiles);
    const live = liveOf(built);
    const kept = {
      storage,
      built: { name: db.name, ddlErrors: db.ddlErrors, notCopied: db.notCopied },
      warnings,
      tables,
      candidates: built,
      runIndexes,
      nextCandidate: built.size + 1,
      relations,
      ddl: new Set(snapshot.ddl.map(ddlKey)),
      restored: new Set(snapshot.relations.map(relationId)),
    };
    return { db, live, runIndexes, warnings, kept };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

const relationId = (r: { schema: string; name: string }) => `${r.schema}\u0000${r.name}`;

/** A kept database can take the rest of this snapshot unless that needs a schema or extension it was not built with. */
export function canGrow(kept: KeptShadow, snapshot: Snapshot): boolean {
  return snapshot.ddl.every((d) => kept.ddl.has(ddlKey(d)) || (d.kind !== 'schema' && d.kind !== 'extension'));
}

/**
 * A kept database: a new session; the relations these queries need that it does not have yet
 * added (their DDL, endpoint rows, statistics, sizes: a shadow grows with the queries planned in
 * it, scope.ts) and the candidates it does not have yet built, both on tables shrunk back to their
 * built length, then everything grown again (kept-shadows.ts).
 */
export async function reuseShadow(
  server: ShadowServer,
  kept: KeptShadow,
  snapshot: Snapshot,
  prepared: PreparedQuery[],
  opts: AnalyzeOptions,
  progress: (p: AnalysisProgress) => void,
): Promise<PreparedShadow> {
  const missing = newCandidates(prepared, kept.candidates);
  // What the database lacks of this part. A table arrives with its partitions, children and
  // indexes when a query reads it, so a partition is never attached later to a table the database
  // holds candidates on (CREATE INDEX builds those on a table queries read, whose partitions are
  // all there): an attachment would give it parts of them, valid.
  const newDdl = snapshot.ddl.filter((d) => !kept.ddl.has(ddlKey(d)));
  const newRelations = snapshot.relations.filter((r) => !kept.restored.has(relationId(r)));
  const grow = newDdl.length > 0 || newRelations.length > 0;
  // No session is open on the database now: the last analysis closed its own.
  if (missing.size > 0 || grow) await shrinkFiles(server, kept.storage, kept.tables);
  const db = await reopenShadowDatabase(server, snapshot, kept.built, opts.statementTimeoutMs);
  try {
    let added: Snapshot | undefined;
    if (grow) {
      const extended = await extendShadowDatabase(db, snapshot, newDdl);
      if (!extended) throw new Error('the kept shadow database cannot take the schema or extension these queries need');
      for (const d of newDdl) kept.ddl.add(ddlKey(d));
      kept.warnings.push(...extended.notCopied, ...extended.ddlErrors.map((e) => `DDL not rebuilt: ${e.error}: ${e.sql.slice(0, 200)}`));
      // What this part of the snapshot brings: endpoint rows (before candidates, as in a build) and statistics.
      const tables = new Set(newRelations.map(relationId));
      added = {
        ...snapshot,
        relations: newRelations,
        stats: snapshot.stats.filter((s) => tables.has(relationId({ schema: s.schema, name: s.table }))),
        endpoints: (snapshot.endpoints ?? []).filter((e) => tables.has(relationId({ schema: e.schema, name: e.table }))),
      };
      await storeEndpointRows(db, added);
    }
    progress({ phase: 'shadow', done: 1, total: 1 });
    if (missing.size > 0 || grow) {
      const built = missing.size > 0 ? await createCandidates(db, missing, kept.nextCandidate, snapshot, progress) : new Map<string, LiveCandidate | null>();
      kept.nextCandidate += missing.size;
      if (added) {
        kept.tables.push(...(await tableFiles(db, added.relations)));
        await restoreStatistics(db, added).then((r) => kept.warnings.push(...r.warnings));
        for (const r of added.relations) kept.restored.add(relationId(r));
      }
      // CREATE INDEX wrote its table's size to pg_class (index_update_stats).
      await restoreRelationSizes(db, snapshot);
      await extendFiles(server, kept.storage, kept.relations);
      if (added) kept.relations.push(...(await extendRelations(server, db, added.relations)));
      const candidateFiles: ExtendJob[] = [];
      candidateFiles.push(...(await sizeCandidates(db.session, [...liveOf(built).values()], snapshot)));
      for (const [key, c] of built) kept.candidates.set(key, c);
      // The run schema's indexes built now, with the relations added.
      const builtNow = new Set(newDdl.filter((d) => d.kind === 'index').map((d) => d.name));
      const runIndexes = await sizeRunIndexes(db, snapshot, candidateFiles, kept.warnings, (_schema, name) => builtNow.has(name));
      kept.runIndexes.push(...runIndexes);
      await extendFiles(server, kept.storage, candidateFiles);
    }
    return { db, live: liveOf(kept.candidates), runIndexes: kept.runIndexes, warnings: kept.warnings, kept };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/**
 * Sizes the indexes a CI run's schema adds (snapshot.runIndexes) as candidates are sized; adds
 * their files to `files`. Those the shadow could not build are reported in `warnings`.
 */
async function sizeRunIndexes(
  db: ShadowDatabase,
  snapshot: Snapshot,
  files: ExtendJob[],
  warnings: string[],
  wanted: (schema: string, name: string) => boolean = () => true,
): Promise<LiveCandidate[]> {
  const sized: LiveCandidate[] = [];
  for (const { schema, name } of snapshot.runIndexes ?? []) {
    if (!wanted(schema, name)) continue;
    const index = snapshot.indexes.find((i) => i.schema === schema && i.name === name);
    if (!index) continue;
    const live = await liveRunIndex(db.session, index);
    if (!live) {
      if (index.am !== 'brin') warnings.push(`index ${schema}.${name} of the run's schema was not built in the shadow`);
      continue;
    }
    files.push(...(await sizeCandidates(db.session, [live], snapshot)));
    // Descent costs are B-tree's; other methods sized like one do not get them.
    if (index.am !== 'btree') live.heights.clear();
    sized.push(live);
  }
  return sized;
}

/** The distinct candidates of every query (and `extra`) that `known` does not hold yet, by candidateKey. */
function newCandidates(prepared: PreparedQuery[], known: ReadonlyMap<string, unknown>, extra: IndexCandidate[] = []): Map<string, IndexCandidate> {
  const unique = new Map<string, IndexCandidate>();
  for (const c of [...prepared.flatMap((p) => p.candidates), ...extra]) if (!known.has(candidateKey(c))) unique.set(candidateKey(c), c);
  return unique;
}

/** Builds each candidate once, named from the `first`-th on; null for one not built or covered. */
function createCandidates(
  db: ShadowDatabase,
  unique: Map<string, IndexCandidate>,
  first: number,
  snapshot: Snapshot,
  progress: (p: AnalysisProgress) => void,
): Promise<Map<string, LiveCandidate | null>> {
  return buildCandidates(db.session, unique, first, snapshot, (done, total) => progress({ phase: 'candidates', done, total }));
}

function liveOf(candidates: ReadonlyMap<string, LiveCandidate | null>): Map<string, LiveCandidate> {
  const live = new Map<string, LiveCandidate>();
  for (const [key, c] of candidates) if (c) live.set(key, c);
  return live;
}
