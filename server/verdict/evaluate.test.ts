// The verdict's rules, one by one, on plain data: no PostgreSQL, no HTTP.
//
// The baseline is not chosen here. The caller (the verdict service that reads the store) picks the
// latest earlier run of the same repository and environment on the policy's comparison branch; for
// a run ON that branch this is its previous run on it. evaluateVerdict only receives that run's
// costs, so "a PR run against main" and "a main run against the previous main run" are the same
// call, and both are tested below with the baseline the caller would hand over.
import { describe, expect, it } from 'vitest';
import { defaultPolicy, mergePolicy, verdictSchema, type Policy, type PolicyPatch } from '../../shared/policy';
import {
  acknowledgementHolds,
  changePct,
  evaluateVerdict,
  pendingVerdict,
  unavailableVerdict,
  type BaselineInput,
  type EvaluateInput,
  type VerdictQuery,
} from './evaluate';

const H = {
  a: 'aaaaaaaaaaaaaaaa',
  b: 'bbbbbbbbbbbbbbbb',
  c: 'cccccccccccccccc',
  d: 'dddddddddddddddd',
  e: 'eeeeeeeeeeeeeeee',
  f: 'ffffffffffffffff',
};

const mainBaseline = (costs: Record<string, number | null>, meta: Partial<BaselineInput['meta']> = {}): BaselineInput => ({
  meta: { id: 'run_base', runId: '100', branch: 'main', createdAt: '2026-11-22T09:00:00.000Z', ...meta },
  costs: new Map(Object.entries(costs)),
});

const q = (hash: string, cost: number | null, extra: Partial<VerdictQuery> = {}): VerdictQuery => ({
  hash,
  formattedQuery: `SELECT * FROM t_${hash.slice(0, 1)} WHERE id = $1`,
  cost,
  recommendations: [],
  schemaNotes: [],
  ...extra,
});

const policyWith = (patch: PolicyPatch = {}): Policy => mergePolicy(defaultPolicy(), patch);

function verdict(partial: Partial<EvaluateInput> & Pick<EvaluateInput, 'queries'>) {
  const result = evaluateVerdict({
    baseline: null,
    policy: defaultPolicy(),
    acknowledgements: [],
    droppedIndexes: [],
    snapshotAt: '2026-11-22T10:00:00.000Z',
    analyzedAt: '2026-11-22T10:00:05.000Z',
    ...partial,
  });
  // every verdict is what the wire schema promises
  expect(verdictSchema.parse(result)).toEqual(result);
  return result;
}

const kinds = (v: ReturnType<typeof verdict>) => v.findings.map((f) => `${f.kind}:${f.hash.slice(0, 1)}:${f.severity}${f.acknowledged ? ':ack' : ''}`);

