// How a verdict reads in a CI log, a job summary and a workflow command; how the action's inputs
// become flags; which verdict fails the job. Pure functions of their input.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionInvocation, isActionRun } from '../../cli/action-inputs';
import { pullRequestOf } from '../../cli/github-actions';
import { exitCodeFor, runLink } from '../../cli/report-verdict';
import { codeSpan, escapeMarkdown, formatCost, indexesToCreate, shortenQuery, verdictMarkdown, verdictText } from '../../cli/verdict-format';
import { annotations, escapeData, escapeProperty, workflowCommand } from '../../cli/workflow-commands';
import { defaultPolicy, type Finding, type Verdict } from '../../shared/policy';
import { hiddenStatisticsWarning } from '../../shared/statistics-warnings';

const finding = (overrides: Partial<Finding>): Finding => ({
  kind: 'new_query_needs_index',
  severity: 'fail',
  hash: '0123456789abcdef',
  formattedQuery: 'SELECT id\nFROM orders\nWHERE\n  warehouse_id = $1',
  cost: 1985.5,
  baselineCost: null,
  changePct: null,
  recommendations: [{ createIndex: 'CREATE INDEX ON public.orders (warehouse_id)', costAfter: 4.3, savedPct: 99.8 }],
  schemaNotes: [],
  acknowledged: false,
  plan: null,
  baselinePlan: null,
  planDiff: null,
  causes: [],
  calls: null,
  baselineCalls: null,
  callSites: [],
  pairedWith: null,
  ...overrides,
});

const verdict = (status: Verdict['status'], findings: Finding[]): Verdict => ({
  status,
  reason: null,
  baseline: { id: 'run_base', runId: '101', branch: 'main', createdAt: '2026-11-22T10:00:00.000Z' },
  snapshotAt: '2026-11-22T10:00:00.000Z',
  plannedOn: 'both planned on production as of 2026-11-22T10:00:00.000Z',
  analyzedAt: '2026-11-22T10:01:00.000Z',
  policy: defaultPolicy(),
  summary: { queries: 3, newQueries: 1, regressions: 0, needIndex: 1, lostIndex: 0 },
  findings,
  statements: { run: null, baseline: null },
  schemaNotes: [],
});

const context = { id: 'run_abc', runId: '9001', repo: 'acme/shop', commitSha: 'a1b2c3d4e5', link: 'https://qt.example.com/ci/run_abc' };

describe('workflow commands', () => {
  it('escapes what would end or cut the command: % CR LF in the message, also : and , in properties', () => {
    expect(escapeData('50% of\r\nrows: a,b')).toBe('50%25 of%0D%0Arows: a,b');
    expect(escapeProperty('querytrail: a, b%')).toBe('querytrail%3A a%2C b%25');
    expect(workflowCommand('error', { title: 'x: y' }, 'line 1\nline 2')).toBe('::error title=x%3A y::line 1%0Aline 2');
    expect(workflowCommand('warning', {}, 'plain')).toBe('::warning::plain');
  });

  it('gives one annotation per counted finding: failing ones as errors, warnings as warnings, none for acknowledged ones', () => {
    const lines = annotations(
      verdict('fail', [
        finding({}),
        finding({ kind: 'new_query', severity: 'warn', recommendations: [], formattedQuery: 'SELECT 1 -- 100%' }),
        finding({ kind: 'cost_regression', acknowledged: true }),
      ]),
      context,
    );
    expect(lines).toEqual([
      '::error title=querytrail%3A new query needs an index::SELECT id FROM orders WHERE warehouse_id = $1%0Acost new -> 1,986%0ACREATE INDEX ON public.orders (warehouse_id); (cost 4.3)%0Ahttps://qt.example.com/ci/run_abc',
      '::warning title=querytrail%3A new query::SELECT 1 -- 100%25%0Acost new -> 1,986%0Ahttps://qt.example.com/ci/run_abc',
    ]);
  });
});

