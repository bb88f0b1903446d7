// Why a query's cost moved between the baseline and the run, from evidence only. Both were planned
// on the same production snapshot (jobs.ts), so production's growth is never a cause here; what is
// left is what the run changed:
// - schema: the run drops an index the baseline's plan (or, for lost_index, production's plan) read,
//   whether production has it (droppedIndexes) or only the baseline's schema had it (a schema note);
// - no_statistics: the plan reads a table or column only the run has, which the planner can only
//   guess about (the schema note run-schema.ts writes for it says so), or a table whose production
//   statistics the connection's role may not read (statistics-warnings.ts);
// - query_changed: the query is an edit of a baseline query the run no longer has (pairing.ts): its
//   costs are compared with that query's, and the edit is the first suspect;
// - plan_choice: none of those, so the planner chose another plan among near-equal ones; the costs say how near.
// Pure: same input, same causes, in the same order.
import { CAUSE_KINDS, type FindingCause } from '../../shared/policy';
import { indexesUsed, type PlanNode } from '../../shared/plan';
import { statisticsCauses } from './statistics-warnings';

export interface CauseInput {
  cost: number | null;
  baselineCost: number | null;
  baselinePlan: PlanNode | null;
  /** Indexes (schema.name) production's own plan of the query reads. */
  indexesUsedInProduction: readonly string[];
  /** Indexes (schema.name) production has that the run's schema drops. */
  droppedIndexes: readonly string[];
  /** The run schema's notes on the tables the query's plan reads. */
  schemaNotes: readonly string[];
  /** For a query paired with the baseline query it edits: why they were paired. */
  pairing?: string;
}

const NO_STATISTICS = /^(\S+) is new in this run: no production statistics/;
const DROPPED_INDEX = /^index (\S+) is dropped in this run$/;
const bareName = (qualified: string) => qualified.slice(qualified.lastIndexOf('.') + 1);
const round1 = (value: number) => Math.round(value * 10) / 10;

export function findCauses(input: CauseInput): FindingCause[] {
  const causes: FindingCause[] = [];
  const baselineIndexes = input.baselinePlan ? indexesUsed(input.baselinePlan) : new Set<string>();
  const production = new Set(input.indexesUsedInProduction);
  // jobs.ts notes a removed index on a query only when its baseline plan read it
  const notedDropped = input.schemaNotes.flatMap((note) => DROPPED_INDEX.exec(note)?.[1] ?? []);
  for (const index of [...new Set([...input.droppedIndexes, ...notedDropped])].sort()) {
    const byBaseline = baselineIndexes.has(bareName(index)) || (notedDropped.includes(index) && !input.droppedIndexes.includes(index));
    if (!byBaseline && !production.has(index)) continue;
    causes.push({
      kind: 'schema',
      object: index,
      detail: `index ${index} is dropped in this run; ${byBaseline ? "the baseline's plan" : "production's plan"} reads it`,
    });
  }
  for (const note of [...new Set(input.schemaNotes)].sort()) {
    const match = NO_STATISTICS.exec(note);
    if (match) causes.push({ kind: 'no_statistics', object: match[1]!, detail: `${note}: planned with the planner's default estimates` });
  }
  if (input.pairing !== undefined) {
    const costs =
      input.cost !== null && input.baselineCost !== null ? `; it costs ${round1(input.cost)} against the edited query's ${round1(input.baselineCost)}` : '';
    causes.push({ kind: 'query_changed', detail: `the query's text changed: ${input.pairing}${costs}` });
  }
  // Production's statistics hidden from the role: the planner's defaults, whatever else moved the cost.
  const unseen = statisticsCauses(input.schemaNotes);
  if (causes.length === 0 && input.cost !== null && input.baselineCost !== null) {
    const apart = input.baselineCost > 0 ? `${round1(((input.cost - input.baselineCost) / input.baselineCost) * 100)}% apart` : 'apart';
    causes.push({
      kind: 'plan_choice',
      detail:
        `the schema the plan reads is the baseline's: the planner chose another plan, costing ${round1(input.cost)} ` +
        `against the baseline's ${round1(input.baselineCost)} (${apart})`,
    });
  }
  causes.push(...unseen);
  return causes.sort((a, b) => CAUSE_KINDS.indexOf(a.kind) - CAUSE_KINDS.indexOf(b.kind));
}