describe('cost_regression', () => {
  it('fails when the cost is above the baseline by more than the percentage and at least the minimum cost', () => {
    const v = verdict({ queries: [q(H.a, 1200)], baseline: mainBaseline({ [H.a]: 1000 }) });
    expect(v.status).toBe('fail');
    expect(v.findings).toEqual([
      {
        kind: 'cost_regression',
        severity: 'fail',
        hash: H.a,
        formattedQuery: 'SELECT * FROM t_a WHERE id = $1',
        cost: 1200,
        baselineCost: 1000,
        changePct: 20,
        recommendations: [],
        schemaNotes: [],
        acknowledged: false,
        plan: null,
        baselinePlan: null,
        planDiff: null,
        causes: [
          {
            kind: 'plan_choice',
            detail: "the schema the plan reads is the baseline's: the planner chose another plan, costing 1200 against the baseline's 1000 (20% apart)",
          },
        ],
        calls: null,
        baselineCalls: null,
        callSites: [],
        pairedWith: null,
      },
    ]);
    expect(v.summary).toEqual({ queries: 1, newQueries: 0, regressions: 1, needIndex: 0, lostIndex: 0 });
    expect(v.plannedOn).toBe('both planned on production as of 2026-11-22T10:00:00.000Z');
  });

  it('a rise of exactly the percentage, or less, passes', () => {
    expect(verdict({ queries: [q(H.a, 1100)], baseline: mainBaseline({ [H.a]: 1000 }) }).status).toBe('pass');
    expect(verdict({ queries: [q(H.a, 1099)], baseline: mainBaseline({ [H.a]: 1000 }) }).status).toBe('pass');
    expect(verdict({ queries: [q(H.a, 500)], baseline: mainBaseline({ [H.a]: 1000 }) }).status).toBe('pass');
    expect(verdict({ queries: [q(H.a, 1101)], baseline: mainBaseline({ [H.a]: 1000 }) }).status).toBe('fail');
  });

  it('minCost keeps cheap regressions quiet, however large the rise', () => {
    const v = verdict({ queries: [q(H.a, 99)], baseline: mainBaseline({ [H.a]: 9 }) });
    expect(v.status).toBe('pass');
    expect(v.findings).toEqual([]);
    // at the minimum itself it counts
    expect(verdict({ queries: [q(H.a, 100)], baseline: mainBaseline({ [H.a]: 9 }) }).summary.regressions).toBe(1);
    // and the minimum is the policy's
    expect(verdict({ queries: [q(H.a, 99)], baseline: mainBaseline({ [H.a]: 9 }), policy: policyWith({ minCost: 0 }) }).status).toBe('fail');
  });

  it('uses the policy percentage', () => {
    const queries = [q(H.a, 1400)];
    const baseline = mainBaseline({ [H.a]: 1000 });
    expect(verdict({ queries, baseline, policy: policyWith({ costRegressionPct: 50 }) }).status).toBe('pass');
    expect(verdict({ queries, baseline, policy: policyWith({ costRegressionPct: 0 }) }).status).toBe('fail');
  });

  it('needs both costs: an unplanned query or baseline cost is no regression', () => {
    expect(verdict({ queries: [q(H.a, null)], baseline: mainBaseline({ [H.a]: 1000 }) }).findings).toEqual([]);
    expect(verdict({ queries: [q(H.a, 5000)], baseline: mainBaseline({ [H.a]: null }) }).findings).toEqual([]);
    expect(verdict({ queries: [q(H.a, Number.NaN)], baseline: mainBaseline({ [H.a]: 1000 }) }).findings).toEqual([]);
  });

  it('from a baseline cost of 0, any cost of at least minCost regresses, with no percentage', () => {
    const v = verdict({ queries: [q(H.a, 150)], baseline: mainBaseline({ [H.a]: 0 }) });
    expect(v.findings.map((f) => [f.kind, f.changePct])).toEqual([['cost_regression', null]]);
  });

  it('severity is the policy condition', () => {
    const v = verdict({ queries: [q(H.a, 2000)], baseline: mainBaseline({ [H.a]: 1000 }), policy: policyWith({ conditions: { cost_regression: 'warn' } }) });
    expect(v.status).toBe('warn');
    expect(kinds(v)).toEqual(['cost_regression:a:warn']);
  });
});

describe('new_query_needs_index and new_query', () => {
  const recs = (...savedPcts: number[]) =>
    savedPcts.map((savedPct, i) => ({ createIndex: `CREATE INDEX ON public.t (c${i})`, costAfter: 100 - savedPct, savedPct }));

  it('a query not in the baseline whose best index saves at least minSavedPct fails, with the CREATE INDEX', () => {
    const v = verdict({
      queries: [q(H.a, 18_000, { recommendations: [{ createIndex: 'CREATE INDEX ON public.orders (customer_id)', costAfter: 12.5, savedPct: 99.9 }] })],
      baseline: mainBaseline({ [H.b]: 10 }),
    });
    expect(v.status).toBe('fail');
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]).toMatchObject({
      kind: 'new_query_needs_index',
      severity: 'fail',
      cost: 18_000,
      baselineCost: null,
      changePct: null,
      recommendations: [{ createIndex: 'CREATE INDEX ON public.orders (customer_id)', costAfter: 12.5, savedPct: 99.9 }],
    });
    expect(v.summary).toEqual({ queries: 1, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 });
  });

  it('the best of several recommendations decides, at the threshold inclusive', () => {
    expect(kinds(verdict({ queries: [q(H.a, 500, { recommendations: recs(10, 30) })], baseline: mainBaseline({}) }))).toEqual(['new_query_needs_index:a:fail']);
    expect(kinds(verdict({ queries: [q(H.a, 500, { recommendations: recs(10, 29.9) })], baseline: mainBaseline({}) }))).toEqual(['new_query:a:warn']);
  });

  it('a new query without a worthwhile index is new_query, a warning', () => {
    const v = verdict({ queries: [q(H.a, 40)], baseline: mainBaseline({}) });
    expect(v.status).toBe('warn');
    expect(kinds(v)).toEqual(['new_query:a:warn']);
    expect(v.summary.newQueries).toBe(1);
  });

  it('a query in the baseline is not new, whatever its recommendations', () => {
    const v = verdict({ queries: [q(H.a, 500, { recommendations: recs(90) })], baseline: mainBaseline({ [H.a]: 500 }) });
    expect(v.findings).toEqual([]);
    expect(v.status).toBe('pass');
  });

  it('with new_query_needs_index off, such a query is still reported as a new query', () => {
    const v = verdict({
      queries: [q(H.a, 500, { recommendations: recs(90) })],
      baseline: mainBaseline({}),
      policy: policyWith({ conditions: { new_query_needs_index: 'off' } }),
    });
    expect(kinds(v)).toEqual(['new_query:a:warn']);
  });

  it('a new query planned on a table only the run has carries its schema notes', () => {
    const note = 'public.invoices is new in this run: planned with default statistics (no production statistics)';
    const v = verdict({ queries: [q(H.a, 20, { schemaNotes: [note, note] })], baseline: mainBaseline({}) });
    expect(v.findings[0]!.schemaNotes).toEqual([note]);
  });

  it('without a baseline nothing is new or regressed, and the reason says so', () => {
    const v = verdict({ queries: [q(H.a, 18_000, { recommendations: recs(99) }), q(H.b, 5)], baseline: null });
    expect(v.status).toBe('pass');
    expect(v.findings).toEqual([]);
    expect(v.baseline).toBeNull();
    expect(v.reason).toMatch(/No earlier run of branch "main"/);
    expect(v.summary).toEqual({ queries: 2, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
  });
});

