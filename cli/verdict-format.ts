// A verdict as people read it: plain text for a CI log, Markdown for GitHub's job summary and the
// pull request's comment. Both show the same things: the status, one line per finding (kind, cost
// before -> after, the query shortened, and for an edited query the text it replaced), why the cost moved and how the plan changed, the CREATE
// INDEX statements, and the run's page.
import { describeCallSite } from '../shared/call-sites';
import type { Finding, Verdict, VerdictStatus } from '../shared/policy';
import { hiddenStatisticsLine, hiddenStatisticsTable } from '../shared/statistics-warnings';

/** What the reader needs beside the verdict: which run it judged and where to see it. */
export interface VerdictContext {
  /** querytrail's id of the stored run (run_...). */
  id: string;
  runId: string;
  repo: string;
  commitSha?: string;
  /** The run's page in querytrail's SPA. */
  link?: string;
}

const KIND_LABELS: Record<Finding['kind'], string> = {
  cost_regression: 'cost regression',
  lost_index: 'lost index',
  new_query_needs_index: 'new query needs an index',
  changed_query: 'changed query',
  new_query: 'new query',
  call_count_regression: 'more calls (N+1?)',
};

/** What a finding is, as a title of its own (an annotation's, a Code Quality issue's). */
export const FINDING_TITLES: Record<Finding['kind'], string> = {
  cost_regression: 'query cost regression',
  lost_index: 'index lost by this run',
  new_query_needs_index: 'new query needs an index',
  changed_query: 'query changed',
  new_query: 'new query',
  call_count_regression: 'query called many more times (N+1?)',
};

const QUERY_CHARS = 100;

