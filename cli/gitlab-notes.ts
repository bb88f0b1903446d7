// The verdict as ONE note on a GitLab merge request (cli/verdict-note.ts decides what and
// whether), through GitLab's REST API v4 at CI_API_V4_URL, so self-managed instances work too:
//   GET  /projects/:id/merge_requests/:iid/notes?per_page=100&page=N   (paged: x-next-page)
//   POST /projects/:id/merge_requests/:iid/notes               { body }
//   PUT  /projects/:id/merge_requests/:iid/notes/:note_id      { body }
// :id is the project's numeric id or its URL-encoded path (group%2Fsubgroup%2Fproject).
// A project access token goes in PRIVATE-TOKEN, the job's CI_JOB_TOKEN in JOB-TOKEN.
import { describeFetchError } from './fetch-errors';
import { upsertVerdictNote, type Note, type NoteOutcome, type NoteRequest, type NoteThread } from './verdict-note';

export interface GitlabToken {
  /** The variable it came from, for messages (never its value). */
  variable: 'QUERYTRAIL_GITLAB_TOKEN' | 'CI_JOB_TOKEN';
  value: string;
}

export interface MergeRequestTarget {
  token: GitlabToken;
  /** CI_API_V4_URL, e.g. https://gitlab.com/api/v4 */
  apiUrl: string;
  /** CI_PROJECT_ID, or CI_PROJECT_PATH (group/subgroup/project). */
  project: string;
  mergeRequest: number;
}

/** A project access token (or a personal one) when given; else the job's own token. */
export function gitlabTokenOf(env: NodeJS.ProcessEnv): GitlabToken | undefined {
  const token = env.QUERYTRAIL_GITLAB_TOKEN?.trim();
  if (token) return { variable: 'QUERYTRAIL_GITLAB_TOKEN', value: token };
  const job = env.CI_JOB_TOKEN?.trim();
  return job ? { variable: 'CI_JOB_TOKEN', value: job } : undefined;
}

class GitlabAnswer extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const PAGE_SIZE = 100;
/** A merge request's conversation longer than this many pages is not searched further (a new note is written). */
const MAX_PAGES = 50;
const REQUEST_TIMEOUT_MS = 60_000;

/** GitLab answers errors as { "message": "404 Project Not Found" } or { "error": "..." }. */
function messageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = parsed.message ?? parsed.error;
    if (typeof message === 'string') return message;
    if (message) return JSON.stringify(message).slice(0, 200);
  } catch {
    // a proxy's page: its start
  }
  return text.slice(0, 200);
}

function mergeRequestThread(target: MergeRequestTarget): NoteThread {
  const base = `${target.apiUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(target.project)}/merge_requests/${target.mergeRequest}/notes`;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'querytrail-ci-report',
    [target.token.variable === 'CI_JOB_TOKEN' ? 'JOB-TOKEN' : 'PRIVATE-TOKEN']: target.token.value,
  };
  const call = async (method: string, url: string, body?: string): Promise<{ json: unknown; response: Response }> => {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify({ body }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) throw new GitlabAnswer(response.status, messageOf(text));
    try {
      return { json: JSON.parse(text), response };
    } catch {
      throw new GitlabAnswer(response.status, `not JSON: ${text.slice(0, 200)}`);
    }
  };
  const note = (json: unknown): Note => {
    const { id, body } = json as { id: number; body?: string };
    return { id, body };
  };
  return {
    async *pages() {
      let page = '1';
      for (let read = 0; page && read < MAX_PAGES; read++) {
        const { json, response } = await call('GET', `${base}?per_page=${PAGE_SIZE}&page=${page}`);
        yield Array.isArray(json) ? json.map(note) : [];
        // empty on the last page
        page = response.headers.get('x-next-page')?.trim() ?? '';
      }
    },
    create: async (body) => note((await call('POST', base, body)).json),
    update: async (id, body) => note((await call('PUT', `${base}/${id}`, body)).json),
  };
}

const TOKEN_ADVICE = 'set QUERYTRAIL_GITLAB_TOKEN (a masked CI/CD variable) to a project access token with the `api` scope and at least the Reporter role';

function describeFailure(error: unknown, target: MergeRequestTarget): string {
  const where = `merge request !${target.mergeRequest} of ${target.project}`;
  const token = target.token.variable;
  if (error instanceof GitlabAnswer) {
    const answered = `GitLab answered ${error.status} (${error.message})`;
    if ((error.status === 401 || error.status === 403) && token === 'CI_JOB_TOKEN') {
      return `${answered}: CI_JOB_TOKEN may not write merge request notes here (GitLab lets a job token reach only a few endpoints); ${TOKEN_ADVICE}`;
    }
    if (error.status === 401) return `${answered}: ${token} is not valid for ${target.apiUrl} (expired or revoked?); ${TOKEN_ADVICE}`;
    if (error.status === 403) return `${answered}: ${token} may not write notes on ${where}; ${TOKEN_ADVICE}`;
    if (error.status === 404) {
      return `${answered}: ${where} is not visible to ${token} (CI_PROJECT_ID or CI_PROJECT_PATH and CI_MERGE_REQUEST_IID name it; a token of another project sees nothing)`;
    }
    return answered;
  }
  return `cannot reach GitLab at ${target.apiUrl} (CI_API_V4_URL): ${describeFetchError(error)}`;
}

export async function upsertMergeRequestNote(target: MergeRequestTarget, request: NoteRequest): Promise<NoteOutcome> {
  return upsertVerdictNote(mergeRequestThread(target), request, (error) => describeFailure(error, target));
}