describe('changed_query (a query edited, paired by the analysis)', () => {
  const edited = (cost: number | null, pairedCost: number | null) =>
    q(H.b, cost, {
      formattedQuery: 'SELECT * FROM t_a WHERE id = $1 AND status = $2',
      pairedWith: {
        hash: H.a.toUpperCase(),
        formattedQuery: 'SELECT * FROM t_a WHERE id = $1',
        cost: pairedCost,
        plan: null,
        reason: 'its parse tree is close',
      },
    });

  it('is reported once, as changed with both texts and both costs, not as new', () => {
    const v = verdict({ queries: [edited(1050, 1000)], baseline: mainBaseline({ [H.a]: 1000 }) });
    expect(kinds(v)).toEqual(['changed_query:b:warn']);
    expect(v.findings[0]).toMatchObject({
      formattedQuery: 'SELECT * FROM t_a WHERE id = $1 AND status = $2',
      cost: 1050,
      baselineCost: 1000,
      changePct: 5,
      pairedWith: { hash: H.a, formattedQuery: 'SELECT * FROM t_a WHERE id = $1' },
      causes: [{ kind: 'query_changed', detail: "the query's text changed: its parse tree is close; it costs 1050 against the edited query's 1000" }],
    });
    expect(v.summary).toMatchObject({ newQueries: 0 });
    expect(
      verdict({ queries: [edited(1050, 1000)], baseline: mainBaseline({ [H.a]: 1000 }), policy: policyWith({ conditions: { changed_query: 'off' } }) })
        .findings,
    ).toEqual([]);
  });

  it('an edit that costs more than the threshold is a cost regression, its cause the edit', () => {
    const v = verdict({ queries: [edited(5000, 1000)], baseline: mainBaseline({ [H.a]: 1000 }) });
    expect(kinds(v)).toEqual(['cost_regression:b:fail']);
    expect(v.findings[0]!.pairedWith).toEqual({ hash: H.a, formattedQuery: 'SELECT * FROM t_a WHERE id = $1' });
    expect(v.findings[0]!.causes.map((c) => c.kind)).toEqual(['query_changed']);
  });

  it('without a baseline nothing is paired', () => {
    expect(kinds(verdict({ queries: [edited(5000, 1000)] }))).toEqual([]);
  });
});

