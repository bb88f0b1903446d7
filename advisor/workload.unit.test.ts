// The choice for the whole workload from each query's trials: one index serving several queries
// over several serving one, every query it serves listed, and a budget of indexes or bytes.
import { describe, expect, it } from 'vitest';
import type { PlannedQuery, Recommendation } from '../shared/analysis.js';
import type { IndexCandidate } from './candidates.js';
import { chooseVerified } from './recommend.js';
import { chooseForWorkload, withSharedCandidates } from './workload.js';

const rec = (columns: string[], costBefore: number, costAfter: number, calls: number, pages = 100): Recommendation => ({
  createIndex: `CREATE INDEX ON public.orders (${columns.join(', ')})`,
  table: 'public.orders',
  method: 'btree',
  columns,
  include: [],
  predicate: null,
  costBefore,
  costAfter,
  savedPct: ((costBefore - costAfter) / costBefore) * 100,
  totalSaved: (costBefore - costAfter) * calls,
  estimatedPages: pages,
  estimatedBytes: pages * 8192,
});
const query = (hash: string, recommendations: Recommendation[], alternatives: Recommendation[]): PlannedQuery => ({
  hash,
  plan: null,
  cost: recommendations[0]?.costBefore ?? null,
  planShape: null,
  planAfter: null,
  recommendations,
  alternatives,
  error: null,
  indexesUsed: [],
  tablesUsed: [],
});

// `a = ?` is served by (a) or, nearly as well, by (a, b); `a = ? ORDER BY b` only by (a, b).
const a = rec(['a'], 1000, 10, 10, 50);
const ab = rec(['a', 'b'], 1000, 12, 10, 80);
const sorted = rec(['a', 'b'], 5000, 5, 10, 80);
const sortedByA = rec(['a'], 5000, 900, 10, 50);
const other = rec(['c'], 300, 3, 10, 200);
const WORKLOAD = [query('eq', [a], [a, ab]), query('eqSort', [sorted], [sorted, sortedByA]), query('other', [other], [other])];

describe('indexes chosen for the whole workload', () => {
  it('prefers one index serving two queries to one for each, listing both and their total saving', () => {
    const { indexes } = chooseForWorkload(WORKLOAD, {}, { knee: false });
    expect(indexes.map((i) => i.columns)).toEqual([['a', 'b'], ['c']]);
    expect(indexes[0]!.queries).toEqual(['eq', 'eqSort']);
    expect(indexes[0]!.totalSaved).toBe(ab.totalSaved + sorted.totalSaved);
  });

  it('keeps to a budget of indexes or of bytes', () => {
    expect(chooseForWorkload(WORKLOAD, { maxIndexes: 1 }).indexes.map((i) => i.columns)).toEqual([['a', 'b']]);
    // 80 pages do not fit in 60: the best that does is (a), then nothing else fits
    const small = chooseForWorkload(WORKLOAD, { maxBytes: 60 * 8192 }).indexes;
    expect(small.map((i) => i.columns)).toEqual([['a']]);
    expect(small[0]!.queries).toEqual(['eq', 'eqSort']);
  });

  it('refines a byte budget past one large index that saved best per byte but left too little room', () => {
    // (x) saves 600 in 60 pages; (y) and (z) 450 each in 50: both greedy passes take (x), then nothing fits in 40
    const x = rec(['x'], 100, 40, 10, 60);
    const y = rec(['y'], 100, 55, 10, 50);
    const z = rec(['z'], 100, 55, 10, 50);
    // 105 pages: the two estimates counted 5% larger, as every exact estimate is against a budget
    const { indexes, stop } = chooseForWorkload([query('qx', [x], [x]), query('qy', [y], [y]), query('qz', [z], [z])], { maxBytes: 105 * 8192 });
    expect(indexes.map((i) => i.columns)).toEqual([['y'], ['z']]);
    expect(stop).toMatchObject({ code: 'maxBytes', indexes: 2 });
  });

  it('leaves room for an exact estimate to be 5% short of the index built; an upper bound counts as it is', () => {
    const y = rec(['y'], 100, 55, 10, 50);
    const z = rec(['z'], 100, 55, 10, 50);
    const budget = { maxBytes: 100 * 8192 };
    expect(chooseForWorkload([query('qy', [y], [y]), query('qz', [z], [z])], budget).indexes).toHaveLength(1);
    const bound = (r: Recommendation) => ({ ...r, sizeUncertain: 'an expression without statistics' });
    const [yb, zb] = [bound(y), bound(z)];
    expect(chooseForWorkload([query('qy', [yb], [yb]), query('qz', [zb], [zb])], budget).indexes).toHaveLength(2);
  });

  it('fills the room a byte budget leaves with indexes saving a query less than 5%, by saving per byte', () => {
    // (big) saves 60% of q1 but does not fit; (d1) and (d2) save q2 and q3 3% each and fit together
    const big = rec(['big'], 1000, 400, 10, 500);
    const d1 = rec(['d1'], 1000, 970, 10, 10);
    const d2 = rec(['d2'], 1000, 970, 10, 10);
    const wide = rec(['wide'], 1000, 960, 10, 30);
    const results = [query('q1', [big], [big]), query('q2', [], [d1, wide]), query('q3', [], [d2, wide])];
    const budget = { maxBytes: 25 * 8192 };
    expect(chooseForWorkload(results, budget, { fill: false }).indexes).toEqual([]);
    const { indexes, savingCurve } = chooseForWorkload(results, budget);
    expect(indexes.map((i) => i.columns)).toEqual([['d1'], ['d2']]);
    expect(savingCurve.at(-1)!.cost).toBe(savingCurve[0]!.cost - d1.totalSaved - d2.totalSaved);
    // Without a byte budget they are not worth recommending
    expect(chooseForWorkload(results, {}, { knee: false }).indexes.map((i) => i.columns)).toEqual([['big']]);
  });

  it('adds, within a byte budget, what the planner says an index saves beside another, which no trial tried', async () => {
    const fact = rec(['fact'], 1000, 400, 10, 80);
    const dim = rec(['dim'], 1000, 970, 10, 2);
    const factForQ3 = rec(['fact'], 1000, 500, 10, 80);
    // q2 is served only by (fact) and (dim) together: a join its trials of one index never saw
    const results = [query('q1', [fact], [fact]), query('q2', [], []), query('q3', [factForQ3], [factForQ3, dim])];
    const planned = async (statements: string[]) => {
      const has = (r: Recommendation) => statements.includes(r.createIndex);
      return [has(fact) ? 4000 : 10_000, has(fact) && has(dim) ? 5000 : 10_000, has(fact) ? 5000 : has(dim) ? 9700 : 10_000];
    };
    const budget = { maxBytes: 90 * 8192 };
    expect(chooseForWorkload(results, budget).indexes.map((i) => i.columns)).toEqual([['fact']]);
    const { indexes, stopReason } = await chooseVerified(results, budget, planned);
    expect(indexes.map((i) => [i.columns, i.queries, i.totalSaved])).toEqual([
      [['fact'], ['q1', 'q3'], 11_000],
      [['dim'], ['q2'], 5000],
    ]);
    expect(stopReason.indexes).toBe(2);
  });

  it("counts a query's own pair of indexes together", () => {
    const second = { ...rec(['c'], 10, 2, 10), costBefore: 10 };
    const { indexes } = chooseForWorkload([query('pair', [a, second], [a])], {}, { knee: false });
    expect(indexes.map((i) => i.columns)).toEqual([['a'], ['c']]);
  });
});

