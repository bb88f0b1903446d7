// The advisor's workload choice against Extend (extend.ts) at budgets from 1% to 150% of the data,
// both scored with the same what-if cost on the same shadow (whatif-cost.ts); and the advisor's
// saving curve with the what-if cost of each of its points.
import { analyzeQueries, chooseIndexes, chooseVerified, type LiveCandidate, type QueryInput, type WhatIf } from '../../advisor/index.js';
import { candidateKey, candidateTarget } from '../../advisor/candidates.js';
import { extend, extendCandidates } from './extend.js';
import type { Report } from './report.js';
import { whatIfCost, type WhatIfCost } from './whatif-cost.js';

export const BUDGETS_PCT = [1, 2.5, 5, 10, 15, 20, 30, 50, 75, 100, 150];

export interface SelectionSummary {
  label: string;
  meanRegret: number;
  worstRegret: number;
  worse: number;
  better: number;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
const points = (n: number) => `${n >= 0 ? '+' : ''}${(n * 100).toFixed(2)}`;
const share = (n: number) => `${(n * 100).toFixed(2)}%`;
const ms = (n: number) => (n < 10 ? `${n.toFixed(2)} ms` : n < 10_000 ? `${n.toFixed(0)} ms` : `${(n / 1000).toFixed(1)} s`);

export interface SelectionOptions {
  /** Budgets in percent of the data (BUDGETS_PCT when not given). */
  budgets?: number[];
  /** Also print, per budget, both chosen sets and the queries whose costs differ between them. */
  detail?: boolean;
}

/** Plans `queries` with the advisor, then compares its choice with Extend's at every budget; prints both and the curve. */
export async function compareSelection(
  report: Report,
  label: string,
  connectionString: string,
  queries: QueryInput[],
  dataBytes: number,
  options: SelectionOptions = {},
): Promise<SelectionSummary> {
  let summary: SelectionSummary | undefined;
  const started = performance.now();
  let ranAt = 0;
  await analyzeQueries({
    connectionString,
    queries,
    options: {
      whatIf: {
        extra: extendCandidates,
        run: async (w) => {
          ranAt = performance.now();
          summary = await compare(
            report,
            label,
            w,
            queries.map((q) => q.calls ?? 1),
            dataBytes,
            ranAt - started,
            options,
          );
        },
      },
    },
  });
  return summary!;
}

async function compare(
  report: Report,
  label: string,
  w: WhatIf,
  calls: number[],
  dataBytes: number,
  analysisMs: number,
  options: SelectionOptions,
): Promise<SelectionSummary> {
  const { print, table } = report;
  const bytesOf = (c: LiveCandidate) => c.pages * 8192;
  const live = new Map(w.live.map((c) => [candidateKey(c), c]));
  const byStatement = new Map(w.live.map((c) => [`CREATE INDEX ON ${candidateTarget(c)}`, c]));
  const asLive = (statements: string[]) => statements.map((s) => byStatement.get(s)).filter((c): c is LiveCandidate => !!c);
  const shared = whatIfCost(w, calls);
  const base = await shared([]);

  const rows: (string | number)[][] = [];
  const regrets: number[] = [];
  const details: string[] = [];
  for (const pct of options.budgets ?? BUDGETS_PCT) {
    const maxBytes = Math.floor((dataBytes * pct) / 100);
    // Each selection on a what-if cache of its own: its time includes every plan it asks for.
    const oursPlans = whatIfCost(w, calls, { byColumns: true });
    let t = performance.now();
    const ours = asLive(
      (
        await chooseVerified(
          w.results,
          { maxBytes },
          Object.assign((statements: string[]) => oursPlans.perQuery(asLive(statements)), { plans: oursPlans.plans }),
        )
      ).indexes.map((i) => i.createIndex),
    );
    const oursMs = performance.now() - t;
    const oursCost = (await shared(ours)) / base;
    const fresh = whatIfCost(w, calls, { byColumns: true });
    t = performance.now();
    const theirs = await extend({ candidatesOf: w.candidatesOf, live, bytesOf, workloadCost: fresh, maxBytes });
    const theirsMs = performance.now() - t;
    const theirsCost = (await shared(theirs)) / base;
    const regret = oursCost - theirsCost;
    regrets.push(regret);
    const size = (set: LiveCandidate[]) => set.reduce((n, c) => n + bytesOf(c), 0);
    if (options.detail) details.push(...(await differences(`${pct}%`, w, shared, base, { ours, theirs }, bytesOf)));
    rows.push([
      `${pct}%`,
      mb(maxBytes),
      `${ours.length} / ${mb(size(ours))}`,
      share(oursCost),
      `${theirs.length} / ${mb(size(theirs))}`,
      share(theirsCost),
      points(regret),
      `${ms(oursMs)} (${oursPlans.plans()} plans)`,
      `${ms(theirsMs)} (${fresh.plans()} plans)`,
    ]);
  }
  const meanRegret = regrets.reduce((n, r) => n + r, 0) / regrets.length;
  const worstRegret = Math.max(...regrets);
  print(`### ${label}: the advisor's choice vs Extend, same what-if cost`);
  print();
  print(
    `Data: ${mb(dataBytes)}. ${w.results.length} queries; ${w.live.length} candidates built in the shadow. Relative cost: the workload's what-if cost (Σ cost × calls) with the chosen indexes over that with none (${base.toExponential(3)}). Regret: the advisor's relative cost minus Extend's, in points (negative: the advisor is ahead). The advisor's time is its choice from the queries' trials with the plans that verify and refine it (recommend.ts chooseVerified, planned-refinement.ts); planning those trials took ${ms(analysisMs)} for the whole analysis, once for every budget.`,
  );
  print();
  table(
    ['budget', 'bytes', 'advisor: indexes / size', 'advisor cost', 'Extend: indexes / size', 'Extend cost', 'regret (points)', 'advisor time', 'Extend time'],
    rows,
  );
  const worse = regrets.filter((r) => r > 1e-4).length;
  const better = regrets.filter((r) => r < -1e-4).length;
  print(
    `Mean regret ${points(meanRegret)} points, worst ${points(worstRegret)}; the advisor is ahead at ${better} budgets, behind at ${worse}, even at ${regrets.length - worse - better}.`,
  );
  print();
  for (const line of details) print(line);

  // The saving curve the page shows, with the what-if cost of each point beside the choice's own.
  const curve = chooseIndexes(w.results);
  const curveRows: (string | number)[][] = [];
  const chosenSoFar: string[] = [];
  for (const p of curve.savingCurve) {
    if (p.createIndex) chosenSoFar.push(p.createIndex);
    curveRows.push([
      p.indexes === curve.stopReason.indexes ? `**${p.indexes}** (chosen)` : p.indexes,
      mb(p.bytes),
      share(p.cost / curve.savingCurve[0]!.cost),
      share((await shared(asLive(chosenSoFar))) / base),
      p.createIndex ? `\`${p.createIndex.replace(/^CREATE INDEX ON /, '')}\`` : '–',
    ]);
  }
  print(`### ${label}: the saving curve (no budget)`);
  print();
  table(['indexes', 'storage', "cost, the choice's estimate", 'cost, what-if', 'index added'], curveRows);
  print(curve.stopReason.message);
  print();
  return { label, meanRegret, worstRegret, worse, better };
}

/** Both sets at one budget, and each query whose what-if cost differs between them (in points of the workload's cost). */
async function differences(
  budget: string,
  w: WhatIf,
  cost: WhatIfCost,
  base: number,
  sets: { ours: LiveCandidate[]; theirs: LiveCandidate[] },
  bytesOf: (c: LiveCandidate) => number,
): Promise<string[]> {
  // Marked †: an index no query's trials tried, which the advisor's choice cannot pick.
  const tried = new Set(w.results.flatMap((r) => [...r.recommendations, ...(r.alternatives ?? [])].map((x) => x.createIndex)));
  const name = (c: LiveCandidate) => `${candidateTarget(c)} (${mb(bytesOf(c))})${tried.has(`CREATE INDEX ON ${candidateTarget(c)}`) ? '' : ' †'}`;
  const none = await cost.perQuery([]);
  const ours = await cost.perQuery(sets.ours);
  const theirs = await cost.perQuery(sets.theirs);
  const lines = [
    `#### At ${budget}`,
    '',
    `- advisor: ${sets.ours.map(name).join(', ') || 'none'}`,
    `- Extend: ${sets.theirs.map(name).join(', ') || 'none'}`,
    '',
  ];
  for (const [i, r] of w.results.entries()) {
    if (Math.abs(ours[i]! - theirs[i]!) / base < 1e-6) continue;
    lines.push(`- ${r.hash}: none ${share(none[i]! / base)}, advisor ${share(ours[i]! / base)}, Extend ${share(theirs[i]! / base)}`);
  }
  lines.push('');
  return lines;
}