describe('call_count_regression (N+1)', () => {
  const withCalls = (costs: Record<string, number | null>, calls: Record<string, number | null>): BaselineInput => ({
    ...mainBaseline(costs),
    calls: new Map(Object.entries(calls)),
  });

  it('warns when a query runs at least callRatio times as often as in the baseline and at least minCalls times', () => {
    const v = verdict({
      queries: [q(H.a, 10, { calls: 600 }), q(H.b, 10, { calls: 2 })],
      baseline: withCalls({ [H.a]: 10, [H.b]: 10 }, { [H.a]: 3, [H.b]: 2, [H.c]: 5 }),
    });
    expect(v.status).toBe('warn');
    expect(kinds(v)).toEqual(['call_count_regression:a:warn']);
    expect(v.findings[0]).toMatchObject({ calls: 600, baselineCalls: 3, cost: 10, baselineCost: 10 });
    // the run-level line: every query's calls, the baseline's own queries included (H.c left the run)
    expect(v.statements).toEqual({ run: 602, baseline: 10 });
  });

  it('below the ratio, below the minimum, or without a baseline count, nothing', () => {
    const run = (calls: number | null, before: number | null, patch: PolicyPatch = {}) =>
      kinds(verdict({ queries: [q(H.a, 10, { calls })], baseline: withCalls({ [H.a]: 10 }, { [H.a]: before }), policy: policyWith(patch) }));
    expect(run(149, 50)).toEqual([]);
    expect(run(150, 50)).toEqual(['call_count_regression:a:warn']);
    expect(run(49, 1)).toEqual([]);
    expect(run(50, 1)).toEqual(['call_count_regression:a:warn']);
    expect(run(600, null)).toEqual([]);
    expect(run(null, 3)).toEqual([]);
    expect(run(0, 0, { minCalls: 0 })).toEqual([]);
    expect(run(40, 4, { callRatio: 10, minCalls: 10 })).toEqual(['call_count_regression:a:warn']);
    expect(run(600, 3, { conditions: { call_count_regression: 'fail' } })).toEqual(['call_count_regression:a:fail']);
    expect(run(600, 3, { conditions: { call_count_regression: 'off' } })).toEqual([]);
  });

  it('a new query has no baseline calls to compare with: it is new, not a regression', () => {
    const v = verdict({ queries: [q(H.a, 10, { calls: 900 })], baseline: withCalls({}, { [H.b]: 1 }) });
    expect(kinds(v)).toEqual(['new_query:a:warn']);
    expect(v.findings[0]).toMatchObject({ calls: 900, baselineCalls: null });
  });

  it('a cost regression and a call count regression of one query are two findings; statements are null when nothing was counted', () => {
    const v = verdict({ queries: [q(H.a, 5000, { calls: 300 })], baseline: withCalls({ [H.a]: 100 }, { [H.a]: 1 }) });
    expect(kinds(v)).toEqual(['cost_regression:a:fail', 'call_count_regression:a:warn']);
    expect(verdict({ queries: [q(H.a, 10)], baseline: mainBaseline({ [H.a]: 10 }) }).statements).toEqual({ run: null, baseline: null });
    expect(verdict({ queries: [q(H.a, 10, { calls: 7 })] }).statements).toEqual({ run: 7, baseline: null });
  });
});

describe('call sites', () => {
  const site = (file: string) => ({ file, line: 3, controller: 'orders', action: 'index', tags: { file: `${file}:3` } });

  it("every finding carries its query's call sites", () => {
    const v = verdict({ queries: [q(H.a, 10, { callSites: [site('app/models/order.rb')] })], baseline: mainBaseline({}) });
    expect(v.findings[0]).toMatchObject({ kind: 'new_query', callSites: [site('app/models/order.rb')] });
  });

  it('ignoredCallSites: a query called only from matching files produces nothing; one also called from app code still does', () => {
    const policy = policyWith({ ignoredCallSites: ['spec/**', '**/fixtures/**'] });
    const queries = [
      q(H.a, 10, { callSites: [site('spec/support/seed.rb')] }),
      q(H.b, 10, { callSites: [site('test/fixtures/orders.rb'), site('spec/x.rb')] }),
      q(H.c, 10, { callSites: [site('spec/x.rb'), site('app/models/order.rb')] }),
      q(H.d, 10),
    ];
    const v = verdict({ queries, baseline: mainBaseline({}), policy });
    expect(kinds(v)).toEqual(['new_query:c:warn', 'new_query:d:warn']);
    // still counted as the run's queries
    expect(v.summary).toMatchObject({ queries: 4, newQueries: 4 });
  });
});

