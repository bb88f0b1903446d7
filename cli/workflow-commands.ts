// GitHub Actions workflow commands (`::error title=...::message`), escaped the way the runner
// unescapes them: in the message %, CR and LF; in a property also ':' and ','. Unescaped, a query's
// newline would end the command and a ':' in a title would cut it short.
import type { Verdict } from '../shared/policy';
import {
  callSitesText,
  callsChange,
  costChange,
  counted,
  FINDING_TITLES,
  formatCost,
  indexToCreate,
  shortenQuery,
  type VerdictContext,
} from './verdict-format';

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function workflowCommand(command: 'error' | 'warning' | 'notice', properties: Record<string, string>, message: string): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',');
  return `::${command}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

/** One annotation per counted finding: ::error for failing ones, ::warning for warnings. */
export function annotations(verdict: Verdict, context: VerdictContext): string[] {
  return counted(verdict).map((finding) => {
    const best = indexToCreate(verdict, finding);
    const lines = [
      `${shortenQuery(finding.formattedQuery, 300)}`,
      finding.kind === 'call_count_regression' ? callsChange(finding) : `cost ${costChange(finding)}`,
    ];
    if (finding.pairedWith) lines.push(`was ${shortenQuery(finding.pairedWith.formattedQuery, 300)}`);
    const from = callSitesText(finding);
    if (from) lines.push(`from ${shortenQuery(from, 300)}`);
    if (best) {
      lines.push(`${best.createIndex}; (cost ${formatCost(best.costAfter)})`);
    }
    if (context.link) lines.push(context.link);
    return workflowCommand(finding.severity === 'fail' ? 'error' : 'warning', { title: `querytrail: ${FINDING_TITLES[finding.kind]}` }, lines.join('\n'));
  });
}
