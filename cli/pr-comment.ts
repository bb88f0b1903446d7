// The verdict as ONE comment on the pull request: created by the first run that has something to
// say, then edited in place by every later run (found by a hidden marker, whichever page of the
// conversation it is on), so a pull request never collects a comment per push. GitHub's REST API
// through Octokit, at GITHUB_API_URL so GitHub Enterprise Server works too.
import { Octokit } from '@octokit/rest';
import { VERDICT_STATUSES, type VerdictStatus } from '../shared/policy';

/** The hidden marker; the status it carries lets the next run say "passes now". */
const MARKER_PREFIX = '<!-- querytrail:ci-verdict';
const MARKER = /<!-- querytrail:ci-verdict(?: status=(\w+))? -->/;

export const COMMENT_MODES = ['always', 'on-findings', 'never'] as const;
export type CommentMode = (typeof COMMENT_MODES)[number];

export interface PrTarget {
  token: string;
  /** GITHUB_API_URL, e.g. https://api.github.com or https://ghe.example.com/api/v3 */
  baseUrl: string;
  /** owner/repo */
  repository: string;
  pullRequest: number;
}

export type CommentOutcome =
  | { type: 'created' | 'updated'; id: number; url?: string }
  | { type: 'skipped'; why: string }
  | { type: 'failed'; message: string };

export interface CommentRequest {
  status: VerdictStatus;
  mode: CommentMode;
  /** The comment's Markdown, given what the existing comment said (undefined: there is none). */
  body(previous: VerdictStatus | undefined): string;
  warn(message: string): void;
}

/** Whether a verdict is news enough to start a conversation ("on-findings": not a first pass). */
const hasFindings = (status: VerdictStatus) => status === 'fail' || status === 'warn';

function describeFailure(error: unknown, target: PrTarget): string {
  const status = (error as { status?: number }).status;
  const message = (error as Error).message;
  if (status === 403) {
    return (
      `GitHub answered 403 (${message}): the token may not comment on pull requests. ` +
      'Give the workflow `permissions: pull-requests: write` (for pull requests from forks GitHub grants read only)'
    );
  }
  if (status === 401) return `GitHub answered 401 (${message}): the token is not valid for ${target.baseUrl}`;
  if (status === 404) return `GitHub answered 404 (${message}): ${target.repository} pull request #${target.pullRequest} is not visible to the token`;
  if (status) return `GitHub answered ${status} (${message})`;
  return `cannot reach GitHub at ${target.baseUrl}: ${(error as { cause?: { code?: string } }).cause?.code ?? message}`;
}

export async function upsertPrComment(target: PrTarget, request: CommentRequest): Promise<CommentOutcome> {
  if (request.mode === 'never') return { type: 'skipped', why: '--comment never' };
  const [owner, repo] = target.repository.split('/');
  if (!owner || !repo) return { type: 'failed', message: `"${target.repository}" is not owner/repo` };
  const octokit = new Octokit({
    auth: target.token,
    baseUrl: target.baseUrl.replace(/\/+$/, ''),
    userAgent: 'querytrail-ci-report',
    // Octokit logs request failures itself; ours are worded below, once.
    log: { debug: () => {}, info: () => {}, warn: (message: string) => request.warn(message), error: () => {} },
    request: { signal: AbortSignal.timeout(60_000) },
  });
  try {
    let existing: { id: number; body?: string | null } | undefined;
    const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, { owner, repo, issue_number: target.pullRequest, per_page: 100 });
    for await (const page of pages) {
      existing = page.data.find((comment) => comment.body?.includes(MARKER_PREFIX));
      if (existing) break;
    }
    const previousText = existing?.body ? MARKER.exec(existing.body)?.[1] : undefined;
    const previous = VERDICT_STATUSES.find((s) => s === previousText) ?? (existing ? 'fail' : undefined);
    if (!existing && request.mode === 'on-findings' && !hasFindings(request.status)) {
      return { type: 'skipped', why: `the verdict is ${request.status} and no comment was needed before` };
    }
    const body = `${MARKER_PREFIX} status=${request.status} -->\n${request.body(existing ? previous : undefined)}`;
    if (existing) {
      const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
      return { type: 'updated', id: data.id, url: data.html_url };
    }
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: target.pullRequest, body });
    return { type: 'created', id: data.id, url: data.html_url };
  } catch (error) {
    return { type: 'failed', message: describeFailure(error, target) };
  }
}