describe('lost_index', () => {
  it('a query whose production plan uses an index the run schema drops fails, named', () => {
    const v = verdict({
      queries: [
        q(H.a, 40_000, { indexesUsedInProduction: ['public.orders_customer_idx'] }),
        q(H.b, 30, { indexesUsedInProduction: ['public.orders_pkey'] }),
        q(H.c, 20),
      ],
      baseline: mainBaseline({ [H.a]: 40_000, [H.b]: 30, [H.c]: 20 }),
      droppedIndexes: ['public.orders_customer_idx'],
    });
    expect(v.status).toBe('fail');
    expect(kinds(v)).toEqual(['lost_index:a:fail']);
    expect(v.summary.lostIndex).toBe(1);
  });

  it('applies without a baseline too, and to new queries beside new_query', () => {
    const queries = [q(H.a, 40, { indexesUsedInProduction: ['public.x_idx'] })];
    expect(kinds(verdict({ queries, droppedIndexes: ['public.x_idx'] }))).toEqual(['lost_index:a:fail']);
    expect(kinds(verdict({ queries, droppedIndexes: ['public.x_idx'], baseline: mainBaseline({}) }))).toEqual(['lost_index:a:fail', 'new_query:a:warn']);
  });

  it('the regression a dropped index causes is listed beside it', () => {
    const v = verdict({
      queries: [q(H.a, 90_000, { indexesUsedInProduction: ['public.x_idx'] })],
      baseline: mainBaseline({ [H.a]: 8 }),
      droppedIndexes: ['public.x_idx'],
    });
    expect(kinds(v)).toEqual(['cost_regression:a:fail', 'lost_index:a:fail']);
  });
});

describe('plans and causes', () => {
  const indexScan = { 'Node Type': 'Index Scan', 'Total Cost': 8, 'Plan Rows': 40, 'Relation Name': 'orders', 'Index Name': 'x_idx' };
  const seqScan = { 'Node Type': 'Seq Scan', 'Total Cost': 90_000, 'Plan Rows': 40, 'Relation Name': 'orders' };

  it('a regression from a dropped index carries both plans, their diff, and the index as its cause', () => {
    const v = verdict({
      queries: [q(H.a, 90_000, { indexesUsedInProduction: ['public.x_idx'], plan: seqScan, baselinePlan: indexScan })],
      baseline: mainBaseline({ [H.a]: 8 }),
      droppedIndexes: ['public.x_idx', 'public.unrelated_idx'],
    });
    for (const finding of v.findings) {
      expect(finding).toMatchObject({ plan: seqScan, baselinePlan: indexScan });
      expect(finding.planDiff!.summary[0]).toBe('Index Scan using x_idx on orders -> Seq Scan on orders (rows 40)');
      expect(finding.causes).toEqual([
        { kind: 'schema', object: 'public.x_idx', detail: "index public.x_idx is dropped in this run; the baseline's plan reads it" },
      ]);
    }
  });

  it('an index only the baseline schema had (never in production) is named from the note the analysis wrote', () => {
    const v = verdict({
      queries: [q(H.a, 300, { schemaNotes: ['index public.notes_idx is dropped in this run'] })],
      baseline: mainBaseline({ [H.a]: 20 }),
    });
    expect(v.findings[0]!.causes).toEqual([
      { kind: 'schema', object: 'public.notes_idx', detail: "index public.notes_idx is dropped in this run; the baseline's plan reads it" },
    ]);
  });

  it('a plan reading a table only the run has is blamed on its missing statistics', () => {
    const v = verdict({
      queries: [q(H.a, 5000, { schemaNotes: ['public.order_notes is new in this run: no production statistics', 'index public.x is new in this run'] })],
      baseline: mainBaseline({ [H.a]: 100 }),
    });
    expect(v.findings[0]!.causes).toEqual([
      {
        kind: 'no_statistics',
        object: 'public.order_notes',
        detail: "public.order_notes is new in this run: no production statistics: planned with the planner's default estimates",
      },
    ]);
  });

  it('new queries have no causes, and no diff without a baseline plan', () => {
    const v = verdict({ queries: [q(H.a, 50, { plan: seqScan })], baseline: mainBaseline({}) });
    expect(v.findings[0]).toMatchObject({ kind: 'new_query', plan: seqScan, baselinePlan: null, planDiff: null, causes: [] });
  });

  it('without a baseline the verdict says only the run was planned on the snapshot', () => {
    expect(verdict({ queries: [] }).plannedOn).toBe('planned on production as of 2026-11-22T10:00:00.000Z');
    expect(verdict({ queries: [], snapshotAt: null }).plannedOn).toBeNull();
  });
});

