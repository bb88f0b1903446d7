// Shadow databases kept between analyses on a warm server (AnalyzeOptions.reuseKey): rebuilding
// the schema, endpoint rows, statistics and extensions for every CI run costs more than planning
// its new queries. One database per server, for the last key it was asked for (so at most as many
// as the caller keeps warm servers); another key drops it and builds anew, and it goes with the
// server when that stops. It is used by one analysis at a time: another analysis on the same
// server meanwhile plans in a database of its own, as without a key.
//
// What a kept database holds is what a fresh build would hold plus the candidate indexes earlier
// analyses built, all invalid: the planner skips an index with indisvalid false, and each EXPLAIN
// flips only the ones it tries, rolled back (shadow/explain.ts). Every analysis gets a new session logged
// in as the database's planner role. New candidates are still built on physically empty tables:
// the tables' files are shrunk back to their built length first (shrinkFiles) and grown again after.
import type { LiveCandidate } from './live-candidates.js';
import { dropShadowAccess } from '../shadow/access.js';
import type { ShadowServer, ShadowDatabase } from '../shadow/types.js';
import type { ExtendJob, ShrinkJob, StorageInfo } from '../shadow/relation-files.js';

export interface KeptShadow {
  key: string;
  built: Pick<ShadowDatabase, 'name' | 'ddlErrors' | 'notCopied'>;
  /** The warnings of the analysis that built it: every later one on this key reports the same. */
  warnings: string[];
  /** Tables' files at their built length, and the production length they are extended to. */
  tables: ShrinkJob[];
  /** Candidates by candidateKey, sized; null: PostgreSQL could not build it, or an index covers it. */
  candidates: Map<string, LiveCandidate | null>;
  /** The run schema's indexes, sized (snapshot.runIndexes). */
  runIndexes: LiveCandidate[];
  /** Suffix of the next candidate's scratch name. */
  nextCandidate: number;
  storage: StorageInfo;
  /** Files of tables and indexes at production length (extendRelations), for growing them again. */
  relations: ExtendJob[];
  /**
   * The snapshot's DDL entries run in it (scope.ts ddlKey), and the relations (schema, NUL, name)
   * whose statistics it holds: a later analysis on the same key whose queries need more of the
   * snapshot adds only what is missing (a shadow carries what its queries need, scope.ts).
   */
  ddl: Set<string>;
  restored: Set<string>;
}

interface ServerState {
  kept?: KeptShadow;
  busy: boolean;
}

const states = new WeakMap<ShadowServer, ServerState>();

export interface KeptClaim {
  /** The database kept under the key, or undefined: the analysis builds one and passes it to release. */
  kept: KeptShadow | undefined;
  /** Ends the claim: keeps `kept` for the next analysis, or with undefined (the analysis failed) keeps nothing. */
  release(kept: KeptShadow | undefined): void;
}

/** The key of the database kept on `server`, if any: a caller with several servers picks the one holding its key. */
export function keptKeyOf(server: ShadowServer): string | undefined {
  return states.get(server)?.kept?.key;
}

/**
 * The kept database of `server` for `key`, claimed for one analysis; undefined when another
 * analysis holds it. A database kept under another key is dropped first.
 */
export async function claimKept(server: ShadowServer, key: string): Promise<KeptClaim | undefined> {
  let state = states.get(server);
  if (!state) states.set(server, (state = { busy: false }));
  if (state.busy) return undefined;
  state.busy = true;
  const own = state;
  const stale = own.kept && own.kept.key !== key ? own.kept : undefined;
  if (stale) {
    own.kept = undefined;
    await dropShadowAccess(server, stale.built.name).catch(() => undefined);
  }
  return {
    kept: own.kept,
    release(kept) {
      own.kept = kept;
      own.busy = false;
    },
  };
}