/** One line of at most `max` characters: whitespace collapsed, the end replaced by "…". */
export function shortenQuery(query: string, max = QUERY_CHARS): string {
  const line = query.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** Planner costs: a few significant digits are all that mean anything. */
export function formatCost(cost: number | null): string {
  if (cost === null) return '?';
  const digits = cost >= 1000 ? 0 : cost >= 10 ? 1 : 2;
  return cost.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** "1,693 -> 2,031 (+20%)", "new -> 1,693": the baseline's cost, then the run's. */
export function costChange(finding: Finding): string {
  const before = finding.baselineCost === null ? 'new' : formatCost(finding.baselineCost);
  const change = finding.changePct === null ? '' : ` (${finding.changePct >= 0 ? '+' : ''}${Math.round(finding.changePct).toLocaleString('en-US')}%)`;
  return `${before} -> ${formatCost(finding.cost)}${change}`;
}

/** Counts of calls: whole numbers, grouped. */
export const formatCount = (count: number | null): string => (count === null ? '?' : Math.round(count).toLocaleString('en-US'));

/** "calls 3 -> 120 (x40)": how often the baseline ran the query, then the run. */
export function callsChange(finding: Finding): string {
  const ratio = finding.calls !== null && finding.baselineCalls ? ` (x${formatCount(finding.calls / finding.baselineCalls)})` : '';
  return `calls ${formatCount(finding.baselineCalls)} -> ${formatCount(finding.calls)}${ratio}`;
}

/** What moved: the calls for a call-count regression, the cost for everything else. */
export const findingChange = (finding: Finding): string =>
  finding.kind === 'call_count_regression' ? callsChange(finding) : `${costChange(finding)}${withIndex(finding)}`;

/** "statements 240 -> 1,230": the run-level total of calls, before and after; null when the run has none. */
export function statementsLine(verdict: Verdict, arrow = '->'): string | null {
  const { run, baseline } = verdict.statements ?? { run: null, baseline: null };
  if (run === null) return null;
  return baseline === null ? `statements executed: ${formatCount(run)}` : `statements executed: ${formatCount(baseline)} ${arrow} ${formatCount(run)}`;
}

const SHOWN_CALL_SITES = 3;

/** "app/models/order.rb:88, orders#index; lib/report.rb:12": where the query comes from, or null. */
export function callSitesText(finding: Finding): string | null {
  const sites = (finding.callSites ?? []).map(describeCallSite).filter(Boolean);
  if (sites.length === 0) return null;
  const more = sites.length - SHOWN_CALL_SITES;
  return `${sites.slice(0, SHOWN_CALL_SITES).join('; ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** Findings that count toward the status (acknowledged ones are listed apart). */
export const counted = (verdict: Verdict) => verdict.findings.filter((f) => !f.acknowledged);

/**
 * The indexes to create: each counted finding's best recommendation when it saves what the
 * policy asks (for a lost index: the one to put back), each statement once.
 */
export function indexesToCreate(verdict: Verdict): string[] {
  const statements = new Set<string>();
  for (const finding of counted(verdict)) {
    const best = indexToCreate(verdict, finding);
    if (best) statements.add(best.createIndex);
  }
  return [...statements];
}

/** A finding's best recommendation when it saves what the policy asks (for a lost index: the one to put back). */
export function indexToCreate(verdict: Verdict, finding: Finding): Finding['recommendations'][number] | undefined {
  const best = finding.recommendations[0];
  return best && (finding.kind === 'lost_index' || best.savedPct >= verdict.policy.minSavedPct) ? best : undefined;
}

function tally(verdict: Verdict): string {
  const findings = counted(verdict);
  const fail = findings.filter((f) => f.severity === 'fail').length;
  const warn = findings.filter((f) => f.severity === 'warn').length;
  const acknowledged = verdict.findings.length - findings.length;
  const parts = [];
  if (fail) parts.push(`${fail} failing`);
  if (warn) parts.push(`${warn} warning${warn === 1 ? '' : 's'}`);
  if (acknowledged) parts.push(`${acknowledged} acknowledged`);
  return parts.length ? parts.join(', ') : 'no findings';
}

function comparedWith(verdict: Verdict): string {
  const { summary, baseline } = verdict;
  const queries = `${summary.queries} queries, ${summary.newQueries} new`;
  if (!baseline) return `${queries}, no baseline`;
  return `${queries}, compared with run ${baseline.runId}${baseline.branch ? ` on ${baseline.branch}` : ''}`;
}

const withIndex = (finding: Finding) =>
  finding.kind === 'new_query_needs_index' && finding.recommendations[0] ? ` (${formatCost(finding.recommendations[0].costAfter)} with the index)` : '';

/** A diff of a few lines is what a comment can hold; the rest is on the run's page. */
const DIFF_LINES = 6;
/** Findings explained in the comment, most severe first. */
const MAX_EXPLAINED = 10;

const explained = (verdict: Verdict) => verdict.findings.filter((f) => f.causes.length > 0 || (f.planDiff?.summary.length ?? 0) > 0);

/** The plan diff's first lines, and how many more there are. */
export function planDiffLines(finding: Finding): string[] {
  const summary = finding.planDiff?.summary ?? [];
  if (summary.length <= DIFF_LINES) return summary;
  // the last line says where the cost moved most: always kept
  return [...summary.slice(0, DIFF_LINES - 1), `… ${summary.length - DIFF_LINES} more`, summary[summary.length - 1]!];
}

/** Tables planned without production's column statistics (the role may not read them). */
const statisticsTables = (verdict: Verdict) => (verdict.warnings ?? []).flatMap((warning) => hiddenStatisticsTable(warning) ?? []);
const causeLine = (cause: Finding['causes'][number]) => `${cause.kind}: ${cause.detail}`;

// ---------------------------------------------------------------- text

export function verdictText(verdict: Verdict, context: VerdictContext): string[] {
  const lines = [`querytrail: verdict ${verdict.status.toUpperCase()} for run ${context.runId}: ${tally(verdict)} (${comparedWith(verdict)})`];
  if (verdict.reason) lines.push(`  ${verdict.reason}`);
  const statements = statementsLine(verdict);
  if (statements) lines.push(`  ${statements}`);
  // columns as wide as their widest cell, so the queries line up
  const rows = verdict.findings.map((finding) => [
    finding.acknowledged ? 'ack' : finding.severity,
    KIND_LABELS[finding.kind],
    findingChange(finding),
    shortenQuery(finding.formattedQuery),
  ]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  rows.forEach((row, index) => {
    lines.push(`  ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join('  ')}`);
    const finding = verdict.findings[index]!;
    if (finding.pairedWith) lines.push(`    was ${shortenQuery(finding.pairedWith.formattedQuery)}`);
    const from = callSitesText(finding);
    if (from) lines.push(`    from ${shortenQuery(from, 300)}`);
  });
  const indexes = indexesToCreate(verdict);
  if (indexes.length) {
    lines.push('  indexes to create:');
    for (const statement of indexes) lines.push(`    ${statement};`);
  }
  for (const finding of explained(verdict).slice(0, MAX_EXPLAINED)) {
    lines.push(`  ${KIND_LABELS[finding.kind]} ${finding.hash}:`);
    for (const cause of finding.causes) lines.push(`    cause ${causeLine(cause)}`);
    for (const line of planDiffLines(finding)) lines.push(`    plan: ${line}`);
  }
  if (verdict.plannedOn) lines.push(`  ${verdict.plannedOn}`);
  const unseen = statisticsTables(verdict);
  if (unseen.length) lines.push(`  ${hiddenStatisticsLine(unseen)}`);
  for (const note of verdict.schemaNotes) lines.push(`  schema: ${note}`);
  if (context.link) lines.push(`  details: ${context.link}`);
  return lines;
}

// ---------------------------------------------------------------- Markdown

/** An inline code span holding any text: a fence longer than its backtick runs; pipes escaped for a table cell. */
export function codeSpan(text: string, inTable = false): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const padded = text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text;
  const span = `${fence}${padded}${fence}`;
  return inTable ? span.replace(/\|/g, '\\|') : span;
}

function codeBlock(lines: string[], language: string): string {
  const text = lines.join('\n');
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Text in Markdown prose: characters that would start markup are escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+\-!|~]/g, (c) => `\\${c}`);
}

const ICONS: Record<VerdictStatus, string> = { pass: '✅', warn: '⚠️', fail: '❌', unavailable: '⚪', pending: '⏳' };

function headline(status: VerdictStatus, previous?: VerdictStatus): string {
  switch (status) {
    case 'pass':
      return previous === 'fail' || previous === 'warn' ? 'passes now' : 'passes';
    case 'warn':
      return 'passes with warnings';
    case 'fail':
      return 'fails the query policy';
    case 'unavailable':
      return 'no verdict';
    case 'pending':
      return 'verdict pending';
  }
}

/**
 * Rows of the findings table: a GitHub comment holds at most 65,536 characters, and the most
 * severe findings come first (the API sorts them), the rest are a click away.
 */
const MAX_ROWS = 50;

export interface MarkdownOptions {
  /** The status the pull request's comment showed before this run (to say "passes now"). */
  previous?: VerdictStatus;
  /** What the forge calls the review the note is on (GitLab: "merge request"). */
  review?: string;
}

export function verdictMarkdown(verdict: Verdict, context: VerdictContext, options: MarkdownOptions = {}): string {
  const out: string[] = [];
  out.push(`### ${ICONS[verdict.status]} querytrail: ${headline(verdict.status, options.previous)}`);
  out.push('');
  const commit = context.commitSha ? ` at ${codeSpan(context.commitSha.slice(0, 7))}` : '';
  out.push(`Run ${codeSpan(context.runId)} of ${escapeMarkdown(context.repo)}${commit}: **${tally(verdict)}** (${escapeMarkdown(comparedWith(verdict))}).`);
  if (verdict.reason) out.push('', `> ${escapeMarkdown(verdict.reason)}`);
  if (verdict.plannedOn) out.push('', `<sub>${escapeMarkdown(verdict.plannedOn.charAt(0).toUpperCase() + verdict.plannedOn.slice(1))}.</sub>`);
  const unseen = statisticsTables(verdict);
  if (unseen.length) out.push('', `⚠️ ${escapeMarkdown(hiddenStatisticsLine(unseen))}`);
  // digits, commas, letters and the arrow: nothing to escape
  const statements = statementsLine(verdict, '→');
  if (statements) out.push('', `Statements executed by the tests: ${statements.replace('statements executed: ', '')}.`);
  if (verdict.status === 'pass' && (options.previous === 'fail' || options.previous === 'warn')) {
    out.push('', `The findings reported earlier on this ${options.review ?? 'pull request'} are resolved.`);
  }
  if (verdict.findings.length) {
    out.push('', '| | Finding | Before → after | Query |', '| --- | --- | --- | --- |');
    for (const finding of verdict.findings.slice(0, MAX_ROWS)) {
      const severity = finding.acknowledged ? '☑️ acknowledged' : finding.severity === 'fail' ? '❌ fail' : '⚠️ warn';
      const cost = findingChange(finding).replace('->', '→');
      const from = callSitesText(finding);
      const where = from ? `<br>from ${escapeMarkdown(shortenQuery(from, 300))}` : '';
      const was = finding.pairedWith ? `<br>was ${codeSpan(shortenQuery(finding.pairedWith.formattedQuery), true)}` : '';
      out.push(`| ${severity} | ${KIND_LABELS[finding.kind]} | ${cost} | ${codeSpan(shortenQuery(finding.formattedQuery), true)}${was}${where} |`);
    }
    const more = verdict.findings.length - MAX_ROWS;
    if (more > 0) out.push('', `… and ${more} more finding${more === 1 ? '' : 's'} on the run's page.`);
  }
  for (const finding of explained(verdict).slice(0, MAX_EXPLAINED)) {
    // GitHub renders Markdown inside <details> only after a blank line
    out.push('', `<details><summary>Why: ${KIND_LABELS[finding.kind]} of ${codeSpan(shortenQuery(finding.formattedQuery, 60))}</summary>`, '');
    for (const cause of finding.causes) out.push(`- **${cause.kind}**: ${escapeMarkdown(cause.detail)}`);
    const diff = planDiffLines(finding);
    if (diff.length) out.push(...(finding.causes.length ? [''] : []), codeBlock(diff, 'text'));
    out.push('', '</details>');
  }
  const indexes = indexesToCreate(verdict);
  if (indexes.length)
    out.push(
      '',
      '**Indexes to create**',
      '',
      codeBlock(
        indexes.map((s) => `${s};`),
        'sql',
      ),
    );
  if (verdict.schemaNotes.length) {
    out.push('', '**Schema changes not applied to production**', '');
    for (const note of verdict.schemaNotes) out.push(`- ${escapeMarkdown(note)}`);
  }
  if (context.link) out.push('', `[Open the run in querytrail](${context.link})`);
  return `${out.join('\n')}\n`;
}
