// Wire shapes of CI verdicts: an environment's policy, acknowledged queries and the
// verdict of a CI run. Shared by the server (server/verdict/), the REST document and the SPA's
// forms, so a value accepted in one place is accepted everywhere.
import { z } from 'zod';
import { callSiteSchema } from './call-sites';
import { isoDate } from './dates';
import { planNodeSchema } from './plan';
import { planDiffSchema } from './plan-diff';
import { hashSchema, pathParam } from './environments';
import { idSchema, isPlainLine, jsonNumber } from './validation';

// ---------------------------------------------------------------- the policy

/** What a verdict can find, in the order findings of one severity are listed. */
export const FINDING_KINDS = ['cost_regression', 'lost_index', 'new_query_needs_index', 'changed_query', 'new_query', 'call_count_regression'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** What a condition does when it is met: fail the run, warn, or nothing at all. */
export const CONDITION_MODES = ['fail', 'warn', 'off'] as const;
export type ConditionMode = (typeof CONDITION_MODES)[number];

export const conditionModeSchema = (kind: FindingKind) => z.enum(CONDITION_MODES, { error: `Condition ${kind} must be "fail", "warn" or "off"` });

export const POLICY_LIMITS = {
  /** A cost may grow a hundredfold; beyond that a threshold only means "never". */
  maxCostRegressionPct: 10_000,
  /** A saving is a share of the cost: it cannot exceed 100%. */
  maxSavedPct: 100,
  maxMinCost: Number.MAX_SAFE_INTEGER,
  maxIgnoredHashes: 1000,
  /** A query may run a thousand times as often as before; beyond that a ratio only means "never". */
  maxCallRatio: 1000,
  maxIgnoredCallSites: 100,
  maxCallSitePattern: 200,
  maxMinCalls: Number.MAX_SAFE_INTEGER,
  maxBranchLength: 255,
  maxNoteLength: 2000,
} as const;

export const DEFAULT_POLICY = {
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
} as const satisfies {
  comparisonBranch: string;
  costRegressionPct: number;
  minCost: number;
  minSavedPct: number;
  callRatio: number;
  minCalls: number;
  conditions: Record<FindingKind, ConditionMode>;
  ignoredHashes: readonly string[];
  ignoredCallSites: readonly string[];
};

/**
 * Why `name` is not a branch name git would accept (git check-ref-format --branch), or undefined.
 * Control characters are refused first: the name is one line.
 */
export function branchNameProblem(name: string): string | undefined {
  if (!isPlainLine(name)) return 'must be one line without control characters';
  if (/[ ~^:?*[\\]/.test(name)) return 'must not contain spaces or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{') || name === '@') return 'must not be "@" or contain "@{"';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'must not start or end with "/" or contain "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) {
    return 'must not have a part that starts with "." or ends with ".lock"';
  }
  return undefined;
}

export const branchNameSchema = z
  .string({ error: 'Comparison branch must be a string' })
  .trim()
  .min(1, 'Comparison branch must not be empty')
  .max(POLICY_LIMITS.maxBranchLength, `Comparison branch must be at most ${POLICY_LIMITS.maxBranchLength} characters`)
  .superRefine((value, ctx) => {
    const problem = branchNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `Comparison branch ${problem}` });
  })
  .meta({ description: 'Git branch whose latest earlier run is the baseline (a run on it compares with its previous run)', example: 'main' });

function boundedNumber(what: string, max: number) {
  return z
    .number({ error: `${what} must be a number` })
    .min(0, `${what} must be at least 0`)
    .max(max, `${what} must be at most ${max}`);
}

const costRegressionPct = () => boundedNumber('Cost regression percentage', POLICY_LIMITS.maxCostRegressionPct);
const minCost = () => boundedNumber('Minimum cost', POLICY_LIMITS.maxMinCost);
const minSavedPct = () => boundedNumber('Minimum saved percentage', POLICY_LIMITS.maxSavedPct);
const callRatio = () =>
  z
    .number({ error: 'Call ratio must be a number' })
    .min(1, 'Call ratio must be at least 1')
    .max(POLICY_LIMITS.maxCallRatio, `Call ratio must be at most ${POLICY_LIMITS.maxCallRatio}`);