describe('off and ignoredHashes', () => {
  const queries = [
    q(H.a, 5000, { indexesUsedInProduction: ['public.x_idx'] }),
    q(H.b, 900, { recommendations: [{ createIndex: 'CREATE INDEX ON public.t (b)', costAfter: 9, savedPct: 99 }] }),
    q(H.c, 30),
  ];
  const baseline = mainBaseline({ [H.a]: 1000 });
  const droppedIndexes = ['public.x_idx'];

  it('with the defaults every rule fires', () => {
    expect(kinds(verdict({ queries, baseline, droppedIndexes }))).toEqual([
      'cost_regression:a:fail',
      'lost_index:a:fail',
      'new_query_needs_index:b:fail',
      'new_query:c:warn',
    ]);
  });

  it('a condition set to off produces no finding', () => {
    const policy = policyWith({ conditions: { cost_regression: 'off', lost_index: 'off', new_query_needs_index: 'off', new_query: 'off' } });
    const v = verdict({ queries, baseline, droppedIndexes, policy });
    expect(v.findings).toEqual([]);
    expect(v.status).toBe('pass');
    // the summary still counts the data
    expect(v.summary).toEqual({ queries: 3, newQueries: 2, regressions: 0, needIndex: 0, lostIndex: 0 });
  });

  it('only warnings left: warn', () => {
    const policy = policyWith({ conditions: { cost_regression: 'warn', lost_index: 'off', new_query_needs_index: 'warn' } });
    expect(verdict({ queries, baseline, droppedIndexes, policy }).status).toBe('warn');
  });

  it('an ignored hash produces no finding of any kind', () => {
    const policy = policyWith({ ignoredHashes: [H.a.toUpperCase(), H.b] });
    const v = verdict({ queries, baseline, droppedIndexes, policy });
    expect(kinds(v)).toEqual(['new_query:c:warn']);
    expect(v.status).toBe('warn');
    expect(v.policy.ignoredHashes).toEqual([H.a, H.b]);
  });
});

describe('acknowledgements', () => {
  const queries = [q(H.a, 18_000, { recommendations: [{ createIndex: 'CREATE INDEX ON public.orders (customer_id)', costAfter: 12, savedPct: 99.9 }] })];
  const baseline = mainBaseline({});

  it('an acknowledged finding is still listed, does not count, and flips fail to pass', () => {
    expect(verdict({ queries, baseline }).status).toBe('fail');
    const v = verdict({ queries, baseline, acknowledgements: [{ hash: H.a, cost: 18_000 }] });
    expect(v.status).toBe('pass');
    expect(kinds(v)).toEqual(['new_query_needs_index:a:fail:ack']);
    expect(v.summary.needIndex).toBe(1);
  });

  it('only the acknowledged query stops counting', () => {
    const v = verdict({ queries: [...queries, q(H.b, 30)], baseline, acknowledgements: [{ hash: H.a, cost: 18_000 }] });
    expect(v.status).toBe('warn');
    expect(kinds(v)).toEqual(['new_query_needs_index:a:fail:ack', 'new_query:b:warn']);
  });

  it('holds while the cost moves within the percentage; a later jump beyond it re-opens the finding', () => {
    const acknowledgements = [{ hash: H.a, cost: 18_000 }];
    const at = (cost: number) => verdict({ queries: [{ ...queries[0]!, cost }], baseline, acknowledgements });
    expect(at(19_800).status).toBe('pass'); // +10%: still within
    expect(at(19_801).status).toBe('fail'); // beyond +10%
    expect(kinds(at(19_801))).toEqual(['new_query_needs_index:a:fail']);
    expect(at(16_200).status).toBe('pass'); // -10%
    expect(at(16_199).status).toBe('fail'); // a move down beyond the percentage re-opens it too
    // the percentage is the policy's
    const wide = policyWith({ costRegressionPct: 50 });
    expect(verdict({ queries: [{ ...queries[0]!, cost: 25_000 }], baseline, acknowledgements, policy: wide }).status).toBe('pass');
  });

  it('an acknowledged cost regression re-opens when the query gets slower again', () => {
    const acknowledgements = [{ hash: H.b, cost: 2000 }];
    const base = mainBaseline({ [H.b]: 1000 });
    expect(verdict({ queries: [q(H.b, 2000)], baseline: base, acknowledgements }).status).toBe('pass');
    expect(verdict({ queries: [q(H.b, 2500)], baseline: base, acknowledgements }).status).toBe('fail');
  });

  it('with an unknown cost on either side there is no movement to measure: it holds', () => {
    expect(acknowledgementHolds(null, 5000, 10)).toBe(true);
    expect(acknowledgementHolds(5000, null, 10)).toBe(true);
    expect(acknowledgementHolds(0, 0, 10)).toBe(true);
    expect(acknowledgementHolds(0, 1, 10)).toBe(false);
    const v = verdict({ queries: [q(H.c, null)], baseline, acknowledgements: [{ hash: H.c, cost: 400 }] });
    expect(kinds(v)).toEqual(['new_query:c:warn:ack']);
    expect(v.status).toBe('pass');
  });
});

