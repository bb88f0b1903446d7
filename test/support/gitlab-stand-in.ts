// A local HTTP stand-in for the part of GitLab's REST API v4 that ci-report uses: a merge request's
// notes (list, paged with x-next-page and its companion headers; create; update), answering with the
// shapes and status codes GitLab documents (https://docs.gitlab.com/api/notes/), and recording every
// request so tests can say exactly what was sent. A project is addressed by its numeric id or its
// URL-encoded path (group%2Fsubgroup%2Fproject). Authentication as GitLab does it: PRIVATE-TOKEN
// (a project access token) or JOB-TOKEN (CI_JOB_TOKEN, which the notes API does not accept here).
import { readBody, serveLocally } from './local-server';

export interface GitlabRequest {
  method: string;
  /** Path and query, as sent (the project's path still encoded). */
  url: string;
  privateToken?: string;
  jobToken?: string;
  body?: { body?: string };
}

export interface GitlabNote {
  id: number;
  body: string;
  author: { id: number; username: string; name: string };
  system: boolean;
  created_at: string;
  updated_at: string;
  noteable_iid: number;
}

export interface GitlabProject {
  id: number;
  /** group/subgroup/project */
  path: string;
  mergeRequests: number[];
}

export interface GitlabStandIn {
  /** The instance's address (CI_SERVER_URL); the API is at `${url}/api/v4` (CI_API_V4_URL). */
  url: string;
  /** The project access token it accepts as PRIVATE-TOKEN. */
  projectToken: string;
  /** The job token it knows (and refuses for notes, as GitLab does). */
  jobToken: string;
  requests: GitlabRequest[];
  /** Notes of one merge request, oldest first. */
  notes(iid: number): GitlabNote[];
  /** Adds a note as a reviewer would. */
  seed(iid: number, body: string): GitlabNote;
  close(): Promise<void>;
}

const BOT = { id: 901, username: 'project_4242_bot_querytrail', name: 'querytrail' };
const REVIEWER = { id: 17, username: 'reviewer', name: 'A Reviewer' };

export async function startGitlabStandIn(project: GitlabProject): Promise<GitlabStandIn> {
  const projectToken = 'glpat-standin-project-token';
  const jobToken = 'glcbt-standin-job-token';
  const stored: GitlabNote[] = [];
  const requests: GitlabRequest[] = [];
  let nextId = 5_000_001;
  let url = '';

  const timestamp = () => new Date().toISOString();
  const add = (iid: number, body: string, author: GitlabNote['author']) => {
    const now = timestamp();
    const note: GitlabNote = { id: nextId++, body, author, system: false, created_at: now, updated_at: now, noteable_iid: iid };
    stored.push(note);
    return note;
  };
  const shape = (note: GitlabNote) => ({
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: { ...note.author, state: 'active', avatar_url: null, web_url: `${url}/${note.author.username}` },
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system,
    noteable_id: 70_000 + note.noteable_iid,
    noteable_type: 'MergeRequest',
    project_id: project.id,
    resolvable: false,
    confidential: false,
    internal: false,
    noteable_iid: note.noteable_iid,
    commands_changes: {},
  });

  const server = await serveLocally(async (request, response) => {
    const text = await readBody(request);
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const recorded: GitlabRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      privateToken: header('private-token'),
      jobToken: header('job-token'),
    };
    if (text) recorded.body = JSON.parse(text) as { body?: string };
    requests.push(recorded);
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(json));
    };

    // GitLab's answers to a request it cannot authenticate, or whose token may not do this
    if (recorded.jobToken !== undefined && recorded.privateToken === undefined) return send(401, { message: '401 Unauthorized' });
    if (recorded.privateToken !== projectToken) return send(401, { message: '401 Unauthorized' });

    const target = new URL(recorded.url, url);
    // the raw path: an encoded project path must stay one segment
    const raw = (recorded.url.split('?')[0] ?? '').split('/');
    const [, api, version, projects, id, mergeRequests, iidText, notes, noteId, ...rest] = raw;
    if (api !== 'api' || version !== 'v4' || projects !== 'projects' || mergeRequests !== 'merge_requests' || notes !== 'notes' || rest.length > 0) {
      return send(404, { error: '404 Not Found' });
    }
    const projectRef = decodeURIComponent(id ?? '');
    if (projectRef !== String(project.id) && projectRef.toLowerCase() !== project.path.toLowerCase()) return send(404, { message: '404 Project Not Found' });
    const iid = Number(iidText);
    if (!project.mergeRequests.includes(iid)) return send(404, { message: '404 Not found' });

    if (noteId === undefined && request.method === 'GET') {
      // GET .../notes: newest first by default; per_page (default 20, max 100), page; x-next-page empty on the last page
      const all = stored.filter((n) => n.noteable_iid === iid).reverse();
      const perPage = Math.min(100, Number(target.searchParams.get('per_page') ?? 20));
      const page = Number(target.searchParams.get('page') ?? 1);
      const pages = Math.max(1, Math.ceil(all.length / perPage));
      return send(200, all.slice((page - 1) * perPage, page * perPage).map(shape), {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < pages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(all.length),
        'x-total-pages': String(pages),
      });
    }
    if (noteId === undefined && request.method === 'POST') {
      const body = recorded.body?.body;
      if (typeof body !== 'string' || !body) return send(400, { error: 'body is missing' });
      return send(201, shape(add(iid, body, BOT)));
    }
    if (noteId !== undefined && request.method === 'PUT') {
      const note = stored.find((n) => n.id === Number(noteId) && n.noteable_iid === iid);
      if (!note) return send(404, { message: '404 Not found' });
      if (note.author.id !== BOT.id) return send(403, { message: '403 Forbidden' });
      const body = recorded.body?.body;
      if (typeof body !== 'string' || !body) return send(400, { error: 'body is missing' });
      note.body = body;
      note.updated_at = timestamp();
      return send(200, shape(note));
    }
    return send(405, { message: '405 Method Not Allowed' });
  });
  url = server.url;

  return {
    url,
    projectToken,
    jobToken,
    requests,
    notes: (iid) => stored.filter((n) => n.noteable_iid === iid),
    seed: (iid, body) => add(iid, body, REVIEWER),
    close: server.close,
  };
}