const minCalls = () => boundedNumber('Minimum calls', POLICY_LIMITS.maxMinCalls).int('Minimum calls must be a whole number');

/** Fingerprints that never produce a finding: lowercase, each once, sorted (so equal policies compare equal). */
export const ignoredHashesSchema = z
  .array(hashSchema, { error: 'Ignored hashes must be a list of query hashes' })
  .max(POLICY_LIMITS.maxIgnoredHashes, `At most ${POLICY_LIMITS.maxIgnoredHashes} hashes may be ignored`)
  .transform((hashes) => [...new Set(hashes)].sort())
  .meta({ description: 'Query fingerprints (16 hexadecimal digits) that never produce a finding' });

// Glob patterns of source files (spec/**, **/fixtures/*.rb): queries called only from such files
// never produce a finding.
export const ignoredCallSitesSchema = z
  .array(
    z
      .string({ error: 'An ignored call site must be a glob pattern' })
      .trim()
      .min(1, 'An ignored call site pattern must not be empty')
      .max(POLICY_LIMITS.maxCallSitePattern, `An ignored call site pattern must be at most ${POLICY_LIMITS.maxCallSitePattern} characters`)
      .refine(isPlainLine, 'An ignored call site pattern must be one line without control characters'),
    { error: 'Ignored call sites must be a list of glob patterns' },
  )
  .max(POLICY_LIMITS.maxIgnoredCallSites, `At most ${POLICY_LIMITS.maxIgnoredCallSites} call site patterns may be ignored`)
  .transform((patterns) => [...new Set(patterns)].sort())
  .meta({
    description:
      "Glob patterns matched against the file of a query's call sites (** any folders, * and ? within one): " +
      'a query whose call sites naming a file all match never produces a finding',
    example: ['spec/**', '**/fixtures/**'],
  });

const DESCRIPTIONS = {
  costRegressionPct: 'cost_regression: the cost must exceed the baseline cost by more than this percentage',
  minCost: 'cost_regression: costs below this (planner units) never count as a regression',
  minSavedPct: 'new_query_needs_index: the best recommended index must save at least this percentage of the cost',
  callRatio: "call_count_regression: the query's calls in the run must be at least this many times its calls in the baseline",
  minCalls: 'call_count_regression: runs with fewer calls of the query than this never count (a test calling it 3 times instead of 1 is no N+1)',
  conditions: 'What each kind of finding does: fail the run, warn, or nothing (off)',
};

export const conditionsSchema = z
  .object({
    cost_regression: conditionModeSchema('cost_regression').default(DEFAULT_POLICY.conditions.cost_regression),
    new_query_needs_index: conditionModeSchema('new_query_needs_index').default(DEFAULT_POLICY.conditions.new_query_needs_index),
    lost_index: conditionModeSchema('lost_index').default(DEFAULT_POLICY.conditions.lost_index),
    changed_query: conditionModeSchema('changed_query').default(DEFAULT_POLICY.conditions.changed_query),
    new_query: conditionModeSchema('new_query').default(DEFAULT_POLICY.conditions.new_query),
    call_count_regression: conditionModeSchema('call_count_regression').default(DEFAULT_POLICY.conditions.call_count_regression),
  })
  .meta({ description: DESCRIPTIONS.conditions });

/**
 * An environment's policy. Every field has its default, so a stored policy written before a field
 * existed (or no stored policy at all: `policySchema.parse({})`) reads as a whole one.
 */
