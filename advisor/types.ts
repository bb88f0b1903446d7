// What an analysis's parts share without importing one another: its input, options, progress and
// result (index.ts, pipeline.ts, prepared-shadow.ts), and a query's candidates before planning.
import type { ChoiceStop, IndexRecommendation, PlannedQuery, SavingPoint, WorkloadBudget } from '../shared/analysis.js';
import type { CandidateOptions, IndexCandidate } from './candidates.js';
import type { LiveCandidate } from './live-candidates.js';
import type { QueryInput } from './recommend.js';
import type { ShadowServer } from '../shadow/types.js';
import type { WhatIfDrop, WhatIfDropResult } from './what-if-drops.js';
import type { ShadowSlots } from '../shadow/slots.js';

export interface AnalysisResult {
  queries: PlannedQuery[];
  /** Every recommended index once, ranked by total time saved over all queries. */
  indexes: IndexRecommendation[];
  /** The workload's cost after each step of the choice (knee.ts), and where and why it stopped. */
  savingCurve: SavingPoint[];
  stopReason: ChoiceStop;
  /** Schema objects the shadow could not rebuild, statistics it could not restore. */
  warnings: string[];
  /** With `whatIfDrops`: each index's queries planned with and without it (what-if-drops.ts). */
  whatIfDrops?: WhatIfDropResult[];
}

export interface AnalysisProgress {
  phase: 'snapshot' | 'shadow' | 'candidates' | 'queries' | 'done';
  done: number;
  total: number;
}

export interface AnalyzeOptions {
  /** A shadow server to reuse (it is not stopped); otherwise one is started and stopped. */
  shadow?: ShadowServer;
  candidates?: CandidateOptions;
  /** Smallest cost reduction, in percent of the query's cost, worth an index. Default 5. */
  minSavedPct?: number;
  /** Most indexes recommended for one query. Default 2. */
  maxIndexesPerQuery?: number;
  /** A budget for the indexes chosen for the whole workload (`indexes`): most indexes, most bytes. */
  budget?: WorkloadBudget;
  statementTimeoutMs?: number;
  onProgress?: (p: AnalysisProgress) => void;
  /** Caps concurrent analyses; default: the process-wide slots (SHADOW_MAX_CONCURRENT, SHADOW_QUEUE). */
  slots?: ShadowSlots;
  /**
   * With `shadow`: keep the shadow database built for this key on that server and plan in it
   * again when asked with the same key (kept-shadows.ts). The same key must mean the same
   * snapshot, schema differences applied included, e.g. `snapshotId + digest`.
   */
  reuseKey?: string;
  /** Indexes to try dropping, after the queries are planned, in the same shadow (what-if-drops.ts). */
  whatIfDrops?: WhatIfDrop[];
  /**
   * Rebuild the whole snapshot in the shadow. By default the shadow carries only what the
   * queries (and what-if drops) need (scope.ts), which plans them the same; a snapshot without a
   * dependency graph (read by an older version) is always rebuilt whole.
   */
  fullShadow?: boolean;
  /**
   * Scoring other index selections with the advisor's own what-if cost (bench:advisor): `extra`
   * names more candidates to build from each query's own, and `run` is called after the queries
   * are planned, in the same shadow, with every candidate built and the cost of a query with any
   * set of them.
   */
  whatIf?: WhatIfHook;
}

/** The advisor's what-if cost, for a bench to score other index selections with. */
export interface WhatIf {
  /** Every candidate built in the shadow, sized as the advisor sizes it (pages). */
  live: LiveCandidate[];
  /** Each query's own candidates (after sharing between queries), in the order of the queries. */
  candidatesOf: IndexCandidate[][];
  /** The query's cost (as the advisor compares costs) with these candidates and no other. */
  cost(query: number, indexes: LiveCandidate[]): Promise<number>;
  results: PlannedQuery[];
  /** Per query, the columns it reads per table, as the advisor's planned cost uses them (planned-cost.ts). */
  columns: (Map<string, Set<string> | null> | undefined)[];
}

export interface WhatIfHook {
  extra?: (candidatesOf: IndexCandidate[][]) => IndexCandidate[];
  run: (whatIf: WhatIf) => Promise<void>;
}

export interface AnalyzeInput {
  /** Production connection string; used read-only, nothing is created or changed there. */
  connectionString: string;
  queries: QueryInput[];
  options?: AnalyzeOptions;
}

/** What one query brings before anything is planned: its candidates, or why it is not planned. */
export interface PreparedQuery {
  candidates: IndexCandidate[];
  error: string | undefined;
  /** Not exactly one plannable statement: never sent to the shadow. */
  refused: boolean;
  /** Per table it reads (schema.table), the columns it reads there; null: every column (`*`). */
  columns?: Map<string, Set<string> | null>;
}