describe('status', () => {
  it('pass with no finding, warn with only warnings, fail with any failure', () => {
    const baseline = mainBaseline({ [H.a]: 10 });
    expect(verdict({ queries: [q(H.a, 10)], baseline }).status).toBe('pass');
    expect(verdict({ queries: [q(H.a, 10), q(H.b, 10)], baseline }).status).toBe('warn');
    expect(verdict({ queries: [q(H.a, 1000), q(H.b, 10)], baseline }).status).toBe('fail');
  });

  it('an empty run passes', () => {
    const v = verdict({ queries: [], baseline: mainBaseline({ [H.a]: 1 }) });
    expect(v.status).toBe('pass');
    expect(v.reason).toBeNull();
    expect(v.summary.queries).toBe(0);
  });

  it('carries the baseline, the times and the policy it was judged by', () => {
    const policy = policyWith({ minCost: 5 });
    const v = verdict({ queries: [q(H.a, 10)], baseline: mainBaseline({ [H.a]: 10 }), policy });
    expect(v.baseline).toEqual({ id: 'run_base', runId: '100', branch: 'main', createdAt: '2026-11-22T09:00:00.000Z' });
    expect(v.snapshotAt).toBe('2026-11-22T10:00:00.000Z');
    expect(v.analyzedAt).toBe('2026-11-22T10:00:05.000Z');
    expect(v.policy).toEqual(policy);
  });

  it('refuses a query listed twice (the store has one row per run and hash)', () => {
    expect(() => verdict({ queries: [q(H.a, 1), q(H.a, 2)] })).toThrow(/listed twice/);
  });
});

describe('a run on the comparison branch vs its previous run', () => {
  // The caller found run 101 on main; its baseline is run 100 on main, the one before it.
  const previousMain = mainBaseline({ [H.a]: 1000, [H.b]: 50 }, { id: 'run_100', runId: '100' });

  it('the same queries at the same costs pass', () => {
    const v = verdict({ queries: [q(H.a, 1000), q(H.b, 50)], baseline: previousMain });
    expect(v.status).toBe('pass');
    expect(v.baseline?.id).toBe('run_100');
  });

  it('what main itself added or slowed down is reported like a PR would be', () => {
    const v = verdict({ queries: [q(H.a, 3000), q(H.b, 50), q(H.c, 10)], baseline: previousMain });
    expect(kinds(v)).toEqual(['cost_regression:a:fail', 'new_query:c:warn']);
  });

  it('the comparison branch is only echoed: another branch name changes nothing here', () => {
    const policy = policyWith({ comparisonBranch: 'release/2026.11' });
    const v = verdict({ queries: [q(H.a, 3000)], baseline: mainBaseline({ [H.a]: 1000 }, { branch: 'release/2026.11' }), policy });
    expect(v.status).toBe('fail');
    expect(v.baseline?.branch).toBe('release/2026.11');
    expect(v.policy.comparisonBranch).toBe('release/2026.11');
  });
});