export const policySchema = z.object({
  comparisonBranch: branchNameSchema.default(DEFAULT_POLICY.comparisonBranch),
  costRegressionPct: costRegressionPct().default(DEFAULT_POLICY.costRegressionPct).meta({ description: DESCRIPTIONS.costRegressionPct }),
  minCost: minCost().default(DEFAULT_POLICY.minCost).meta({ description: DESCRIPTIONS.minCost }),
  minSavedPct: minSavedPct().default(DEFAULT_POLICY.minSavedPct).meta({ description: DESCRIPTIONS.minSavedPct }),
  callRatio: callRatio().default(DEFAULT_POLICY.callRatio).meta({ description: DESCRIPTIONS.callRatio }),
  minCalls: minCalls().default(DEFAULT_POLICY.minCalls).meta({ description: DESCRIPTIONS.minCalls }),
  conditions: conditionsSchema.default({ ...DEFAULT_POLICY.conditions }),
  ignoredHashes: ignoredHashesSchema.default([]),
  ignoredCallSites: ignoredCallSitesSchema.default([]),
});
export type Policy = z.infer<typeof policySchema>;

/** A fresh copy of the defaults. */
export const defaultPolicy = (): Policy => policySchema.parse({});

/**
 * An update: any subset of the fields, `conditions` itself partial. Unknown fields are refused (a
 * misspelt field would otherwise be dropped in silence). Numbers must arrive as JSON numbers (see
 * jsonNumber: the REST adapter would coerce "10" and true at the top level of an input).
 * `ignoredHashes` and `ignoredCallSites`, when given, replace their list.
 */
export const policyPatchSchema = z.strictObject({
  comparisonBranch: branchNameSchema.optional(),
  costRegressionPct: jsonNumber(costRegressionPct()).optional().meta({ description: DESCRIPTIONS.costRegressionPct }),
  minCost: jsonNumber(minCost()).optional().meta({ description: DESCRIPTIONS.minCost }),
  minSavedPct: jsonNumber(minSavedPct()).optional().meta({ description: DESCRIPTIONS.minSavedPct }),
  callRatio: jsonNumber(callRatio()).optional().meta({ description: DESCRIPTIONS.callRatio }),
  minCalls: jsonNumber(minCalls()).optional().meta({ description: DESCRIPTIONS.minCalls }),
  conditions: z
    .strictObject({
      cost_regression: conditionModeSchema('cost_regression').optional(),
      new_query_needs_index: conditionModeSchema('new_query_needs_index').optional(),
      lost_index: conditionModeSchema('lost_index').optional(),
      changed_query: conditionModeSchema('changed_query').optional(),
      new_query: conditionModeSchema('new_query').optional(),
      call_count_regression: conditionModeSchema('call_count_regression').optional(),
    })
    .optional()
    .meta({ description: DESCRIPTIONS.conditions }),
  ignoredHashes: ignoredHashesSchema.optional(),
  ignoredCallSites: ignoredCallSitesSchema.optional(),
});
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

/** The policy with the update applied: fields replaced, conditions merged one by one. */
export function mergePolicy(current: Policy, patch: PolicyPatch): Policy {
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
  const { conditions, ...fields } = patch;
  return policySchema.parse({
    ...current,
    ...defined(fields),
    conditions: { ...current.conditions, ...defined(conditions ?? {}) },
  });
}

export const getPolicyInput = z.object({ id: pathParam(idSchema) });
/** PUT /env/{id}/policy: the path's id beside the update's fields. */
export const updatePolicyInput = policyPatchSchema.extend({ id: pathParam(idSchema) });

// ---------------------------------------------------------------- acknowledgements

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_BUT_TAB_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a query was acknowledged: one paragraph (line breaks allowed, no blank line), trimmed, at
 * most 2,000 characters, no NUL or other control characters but tab and newline. Windows line
 * ends become \n; an empty note is no note (null).
 */
export const noteSchema = z
  .string({ error: 'Note must be a string' })
  .overwrite((value) => value.replace(/\r\n?/g, '\n').trim())
  .max(POLICY_LIMITS.maxNoteLength, `Note must be at most ${POLICY_LIMITS.maxNoteLength} characters`)
  .refine((value) => !value.includes('\u0000'), 'Note must not contain NUL characters')
  .refine((value) => !CONTROL_BUT_TAB_NEWLINE.test(value), 'Note must not contain control characters (tabs and line breaks are fine)')
  .refine((value) => !LONE_SURROGATE.test(value), 'Note must be valid Unicode (it has a lone surrogate)')
  .refine((value) => !/\n[ \t]*\n/.test(value), 'Note must be one paragraph (no blank lines)')
  .transform((value) => (value === '' ? null : value));

