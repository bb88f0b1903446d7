// The verdict policy's zod layer: defaults, bounds, partial updates merged onto the
// current policy, and messages a person can act on.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  acknowledgeInput,
  acknowledgementSchema,
  branchNameProblem,
  DEFAULT_POLICY,
  defaultPolicy,
  mergePolicy,
  noteSchema,
  policyPatchSchema,
  policySchema,
  updatePolicyInput,
  verdictSchema,
} from './policy';

/** The messages of a failed parse, each with its path. */
function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const HASH = '0123456789abcdef';

describe('defaults', () => {
  it("are the issue's", () => {
    expect(defaultPolicy()).toEqual({
      comparisonBranch: 'main',
      costRegressionPct: 10,
      minCost: 100,
      minSavedPct: 30,
      callRatio: 3,
      minCalls: 50,
      conditions: {
        cost_regression: 'fail',
        new_query_needs_index: 'fail',
        lost_index: 'fail',
        changed_query: 'warn',
        new_query: 'warn',
        call_count_regression: 'warn',
      },
      ignoredHashes: [],
      ignoredCallSites: [],
    });
    expect(defaultPolicy()).toEqual(DEFAULT_POLICY);
  });

  it('fill in what a stored policy lacks, field by field and condition by condition', () => {
    expect(policySchema.parse({ minCost: 5, conditions: { new_query: 'off' } })).toEqual({
      ...DEFAULT_POLICY,
      minCost: 5,
      conditions: { ...DEFAULT_POLICY.conditions, new_query: 'off' },
    });
  });

  it('are fresh copies: changing one does not change the next', () => {
    const a = defaultPolicy();
    a.conditions.new_query = 'off';
    a.ignoredHashes.push(HASH);
    expect(defaultPolicy().conditions.new_query).toBe('warn');
    expect(defaultPolicy().ignoredHashes).toEqual([]);
  });
});

