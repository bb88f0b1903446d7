// The verdict as ONE comment on a GitHub pull request (cli/verdict-note.ts decides what and
// whether), through GitHub's REST API with Octokit, at GITHUB_API_URL so GitHub Enterprise Server
// works too.
import { Octokit } from '@octokit/rest';
import { upsertVerdictNote, type NoteOutcome, type NoteRequest, type NoteThread } from './verdict-note';

export { COMMENT_MODES, type CommentMode } from './verdict-note';

export interface PrTarget {
  token: string;
  /** GITHUB_API_URL, e.g. https://api.github.com or https://ghe.example.com/api/v3 */
  baseUrl: string;
  /** owner/repo */
  repository: string;
  pullRequest: number;
}

export type CommentOutcome = NoteOutcome;
export type CommentRequest = NoteRequest;

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
  const thread: NoteThread = {
    async *pages() {
      const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, { owner, repo, issue_number: target.pullRequest, per_page: 100 });
      for await (const page of pages) yield page.data;
    },
    create: async (body) => {
      const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: target.pullRequest, body });
      return { id: data.id, url: data.html_url };
    },
    update: async (id, body) => {
      const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body });
      return { id: data.id, url: data.html_url };
    },
  };
  return upsertVerdictNote(thread, request, (error) => describeFailure(error, target));
}