export const acknowledgementSchema = z.object({
  hash: z.string().meta({ description: 'The query fingerprint' }),
  note: z.string().nullable(),
  cost: z.number().nullable().meta({
    description: "The query's cost when acknowledged: the acknowledgement holds until the cost moves by more than the policy's percentage from it",
  }),
  acknowledgedAt: isoDate,
  acknowledgedBy: z.string().nullable().meta({ description: 'Who acknowledged it: a person, a token, or "local" on a single-user server' }),
});
export type Acknowledgement = z.infer<typeof acknowledgementSchema>;

/** POST /env/{id}/queries/{hash}/acknowledge { note? } */
export const acknowledgeInput = z.object({
  id: pathParam(idSchema),
  hash: pathParam(hashSchema),
  note: noteSchema.nullable().optional(),
});
/** DELETE /env/{id}/queries/{hash}/acknowledge */
export const unacknowledgeInput = z.object({ id: pathParam(idSchema), hash: pathParam(hashSchema) });

// ---------------------------------------------------------------- the verdict

export const VERDICT_STATUSES = ['pending', 'pass', 'warn', 'fail', 'unavailable'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];
export const SEVERITIES = ['fail', 'warn'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const verdictBaselineSchema = z
  .object({ id: z.string(), runId: z.string(), branch: z.string().nullable(), createdAt: isoDate })
  .meta({ description: "The latest earlier run of the policy's comparison branch (a run on that branch: its previous run)" });
export type VerdictBaseline = z.infer<typeof verdictBaselineSchema>;

export const findingRecommendationSchema = z.object({
  createIndex: z.string().meta({ description: 'The CREATE INDEX statement to run' }),
  costAfter: z.number(),
  savedPct: z.number(),
});

export const CAUSE_KINDS = ['schema', 'query_changed', 'no_statistics', 'plan_choice'] as const;
export type CauseKind = (typeof CAUSE_KINDS)[number];

export const findingCauseSchema = z
  .object({
    kind: z.enum(CAUSE_KINDS).meta({
      description:
        "schema: the run's schema differs from the baseline's in an object the plan touches; " +
        "query_changed: the query's text changed (paired findings); " +
        "no_statistics: the plan reads an object only the run has, or a table whose production statistics the connection's role may not read, planned with the default statistics; " +
        'plan_choice: none of those, the planner chose differently between plans of near cost',
    }),
    detail: z.string().meta({ description: 'The evidence, in words' }),
    object: z.string().optional().meta({ description: 'The object it names (schema.name)' }),
  })
  .meta({ id: 'FindingCause' });
export type FindingCause = z.infer<typeof findingCauseSchema>;

export const pairedQuerySchema = z
  .object({ hash: z.string(), formattedQuery: z.string() })
  .meta({ id: 'PairedQuery', description: "The baseline's query a changed query is an edit of" });
export type PairedQuery = z.infer<typeof pairedQuerySchema>;

export const findingSchema = z.object({
  kind: z.enum(FINDING_KINDS).meta({
    description:
      'cost_regression: cost above the baseline (or, for a changed query, above the cost of the baseline query it edits) by more than the policy percentage and at least its minimum cost; ' +
      'new_query_needs_index: not in the baseline, an index would save at least the minimum percentage; ' +
      'changed_query: not in the baseline, but an edit of a baseline query the run no longer has (see pairedWith), its cost within the regression threshold; ' +
      'new_query: not in the baseline, nor an edit of one of its queries; lost_index: its production plan uses an index the run schema drops; ' +
      'call_count_regression: called at least the policy ratio times as often as in the baseline, and at least its minimum calls (N+1)',
  }),
  severity: z.enum(SEVERITIES),
  hash: z.string(),
  formattedQuery: z.string(),
  cost: z.number().nullable().meta({ description: 'Production cost with the run schema applied' }),
  baselineCost: z.number().nullable(),
  changePct: z.number().nullable().meta({ description: 'Cost change from the baseline, in percent (null without a baseline cost above 0)' }),
  recommendations: z.array(findingRecommendationSchema),
  schemaNotes: z.array(z.string()).meta({ description: 'What the run schema changes for this query, e.g. tables without production statistics' }),
  acknowledged: z.boolean().meta({ description: 'Acknowledged findings are listed but do not count toward the status' }),
  plan: planNodeSchema.nullable().meta({ description: "This run's plan (production statistics, the run schema applied); null when not planned" }),
  baselinePlan: planNodeSchema.nullable().meta({ description: "The baseline run's plan, planned on the same production snapshot; null without one" }),
  planDiff: planDiffSchema.nullable().meta({ description: "How this run's plan differs from the baseline's; null without both plans" }),
  causes: z
    .array(findingCauseSchema)
    .meta({ description: 'Why the cost moved, each with its evidence (cost_regression, lost_index and changed_query; empty for other kinds)' }),
  calls: z.number().nullable().meta({ description: "How many times the run's tests executed the query (pg_stat_statements calls); null when not reported" }),
  baselineCalls: z.number().nullable().meta({ description: 'How many times the baseline run executed it; null when new or not reported' }),
  callSites: z
    .array(callSiteSchema)
    .meta({ description: "Where the query comes from in the application, read from the run's query comments (sqlcommenter, marginalia)" }),
  pairedWith: pairedQuerySchema.nullable().meta({
    description: 'The baseline query this one is an edit of (absent from the run, paired by a shared call site or a close parse tree); null when not paired',
  }),
});
export type Finding = z.infer<typeof findingSchema>;

export const verdictSummarySchema = z.object({
  queries: z.number().int().meta({ description: "The run's distinct queries" }),
  newQueries: z
    .number()
    .int()
    .meta({ description: "The run's queries not in the baseline, nor paired with one of its queries as changed (0 without a baseline)" }),
  regressions: z.number().int().meta({ description: 'cost_regression findings' }),
  needIndex: z.number().int().meta({ description: 'new_query_needs_index findings' }),
  lostIndex: z.number().int().meta({ description: 'lost_index findings' }),
});
export type VerdictSummary = z.infer<typeof verdictSummarySchema>;

export const verdictSchema = z.object({
  status: z.enum(VERDICT_STATUSES),
  reason: z.string().nullable().meta({ description: 'Why the verdict is unavailable or pending, or what it could not compare' }),
  baseline: verdictBaselineSchema.nullable(),
  snapshotAt: isoDate.nullable().meta({ description: 'When the production snapshot (schema and statistics) planned against was read' }),
  plannedOn: z
    .string()
    .nullable()
    .meta({ description: 'Where the run and its baseline were planned, in words: "both planned on production as of <snapshot time>"' }),
  analyzedAt: isoDate.nullable(),
  policy: policySchema,
  summary: verdictSummarySchema,
  findings: z.array(findingSchema),
  statements: z
    .object({
      run: z.number().nullable().meta({ description: "Statements the run's tests executed: the sum of its queries' calls (null when none were reported)" }),
      baseline: z.number().nullable().meta({ description: 'The same sum for the baseline run (null without a baseline or its calls)' }),
    })
    .meta({ description: 'Total statements per run, before and after: a query-count regression shows here first' }),
  schemaNotes: z.array(z.string()).meta({ description: "Differences of the run's schema that could not be applied to production's; reported, never guessed" }),
  warnings: z.array(z.string()).optional().meta({
    description:
      "What the plans could not take from production: each table planned without production's column statistics, which the connection's role may not read, with the fix",
  }),
});
export type Verdict = z.infer<typeof verdictSchema>;

export const verdictInput = z.object({ id: pathParam(idSchema) });
