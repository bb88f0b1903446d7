// A local HTTP stand-in for the part of GitHub's REST API that ci-report uses: an issue's comments
// (list, paginated with a Link header; create; update), answering with the shapes and status codes
// GitHub documents, and recording every request it receives so tests can say exactly what was sent.
import { readBody, serveLocally } from './local-server';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. /repos/acme/shop/issues/7/comments?per_page=100 */
  url: string;
  authorization?: string;
  body?: { body?: string };
}

export interface StandInComment {
  id: number;
  /** owner/repo#number */
  issue: string;
  body: string;
  user: { login: string; id: number; type: 'Bot' | 'User' };
  created_at: string;
  updated_at: string;
}

export interface GithubStandIn {
  /** What GITHUB_API_URL is set to. */
  url: string;
  requests: RecordedRequest[];
  /** Comments of one issue, oldest first. */
  comments(repository: string, issue: number): StandInComment[];
  /** Adds a comment as someone else would (a reviewer), e.g. to fill the first pages. */
  seed(repository: string, issue: number, body: string): StandInComment;
  /** From now on, answer every request with this status and GitHub's error body (undefined: answer normally). */
  failWith(status: 403 | 404 | 500 | undefined): void;
  close(): Promise<void>;
}

const ERRORS: Record<number, { message: string; documentation_url: string }> = {
  403: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment' },
  404: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
  500: { message: 'Server Error', documentation_url: 'https://docs.github.com/rest' },
};

export async function startGithubStandIn(): Promise<GithubStandIn> {
  const stored: StandInComment[] = [];
  const requests: RecordedRequest[] = [];
  let failure: number | undefined;
  let nextId = 1_000_000_001;
  let url = '';

  const shape = (comment: StandInComment) => {
    const [repository, number] = comment.issue.split('#');
    return {
      id: comment.id,
      node_id: `IC_kwDO${comment.id}`,
      url: `${url}/repos/${repository}/issues/comments/${comment.id}`,
      html_url: `https://github.com/${repository}/pull/${number}#issuecomment-${comment.id}`,
      issue_url: `${url}/repos/${repository}/issues/${number}`,
      body: comment.body,
      user: { login: comment.user.login, id: comment.user.id, type: comment.user.type },
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      author_association: comment.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    };
  };
  const add = (issue: string, body: string, user: StandInComment['user']) => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const comment: StandInComment = { id: nextId++, issue, body, user, created_at: now, updated_at: now };
    stored.push(comment);
    return comment;
  };

  const server = await serveLocally(async (request, response) => {
    const text = await readBody(request);
    const recorded: RecordedRequest = { method: request.method ?? 'GET', url: request.url ?? '/', authorization: request.headers.authorization };
    if (text) recorded.body = JSON.parse(text) as { body?: string };
    requests.push(recorded);
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(json));
    };
    if (!request.headers.authorization) return send(401, { message: 'Requires authentication', documentation_url: 'https://docs.github.com/rest' });
    if (failure) return send(failure, { ...ERRORS[failure], status: String(failure) });

    const here = new URL(recorded.url, url);
    const list = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(here.pathname);
    const one = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(here.pathname);
    if (list && request.method === 'GET') {
      // GET /repos/{owner}/{repo}/issues/{issue_number}/comments: per_page (default 30, max 100), page, Link
      const issue = `${list[1]}#${list[2]}`;
      const all = stored.filter((c) => c.issue === issue);
      const perPage = Math.min(100, Number(here.searchParams.get('per_page') ?? 30));
      const page = Number(here.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number, rel: string) => {
        const target = new URL(here);
        target.searchParams.set('page', String(p));
        return `<${target}>; rel="${rel}"`;
      };
      const links = [];
      if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
      if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
      return send(200, all.slice((page - 1) * perPage, page * perPage).map(shape), links.length ? { link: links.join(', ') } : {});
    }
    if (list && request.method === 'POST') {
      // POST /repos/{owner}/{repo}/issues/{issue_number}/comments { body } -> 201
      const body = recorded.body?.body;
      if (typeof body !== 'string' || !body)
        return send(422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'missing_field', field: 'body' }] });
      const comment = add(`${list[1]}#${list[2]}`, body, { login: 'github-actions[bot]', id: 41898282, type: 'Bot' });
      return send(201, shape(comment), { location: `${url}/repos/${list[1]}/issues/comments/${comment.id}` });
    }
    if (one && request.method === 'PATCH') {
      // PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} { body } -> 200
      const comment = stored.find((c) => c.id === Number(one[2]) && c.issue.startsWith(`${one[1]}#`));
      if (!comment) return send(404, { ...ERRORS[404], status: '404' });
      comment.body = recorded.body?.body ?? comment.body;
      comment.updated_at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      return send(200, shape(comment));
    }
    return send(404, { ...ERRORS[404], status: '404' });
  });
  url = server.url;

  return {
    url,
    requests,
    comments: (repository, issue) => stored.filter((c) => c.issue === `${repository}#${issue}`),
    seed: (repository, issue, body) => add(`${repository}#${issue}`, body, { login: 'reviewer', id: 7, type: 'User' }),
    failWith: (status) => {
      failure = status;
    },
    close: server.close,
  };
}
