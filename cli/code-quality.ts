// A verdict as GitLab's Code Quality report (the JSON array of issues GitLab documents for
// `artifacts: reports: codequality`), so the findings show in the merge request's Code Quality
// widget and, where a finding knows its call site, beside that line of the diff.
//
// One issue per finding, acknowledged ones included as `info`. Where a finding comes from is its
// first call site with a file (the tags the application's ORM puts in the query's comment); a
// finding without one is placed on the CI configuration file (CI_CONFIG_PATH, .gitlab-ci.yml by
// default), line 1: the job that runs the check is the one place every repository has. The
// fingerprint is the finding's kind and query fingerprint (and its place), so the same finding on
// the base branch and the merge request is recognised as the same, and a fixed one as resolved.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Finding, Verdict } from '../shared/policy';
import { FINDING_TITLES, findingChange, indexToCreate, shortenQuery, type VerdictContext } from './verdict-format';

export const CODE_QUALITY_FILE = 'gl-code-quality-report.json';
export const CODE_QUALITY_SEVERITIES = ['info', 'minor', 'major', 'critical', 'blocker'] as const;
export type CodeQualitySeverity = (typeof CODE_QUALITY_SEVERITIES)[number];

export interface CodeQualityIssue {
  description: string;
  check_name: string;
  fingerprint: string;
  severity: CodeQualitySeverity;
  location: { path: string; lines: { begin: number } };
}

/** A failing finding blocks the merge per --fail-on: critical; a warning is minor; an acknowledged one is only information. */
function severityOf(finding: Finding): CodeQualitySeverity {
  if (finding.acknowledged) return 'info';
  return finding.severity === 'fail' ? 'critical' : 'minor';
}

/**
 * A call site's file as a path in the repository, or undefined. The text comes from a query's
 * comment (the application wrote it, anyone could): only a relative path of plain segments is
 * used, never one that climbs out (..) or is absolute.
 */
export function repositoryPath(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const path = file.trim().replace(/^(\.\/)+/, '');
  if (!path || path.length > 500 || path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.includes('\\')) return undefined;
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
  return path;
}

/** The file findings without a call site are placed on: the CI configuration, unless it lives in another project. */
export function fallbackPath(env: NodeJS.ProcessEnv): string {
  return repositoryPath(env.CI_CONFIG_PATH && !env.CI_CONFIG_PATH.includes('@') ? env.CI_CONFIG_PATH : undefined) ?? '.gitlab-ci.yml';
}

function locationOf(finding: Finding, fallback: string): CodeQualityIssue['location'] {
  for (const site of finding.callSites ?? []) {
    const path = repositoryPath(site.file);
    if (path) return { path, lines: { begin: site.line !== undefined && site.line >= 1 ? site.line : 1 } };
  }
  return { path: fallback, lines: { begin: 1 } };
}

export function codeQualityReport(verdict: Verdict, context: VerdictContext, fallback: string): CodeQualityIssue[] {
  return verdict.findings.map((finding) => {
    const location = locationOf(finding, fallback);
    const best = indexToCreate(verdict, finding);
    const index = best ? ` Create: ${best.createIndex};` : '';
    const details = context.link ? ` Details: ${context.link}` : '';
    return {
      description: `querytrail: ${FINDING_TITLES[finding.kind]}: ${shortenQuery(finding.formattedQuery, 200)} (${findingChange(finding)}).${index}${details}`,
      check_name: `querytrail/${finding.kind}`,
      fingerprint: createHash('sha256').update(`querytrail\0${finding.kind}\0${finding.hash}\0${location.path}`).digest('hex').slice(0, 32),
      severity: severityOf(finding),
      location,
    };
  });
}

/** Writes the report (an empty array for a verdict without findings, so GitLab shows earlier ones as resolved). */
export async function writeCodeQuality(file: string, issues: CodeQualityIssue[]): Promise<void> {
  await writeFile(file, `${JSON.stringify(issues, null, 2)}\n`);
}