describe('bounds', () => {
  it('percentages: cost regression 0..10000, saved 0..100; minCost >= 0', () => {
    expect(policySchema.parse({ costRegressionPct: 0, minSavedPct: 0, minCost: 0 })).toMatchObject({ costRegressionPct: 0, minSavedPct: 0, minCost: 0 });
    expect(policySchema.parse({ costRegressionPct: 10_000, minSavedPct: 100, minCost: 1e12 })).toMatchObject({ costRegressionPct: 10_000, minSavedPct: 100 });
    expect(policySchema.parse({ costRegressionPct: 12.5 }).costRegressionPct).toBe(12.5);
    expect(problems(policySchema, { costRegressionPct: -1 })).toEqual(['costRegressionPct: Cost regression percentage must be at least 0']);
    expect(problems(policySchema, { costRegressionPct: 10_001 })).toEqual(['costRegressionPct: Cost regression percentage must be at most 10000']);
    expect(problems(policySchema, { minSavedPct: 101 })).toEqual(['minSavedPct: Minimum saved percentage must be at most 100']);
    expect(problems(policySchema, { minCost: -0.5 })).toEqual(['minCost: Minimum cost must be at least 0']);
    expect(problems(policySchema, { minCost: Number.POSITIVE_INFINITY })).toHaveLength(1);
    expect(problems(policySchema, { minCost: Number.NaN })).toEqual(['minCost: Minimum cost must be a number']);
  });

  it('call ratio 1..1000, minimum calls a whole number >= 0 (a stored policy without them reads the defaults)', () => {
    expect(policySchema.parse({ costRegressionPct: 5 })).toMatchObject({ callRatio: 3, minCalls: 50 });
    expect(policySchema.parse({ callRatio: 1, minCalls: 0 })).toMatchObject({ callRatio: 1, minCalls: 0 });
    expect(policySchema.parse({ callRatio: 2.5, minCalls: 1_000_000 })).toMatchObject({ callRatio: 2.5, minCalls: 1_000_000 });
    expect(problems(policySchema, { callRatio: 0.5 })).toEqual(['callRatio: Call ratio must be at least 1']);
    expect(problems(policySchema, { callRatio: 1001 })).toEqual(['callRatio: Call ratio must be at most 1000']);
    expect(problems(policySchema, { minCalls: -1 })).toEqual(['minCalls: Minimum calls must be at least 0']);
    expect(problems(policySchema, { minCalls: 2.5 })).toEqual(['minCalls: Minimum calls must be a whole number']);
    expect(problems(policyPatchSchema, { callRatio: '3' })).toEqual(['callRatio: Call ratio must be a number']);
    expect(mergePolicy(defaultPolicy(), { callRatio: 10, conditions: { call_count_regression: 'fail' } })).toMatchObject({
      callRatio: 10,
      minCalls: 50,
      conditions: { call_count_regression: 'fail', new_query: 'warn' },
    });
    expect(problems(policySchema, { conditions: { call_count_regression: 'error' } })).toEqual([
      'conditions.call_count_regression: Condition call_count_regression must be "fail", "warn" or "off"',
    ]);
  });

  it('ignored call sites are glob patterns, trimmed, each once, sorted, one line each, at most 100', () => {
    expect(policySchema.parse({ ignoredCallSites: [' spec/** ', '**/fixtures/**', 'spec/**'] }).ignoredCallSites).toEqual(['**/fixtures/**', 'spec/**']);
    expect(problems(policySchema, { ignoredCallSites: [''] })).toEqual(['ignoredCallSites.0: An ignored call site pattern must not be empty']);
    expect(problems(policySchema, { ignoredCallSites: ['a\nb'] })).toEqual([
      'ignoredCallSites.0: An ignored call site pattern must be one line without control characters',
    ]);
    expect(problems(policySchema, { ignoredCallSites: ['x'.repeat(201)] })).toEqual([
      'ignoredCallSites.0: An ignored call site pattern must be at most 200 characters',
    ]);
    expect(problems(policySchema, { ignoredCallSites: Array.from({ length: 101 }, (_, i) => `p${i}/**`) })).toEqual([
      'ignoredCallSites: At most 100 call site patterns may be ignored',
    ]);
    expect(mergePolicy(mergePolicy(defaultPolicy(), { ignoredCallSites: ['spec/**'] }), { ignoredCallSites: [] }).ignoredCallSites).toEqual([]);
  });

  it('numbers must be numbers, also at the top level of an update (no "10" for 10)', () => {
    expect(problems(policyPatchSchema, { costRegressionPct: '10' })).toEqual(['costRegressionPct: Cost regression percentage must be a number']);
    expect(problems(updatePolicyInput, { id: 'env_1', minCost: true })).toEqual(['minCost: Minimum cost must be a number']);
  });

  it('conditions are fail, warn or off', () => {
    expect(problems(policySchema, { conditions: { lost_index: 'error' } })).toEqual([
      'conditions.lost_index: Condition lost_index must be "fail", "warn" or "off"',
    ]);
  });

  it('the comparison branch is one line git would accept as a branch name', () => {
    for (const ok of ['main', 'master', 'release/2026.11', 'feature/ünïcode', 'v1.2-rc_3'])
      expect(policySchema.parse({ comparisonBranch: ok }).comparisonBranch).toBe(ok);
    expect(policySchema.parse({ comparisonBranch: '  main  ' }).comparisonBranch).toBe('main');
    expect(problems(policySchema, { comparisonBranch: '' })).toEqual(['comparisonBranch: Comparison branch must not be empty']);
    expect(problems(policySchema, { comparisonBranch: 'ma\nin' })).toEqual(['comparisonBranch: Comparison branch must be one line without control characters']);
    expect(problems(policySchema, { comparisonBranch: 'a\u0000b' })).toEqual([
      'comparisonBranch: Comparison branch must be one line without control characters',
    ]);
    expect(problems(policySchema, { comparisonBranch: 'x'.repeat(256) })).toEqual(['comparisonBranch: Comparison branch must be at most 255 characters']);
    for (const bad of [
      'my branch',
      'a..b',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[b',
      'a\\b',
      '-main',
      '/main',
      'main/',
      'a//b',
      'main.',
      '.hidden',
      'a/.b',
      'x.lock',
      '@',
      'a@{1}',
    ]) {
      expect(branchNameProblem(bad), bad).toBeDefined();
      expect(problems(policySchema, { comparisonBranch: bad }), bad).toHaveLength(1);
    }
  });

  it('ignored hashes are fingerprints, lowercased, each once, sorted, at most 1000', () => {
    expect(policySchema.parse({ ignoredHashes: ['FEDCBA9876543210', HASH, 'fedcba9876543210'] }).ignoredHashes).toEqual([HASH, 'fedcba9876543210']);
    expect(problems(policySchema, { ignoredHashes: ['select 1'] })).toEqual(['ignoredHashes.0: Hash must be a libpg_query fingerprint: 16 hexadecimal digits']);
    expect(problems(policySchema, { ignoredHashes: HASH })).toEqual(['ignoredHashes: Ignored hashes must be a list of query hashes']);
    const many = Array.from({ length: 1001 }, (_, i) => i.toString(16).padStart(16, '0'));
    expect(problems(policySchema, { ignoredHashes: many })).toEqual(['ignoredHashes: At most 1000 hashes may be ignored']);
    expect(policySchema.parse({ ignoredHashes: many.slice(0, 1000) }).ignoredHashes).toHaveLength(1000);
  });
});

describe('updates', () => {
  it('a partial update is deep-merged onto the current policy', () => {
    const current = mergePolicy(defaultPolicy(), { minCost: 50, conditions: { new_query: 'off' }, ignoredHashes: [HASH] });
    const patch = policyPatchSchema.parse({ costRegressionPct: 25, conditions: { lost_index: 'warn' } });
    expect(mergePolicy(current, patch)).toEqual({
      comparisonBranch: 'main',
      costRegressionPct: 25,
      minCost: 50,
      minSavedPct: 30,
      callRatio: 3,
      minCalls: 50,
      conditions: {
        cost_regression: 'fail',
        new_query_needs_index: 'fail',
        lost_index: 'warn',
        changed_query: 'warn',
        new_query: 'off',
        call_count_regression: 'warn',
      },
      ignoredHashes: [HASH],
      ignoredCallSites: [],
    });
  });

  it('an empty update changes nothing; the current policy is not modified', () => {
    const current = defaultPolicy();
    expect(mergePolicy(current, policyPatchSchema.parse({}))).toEqual(current);
    const merged = mergePolicy(current, { conditions: { new_query: 'fail' }, ignoredHashes: [HASH] });
    expect(merged.conditions.new_query).toBe('fail');
    expect(current).toEqual(DEFAULT_POLICY);
  });

  it('ignoredHashes, when given, replaces the list (an empty list clears it)', () => {
    const current = mergePolicy(defaultPolicy(), { ignoredHashes: [HASH] });
    expect(mergePolicy(current, { ignoredHashes: ['ffffffffffffffff'] }).ignoredHashes).toEqual(['ffffffffffffffff']);
    expect(mergePolicy(current, { ignoredHashes: [] }).ignoredHashes).toEqual([]);
  });

  it('refuses unknown fields instead of dropping them in silence', () => {
    expect(problems(policyPatchSchema, { costRegresionPct: 5 })).toEqual([': Unrecognized key: "costRegresionPct"']);
    expect(problems(policyPatchSchema, { conditions: { new_queries: 'off' } })).toEqual(['conditions: Unrecognized key: "new_queries"']);
  });

  it('the PUT input carries the environment id beside the fields, and the same checks', () => {
    expect(updatePolicyInput.parse({ id: 'env_1', minSavedPct: 50 })).toEqual({ id: 'env_1', minSavedPct: 50 });
    expect(problems(updatePolicyInput, { id: 'env_1', conditions: { new_query: 'maybe' } })).toEqual([
      'conditions.new_query: Condition new_query must be "fail", "warn" or "off"',
    ]);
    expect(problems(updatePolicyInput, { id: '..' })).toEqual(['id: Id may contain only letters, digits, _ and -']);
  });
});

describe('acknowledgements', () => {
  it('a note is one paragraph of at most 2000 characters, trimmed; empty is none', () => {
    expect(noteSchema.parse('  Seq scan is fine: table holds 12 rows.  ')).toBe('Seq scan is fine: table holds 12 rows.');
    expect(noteSchema.parse('line one\r\nline two\twith a tab')).toBe('line one\nline two\twith a tab');
    expect(noteSchema.parse('   ')).toBeNull();
    expect(noteSchema.parse('x'.repeat(2000))).toHaveLength(2000);
    expect(problems(noteSchema, 'x'.repeat(2001))).toEqual([': Note must be at most 2000 characters']);
    expect(problems(noteSchema, 'first\n\nsecond')).toEqual([': Note must be one paragraph (no blank lines)']);
    expect(problems(noteSchema, 'a\u0000b')).toEqual([
      ': Note must not contain NUL characters',
      ': Note must not contain control characters (tabs and line breaks are fine)',
    ]);
    expect(problems(noteSchema, 'bell\u0007')).toEqual([': Note must not contain control characters (tabs and line breaks are fine)']);
    expect(problems(noteSchema, 'half \uD800 surrogate')).toEqual([': Note must be valid Unicode (it has a lone surrogate)']);
  });

  it('the acknowledge input: the path id and hash, an optional note', () => {
    expect(acknowledgeInput.parse({ id: 'env_1', hash: HASH.toUpperCase() })).toEqual({ id: 'env_1', hash: HASH });
    expect(acknowledgeInput.parse({ id: 'env_1', hash: HASH, note: 'known' })).toEqual({ id: 'env_1', hash: HASH, note: 'known' });
    expect(acknowledgeInput.parse({ id: 'env_1', hash: HASH, note: null })).toEqual({ id: 'env_1', hash: HASH, note: null });
    expect(problems(acknowledgeInput, { id: 'env_1', hash: 'nothex' })).toEqual(['hash: Hash must be a libpg_query fingerprint: 16 hexadecimal digits']);
  });

  it('an acknowledgement records the cost it was made at', () => {
    const ack = { hash: HASH, note: null, cost: 18_000.5, acknowledgedAt: '2026-11-22T10:00:00.000Z', acknowledgedBy: 'ada@example.com' };
    expect(acknowledgementSchema.parse(ack)).toEqual(ack);
    expect(acknowledgementSchema.parse({ ...ack, cost: null }).cost).toBeNull();
  });
});

describe('the verdict wire schema', () => {
  const verdict = {
    status: 'fail',
    reason: null,
    baseline: { id: 'run_1', runId: '99', branch: 'main', createdAt: '2026-11-22T09:00:00.000Z' },
    snapshotAt: '2026-11-22T10:00:00.000Z',
    plannedOn: 'both planned on production as of 2026-11-22T10:00:00.000Z',
    analyzedAt: '2026-11-22T10:00:05.000Z',
    policy: DEFAULT_POLICY,
    summary: { queries: 2, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 },
    findings: [
      {
        kind: 'new_query_needs_index',
        severity: 'fail',
        hash: HASH,
        formattedQuery: 'SELECT * FROM orders WHERE customer_id = $1',
        cost: 18_000,
        baselineCost: null,
        changePct: null,
        recommendations: [{ createIndex: 'CREATE INDEX ON public.orders (customer_id)', costAfter: 12, savedPct: 99.9 }],
        schemaNotes: [],
        acknowledged: false,
        plan: { 'Node Type': 'Seq Scan', 'Total Cost': 18_000, 'Plan Rows': 40, 'Relation Name': 'orders' },
        baselinePlan: null,
        planDiff: null,
        causes: [],
        calls: 3,
        baselineCalls: null,
        callSites: [{ file: 'app/models/order.rb', line: 88, controller: 'orders', action: 'index', tags: { controller: 'orders', action: 'index' } }],
        pairedWith: null,
      },
    ],
    statements: { run: 240, baseline: 180 },
    schemaNotes: ['public.orders.total changes type in this run: not applied'],
  };

  it("has the issue's fields, and the run-level schema notes", () => {
    expect(verdictSchema.parse(verdict)).toEqual(verdict);
    const changed = { ...verdict.findings[0], kind: 'changed_query', pairedWith: { hash: 'fedcba9876543210', formattedQuery: 'SELECT * FROM orders' } };
    expect(verdictSchema.parse({ ...verdict, findings: [changed] }).findings).toEqual([changed]);
    expect(problems(verdictSchema, { ...verdict, findings: [{ ...changed, pairedWith: { hash: 'fedcba9876543210' } }] })).toHaveLength(1);
    expect(Object.keys(verdictSchema.shape)).toEqual([
      'status',
      'reason',
      'baseline',
      'snapshotAt',
      'plannedOn',
      'analyzedAt',
      'policy',
      'summary',
      'findings',
      'statements',
      'schemaNotes',
      'warnings',
    ]);
  });

  it('refuses an unknown status, kind or severity', () => {
    expect(problems(verdictSchema, { ...verdict, status: 'error' })).toHaveLength(1);
    expect(problems(verdictSchema, { ...verdict, findings: [{ ...verdict.findings[0], kind: 'slow' }] })).toHaveLength(1);
    expect(problems(verdictSchema, { ...verdict, findings: [{ ...verdict.findings[0], severity: 'off' }] })).toHaveLength(1);
    expect(problems(verdictSchema, { ...verdict, findings: [{ ...verdict.findings[0], causes: [{ kind: 'data_growth', detail: 'x' }] }] })).toHaveLength(1);
  });
});