describe('the saving curve', () => {
  const base = 1000 * 10 + 5000 * 10 + 300 * 10;
  it('has one point per step from no index, cumulative bytes and the cost after each step', () => {
    const { savingCurve } = chooseForWorkload(WORKLOAD, {}, { knee: false });
    expect(savingCurve).toEqual([
      { indexes: 0, bytes: 0, cost: base, createIndex: null },
      { indexes: 1, bytes: 80 * 8192, cost: base - ab.totalSaved - sorted.totalSaved, createIndex: ab.createIndex },
      { indexes: 2, bytes: 280 * 8192, cost: base - ab.totalSaved - sorted.totalSaved - other.totalSaved, createIndex: other.createIndex },
    ]);
  });

  it('stops at the knee without a budget: (c) saves 5% of the curve for 71% of its storage', () => {
    const { indexes, savingCurve, stop } = chooseForWorkload(WORKLOAD);
    expect(indexes.map((i) => i.columns)).toEqual([['a', 'b']]);
    expect(savingCurve).toHaveLength(3);
    expect(stop).toMatchObject({ code: 'knee', indexes: 1 });
    expect(stop.message).toMatch(/^Stopped at 1 of 2 indexes .* the other 1 would save 4\.7% more/);
  });

  it('says which budget stopped it', () => {
    expect(chooseForWorkload(WORKLOAD, { maxIndexes: 1 }).stop).toMatchObject({ code: 'maxIndexes', indexes: 1 });
    expect(chooseForWorkload(WORKLOAD, { maxBytes: 60 * 8192 }).stop).toMatchObject({ code: 'maxBytes', indexes: 1 });
    expect(chooseForWorkload(WORKLOAD, { maxBytes: 1e9 }).stop).toMatchObject({ code: 'noFurtherSaving', indexes: 3 });
  });
});

describe('candidates shared between queries', () => {
  const btree = (keys: string[], predicate: string | null = null): IndexCandidate => ({
    schema: 'public',
    table: 'orders',
    am: 'btree',
    keys,
    include: [],
    predicate,
  });
  it("tries another query's candidate on a query whose own key it extends, and no other", () => {
    const [eq, eqSort] = withSharedCandidates([[btree(['a'])], [btree(['a', 'b']), btree(['b', 'a']), btree(['a', 'b'], 'x IS NULL')]]);
    expect(eq!.map((c) => c.keys.join(','))).toEqual(['a', 'a,b']);
    expect(eqSort).toHaveLength(3);
  });
});