describe('the verdict as text and Markdown', () => {
  it('shortens queries to one line and rounds costs', () => {
    expect(shortenQuery('SELECT a,\n  b\nFROM t')).toBe('SELECT a, b FROM t');
    expect(shortenQuery(`SELECT ${'x, '.repeat(60)}y FROM t`, 40)).toMatch(/^SELECT x, x, .{20,}…$/);
    expect(shortenQuery(`SELECT ${'x, '.repeat(60)}y FROM t`, 40)).toHaveLength(40);
    expect([formatCost(8.4321), formatCost(74.81), formatCost(1985.5), formatCost(123456.7), formatCost(null)]).toEqual([
      '8.43',
      '74.8',
      '1,986',
      '123,457',
      '?',
    ]);
  });

  it('lists each index to create once, and no index that saves less than the policy asks', () => {
    const twice = finding({ kind: 'cost_regression', baselineCost: 10, changePct: 19755 });
    const small = finding({ kind: 'new_query', severity: 'warn', recommendations: [{ createIndex: 'CREATE INDEX ON t (a)', costAfter: 9, savedPct: 10 }] });
    expect(indexesToCreate(verdict('fail', [finding({}), twice, small]))).toEqual(['CREATE INDEX ON public.orders (warehouse_id)']);
  });

  it('prints a readable text summary', () => {
    expect(
      verdictText(
        verdict('fail', [
          finding({}),
          finding({ kind: 'cost_regression', severity: 'warn', baselineCost: 10, cost: 12.5, changePct: 25, recommendations: [] }),
        ]),
        context,
      ),
    ).toEqual([
      'querytrail: verdict FAIL for run 9001: 1 failing, 1 warning (3 queries, 1 new, compared with run 101 on main)',
      '  fail  new query needs an index  new -> 1,986 (4.3 with the index)  SELECT id FROM orders WHERE warehouse_id = $1',
      '  warn  cost regression           10 -> 12.5 (+25%)                  SELECT id FROM orders WHERE warehouse_id = $1',
      '  indexes to create:',
      '    CREATE INDEX ON public.orders (warehouse_id);',
      '  both planned on production as of 2026-11-22T10:00:00.000Z',
      '  details: https://qt.example.com/ci/run_abc',
    ]);
  });

  it('shows calls before -> after for an N+1 finding, and the statements the tests executed before and after', () => {
    const nPlusOne = finding({
      kind: 'call_count_regression',
      severity: 'warn',
      cost: 8.3,
      baselineCost: 8.3,
      changePct: 0,
      recommendations: [],
      calls: 1200,
      baselineCalls: 3,
      formattedQuery: 'SELECT * FROM customers WHERE id = $1',
    });
    const v = { ...verdict('warn', [nPlusOne]), statements: { run: 1_260, baseline: 63 } };
    const text = verdictText(v, context);
    expect(text).toContain('  statements executed: 63 -> 1,260');
    expect(text.find((line) => line.includes('more calls'))).toMatch(
      /warn +more calls \(N\+1\?\) +calls 3 -> 1,200 \(x400\) +SELECT \* FROM customers WHERE id = \$1$/,
    );
    const markdown = verdictMarkdown(v, context);
    expect(markdown).toContain('Statements executed by the tests: 63 → 1,260.');
    expect(markdown).toContain('| ⚠️ warn | more calls (N+1?) | calls 3 → 1,200 (x400) | `SELECT * FROM customers WHERE id = $1` |');
    expect(annotations(v, context)[0]).toBe(
      '::warning title=querytrail%3A query called many more times (N+1?)::SELECT * FROM customers WHERE id = $1%0Acalls 3 -> 1,200 (x400)%0Ahttps://qt.example.com/ci/run_abc',
    );
    // no counts reported (an older querytrail): no line
    expect(verdictText(verdict('pass', []), context).join('\n')).not.toContain('statements');
  });

  it('keeps a query with pipes and backticks inside its table cell', () => {
    expect(codeSpan('SELECT a || b', true)).toBe('`SELECT a \\|\\| b`');
    expect(codeSpan('SELECT `x`')).toBe('`` SELECT `x` ``');
    const markdown = verdictMarkdown(verdict('fail', [finding({ formattedQuery: "SELECT a || '`' FROM t" })]), context);
    expect(markdown).toContain("| ❌ fail | new query needs an index | new → 1,986 (4.3 with the index) | ``SELECT a \\|\\| '`' FROM t`` |");
  });

  it('keeps a comment of many findings within what GitHub accepts: the first 50 rows, then a count', () => {
    const many = Array.from({ length: 400 }, (_, i) =>
      finding({ hash: i.toString(16).padStart(16, '0'), formattedQuery: `SELECT ${'very_long_column_name, '.repeat(40)}x FROM t${i}` }),
    );
    const markdown = verdictMarkdown(verdict('fail', many), context);
    expect(markdown.match(/^\| ❌ fail \|/gm)).toHaveLength(50);
    expect(markdown).toContain("… and 350 more findings on the run's page.");
    expect(markdown.length).toBeLessThan(65_536);
  });

  it('explains a regression under the table: its causes and the plan diff, folded in a details block', () => {
    const regression = finding({
      kind: 'cost_regression',
      baselineCost: 120,
      cost: 21000,
      changePct: 17400,
      recommendations: [],
      causes: [
        {
          kind: 'schema',
          object: 'public.orders_customer_id_idx',
          detail: "index public.orders_customer_id_idx is dropped in this run; the baseline's plan reads it",
        },
      ],
      planDiff: {
        summary: [
          'Index Scan using orders_customer_id_idx on orders -> Seq Scan on orders (rows 1.2M)',
          'Cost moved most at Seq Scan on orders: 110 -> 20,500',
        ],
        changes: [],
      },
    });
    const markdown = verdictMarkdown(verdict('fail', [regression]), context);
    expect(markdown).toContain('Both planned on production as of 2026\\-11\\-22T10:00:00.000Z.');
    expect(markdown).toContain(
      [
        '<details><summary>Why: cost regression of `SELECT id FROM orders WHERE warehouse_id = $1`</summary>',
        '',
        "- **schema**: index public.orders\\_customer\\_id\\_idx is dropped in this run; the baseline's plan reads it",
        '',
        '```text',
        'Index Scan using orders_customer_id_idx on orders -> Seq Scan on orders (rows 1.2M)',
        'Cost moved most at Seq Scan on orders: 110 -> 20,500',
        '```',
        '',
        '</details>',
      ].join('\n'),
    );
    expect(verdictText(verdict('fail', [regression]), context)).toEqual(
      expect.arrayContaining([
        '  cost regression 0123456789abcdef:',
        "    cause schema: index public.orders_customer_id_idx is dropped in this run; the baseline's plan reads it",
        '    plan: Index Scan using orders_customer_id_idx on orders -> Seq Scan on orders (rows 1.2M)',
      ]),
    );
  });

  it("says in one line which tables were planned without production's column statistics, and how to fix it", () => {
    const v = { ...verdict('pass', []), warnings: [hiddenStatisticsWarning('shop.orders'), hiddenStatisticsWarning('shop.order_lines')] };
    const line =
      'Planned without production column statistics for shop.orders, shop.order_lines: grant the role SELECT, or install the querytrail.column_stats() helper (docs/monitoring-role.md).';
    expect(verdictText(v, context)).toContain(`  ${line}`);
    expect(verdictMarkdown(v, context)).toContain(`⚠️ ${escapeMarkdown(line)}`);
    expect(verdictMarkdown(verdict('pass', []), context)).not.toContain('column statistics');
  });

  it('says a pull request passes now when its comment said it failed', () => {
    expect(verdictMarkdown(verdict('pass', []), context, { previous: 'fail' })).toMatch(/^### ✅ querytrail: passes now\n[\s\S]*resolved/);
    expect(verdictMarkdown(verdict('pass', []), context)).toMatch(/^### ✅ querytrail: passes\n/);
    expect(verdictMarkdown(verdict('pass', []), context)).not.toContain('resolved');
  });

  it('links to the run page, with parentheses that cannot close the Markdown link', () => {
    expect(runLink('https://qt.example.com/', 'run_abc')).toBe('https://qt.example.com/ci/run_abc');
    expect(runLink('https://qt.example.com/a(b)', 'run_abc')).toBe('https://qt.example.com/a%28b%29/ci/run_abc');
  });
});

describe('exit codes and GitHub details', () => {
  it('fails the job by the verdict and --fail-on', () => {
    const of = (status: Verdict['status'], failOn: 'fail' | 'warn' | 'never') => exitCodeFor(verdict(status, []), failOn);
    expect([of('fail', 'fail'), of('warn', 'fail'), of('pass', 'fail'), of('unavailable', 'fail')]).toEqual([1, 0, 0, 0]);
    expect([of('fail', 'warn'), of('warn', 'warn'), of('pass', 'warn')]).toEqual([1, 1, 0]);
    expect([of('fail', 'never'), of('warn', 'never')]).toEqual([0, 0]);
  });

  it("reads the pull request from the event's payload, else from GITHUB_REF", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qt-event-'));
    const event = path.join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 42 } }));
    expect(pullRequestOf({ GITHUB_EVENT_PATH: event, GITHUB_REF: 'refs/heads/main' })).toBe(42);
    writeFileSync(event, JSON.stringify({ ref: 'refs/heads/main' }));
    expect(pullRequestOf({ GITHUB_EVENT_PATH: event, GITHUB_REF: 'refs/pull/7/merge' })).toBe(7);
    expect(pullRequestOf({ GITHUB_EVENT_PATH: path.join(dir, 'missing.json'), GITHUB_REF: 'refs/heads/main' })).toBeUndefined();
  });

  it("turns the action's inputs into flags, its tokens into variables", () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      'INPUT_API-URL': 'https://qt.example.com/api',
      'INPUT_DATABASE-URL': 'postgres://ci@localhost/app',
      INPUT_TOKEN: 'qt-secret',
      'INPUT_GITHUB-TOKEN': 'ghs_x',
      INPUT_WAIT: '120',
      'INPUT_FAIL-ON': 'warn',
      INPUT_STRICT: 'true',
      INPUT_SCHEMA: 'false',
      INPUT_COMMENT: 'always',
      INPUT_FORMAT: 'text',
      INPUT_FILE: '',
    };
    expect(isActionRun([], env)).toBe(true);
    expect(isActionRun(['ci-report'], env)).toBe(false);
    expect(isActionRun([], { ...env, GITHUB_ACTIONS: undefined })).toBe(false);
    const invocation = actionInvocation(env);
    expect(invocation.argv).toEqual([
      'ci-report',
      '--api',
      'https://qt.example.com/api',
      '--db',
      'postgres://ci@localhost/app',
      '--wait',
      '120',
      '--fail-on',
      'warn',
      '--comment',
      'always',
      '--format',
      'text',
      '--no-schema',
      '--strict',
    ]);
    expect(invocation.argv.join(' ')).not.toContain('secret');
    expect(invocation.env).toMatchObject({ QUERYTRAIL_TOKEN: 'qt-secret', GITHUB_TOKEN: 'ghs_x' });
  });
});