describe('determinism', () => {
  // A seeded shuffle, so a failure can be replayed.
  function shuffled<T>(items: readonly T[], seed: number): T[] {
    const out = [...items];
    let s = seed;
    for (let i = out.length - 1; i > 0; i--) {
      s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
      const j = s % (i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  const hashes = Array.from({ length: 60 }, (_, i) => i.toString(16).padStart(16, '0'));
  const queries = hashes.map((hash, i) =>
    q(hash, i % 7 === 0 ? null : (i % 5) * 1000, {
      recommendations: i % 3 === 0 ? [{ createIndex: `CREATE INDEX ON public.t${i} (c)`, costAfter: 1, savedPct: 40 + (i % 50) }] : [],
      indexesUsedInProduction: i % 11 === 0 ? [`public.idx_${i % 2}`] : [],
      schemaNotes: i % 13 === 0 ? [`note ${i}`] : [],
    }),
  );
  const baselineEntries: [string, number | null][] = hashes.filter((_, i) => i % 2 === 0).map((hash, i) => [hash, i % 9 === 0 ? null : 500]);
  const input = (seed: number): EvaluateInput => ({
    queries: shuffled(queries, seed),
    baseline: { meta: mainBaseline({}).meta, costs: new Map(shuffled(baselineEntries, seed + 1)) },
    policy: policyWith({ ignoredHashes: shuffled([hashes[4]!, hashes[9]!, hashes[22]!], seed + 2) }),
    acknowledgements: shuffled(
      hashes.filter((_, i) => i % 4 === 1).map((hash) => ({ hash, cost: 3000 })),
      seed + 3,
    ),
    droppedIndexes: shuffled(['public.idx_0', 'public.unused_idx'], seed + 4),
    snapshotAt: '2026-11-22T10:00:00.000Z',
    analyzedAt: '2026-11-22T10:00:05.000Z',
  });

  it('the same data in any order gives the same verdict, byte for byte', () => {
    const first = JSON.stringify(evaluateVerdict(input(1)));
    for (let seed = 2; seed < 40; seed++) expect(JSON.stringify(evaluateVerdict(input(seed)))).toBe(first);
    const v = JSON.parse(first);
    // every rule has something to say in this data set
    expect(new Set(v.findings.map((f: { kind: string }) => f.kind))).toEqual(new Set(['cost_regression', 'lost_index', 'new_query_needs_index', 'new_query']));
    expect(v.findings.some((f: { acknowledged: boolean }) => f.acknowledged)).toBe(true);
  });

  it('findings are sorted by severity, kind, cost (highest first, unknown last), hash', () => {
    const v = evaluateVerdict(input(7));
    const order = ['cost_regression', 'lost_index', 'new_query_needs_index', 'new_query'];
    for (let i = 1; i < v.findings.length; i++) {
      const a = v.findings[i - 1]!;
      const b = v.findings[i]!;
      const key = (f: typeof a) => [f.severity === 'fail' ? 0 : 1, order.indexOf(f.kind), -(f.cost ?? -Infinity)] as const;
      const [ka, kb] = [key(a), key(b)];
      const cmp = ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2] || (a.hash < b.hash ? -1 : 1);
      expect(cmp, `${a.kind}/${a.hash} before ${b.kind}/${b.hash}`).toBeLessThan(0);
    }
  });

  it('does not change its input', () => {
    const given = input(3);
    const copy = structuredClone({ ...given, baseline: { ...given.baseline!, costs: [...given.baseline!.costs] } });
    evaluateVerdict(given);
    expect({ ...given, baseline: { ...given.baseline!, costs: [...given.baseline!.costs] } }).toEqual(copy);
  });
});

describe('unavailable and pending', () => {
  it('unavailable carries its reason and the policy, and never blocks', () => {
    const v = unavailableVerdict('The repository acme/web is not linked to an environment', defaultPolicy());
    expect(verdictSchema.parse(v)).toEqual(v);
    expect(v).toMatchObject({ status: 'unavailable', reason: 'The repository acme/web is not linked to an environment', baseline: null, findings: [] });
    expect(v.summary).toEqual({ queries: 0, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 });
  });

  it('pending says how far the analysis is', () => {
    const v = pendingVerdict({
      policy: defaultPolicy(),
      queries: 500,
      progress: { done: 12, total: 50 },
      baseline: mainBaseline({}).meta,
      snapshotAt: '2026-11-22T10:00:00.000Z',
    });
    expect(verdictSchema.parse(v)).toEqual(v);
    expect(v).toMatchObject({ status: 'pending', reason: 'Analyzing: 12 of 50 queries planned', analyzedAt: null, findings: [] });
    expect(v.summary.queries).toBe(500);
    expect(v.baseline?.id).toBe('run_base');
    expect(pendingVerdict({ policy: defaultPolicy() }).reason).toBe('Waiting for the analysis of this run');
  });
});

describe('changePct', () => {
  it('rounds to a tenth and has no value from 0 or an unknown cost', () => {
    expect(changePct(1000, 1234.56)).toBe(23.5);
    expect(changePct(1000, 900)).toBe(-10);
    expect(changePct(0, 10)).toBeNull();
    expect(changePct(null, 10)).toBeNull();
    expect(changePct(10, null)).toBeNull();
  });
});

describe('schema differences that could not be applied', () => {
  it('are listed on the verdict as they are, without changing its status', () => {
    const notes = ['public.orders.total changes type from integer to bigint in this run: not applied'];
    const result = verdict({ queries: [q(H.a, 50)], baseline: mainBaseline({ [H.a]: 50 }), schemaNotes: notes });
    expect(result.schemaNotes).toEqual(notes);
    expect(result.status).toBe('pass');
    expect(verdict({ queries: [q(H.a, 50)], baseline: mainBaseline({ [H.a]: 50 }) }).schemaNotes).toEqual([]);
  });
});
