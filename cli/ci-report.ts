// `querytrail ci-report`: reads what the CI database ran (pg_stat_statements of its own database)
// and/or a file of statements, fingerprints it, and posts one run to the querytrail API, with the
// CI database's schema (tables, columns, indexes) so the verdict can plan the run on production's
// schema with the run's migrations applied.
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { scanSync } from 'libpg-query';
import { CI_LIMITS, ingestRunInput, ingestRunOutput, type CiQueryInput, type IngestRunInput, type IngestRunOutput } from '../shared/ci';
import { fingerprintOf, formatQuery, loadParser } from '../shared/sql-fingerprint';
import { describeIssues, issuesOf } from '../shared/errors';
import { readDatabaseStatements, StatementsReadError } from '../analyzer/statements';
import { readRunSchema, RunSchemaReadError } from '../analyzer/run-schema';
import type { RunSchema } from '../shared/run-schema';
import { ciProviderOf } from './ci-provider';
import type { Io, RunFields } from './ci-types';
import { describeFetchError } from './fetch-errors';
import { githubActions } from './github-actions';

/** A failure the user can act on: printed as is, exit code 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * querytrail itself could not be had (no answer, or a 5xx): an outage of querytrail must not block
 * a merge, so this is a warning and exit 0 unless --strict.
 */
export class QuerytrailUnavailable extends CliError {}

export interface ReportOptions {
  api?: string;
  db?: string;
  repo?: string;
  runId?: string;
  branch?: string;
  sha?: string;
  pr?: string;
  file?: string;
  /** What to authenticate with (credentialOf); none when absent. */
  credential?: Credential;
  dryRun?: boolean;
  timeoutMs?: number;
  /** false: send no schema (--no-schema), not even one from a run.json. */
  schema?: boolean;
}

/** The API's base, without a trailing slash: accepts http://host:3000 and http://host:3000/api alike. */
export function apiBase(api: string): string {
  let url: URL;
  try {
    url = new URL(api);
  } catch {
    throw new CliError(`--api must be a URL such as http://localhost:3000/api, got "${api}"`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--api must be an http(s) URL, got "${api}"`, 2);
  const base = url.pathname.replace(/\/+$/, '');
  url.pathname = base.endsWith('/api') ? base : `${base}/api`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

export function ingestUrl(api: string): string {
  return `${apiBase(api)}/ci/runs`;
}

/** Splits a script into statements with PostgreSQL's own scanner, so ';' inside strings, comments and $$ bodies stays put. */
export function splitStatements(script: string): string[] {
  let tokens: { start: number; end: number; text: string; tokenName: string }[];
  try {
    tokens = scanSync(script).tokens;
  } catch {
    // the scanner gives up on e.g. an unterminated quote: keep the script whole, the server says what is wrong
    return script.trim() ? [script.trim()] : [];
  }
  const statements: string[] = [];
  let start = 0;
  for (const token of tokens) {
    if (token.text !== ';') continue;
    statements.push(script.slice(start, token.start));
    start = token.end;
  }
  statements.push(script.slice(start));
  return statements.map((s) => s.trim()).filter((s) => s && tokensIn(s));
}

/** false for a piece that is only comments. */
function tokensIn(statement: string): boolean {
  try {
    return scanSync(statement).tokens.some((t) => t.tokenName !== 'SQL_COMMENT' && t.tokenName !== 'C_COMMENT');
  } catch {
    return true;
  }
}

/** Fingerprints on the client so the server does not have to; an unparseable one goes without hash and comes back in `rejected`. */
async function fingerprinted(query: string): Promise<CiQueryInput> {
  try {
    const hash = fingerprintOf(query);
    return { query, hash, formattedQuery: await formatQuery(query) };
  } catch {
    return { query };
  }
}

async function readFileRun(file: string): Promise<{ fields: Partial<RunFields>; queries: CiQueryInput[]; schema?: RunSchema }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 2);
  }
  if (!file.endsWith('.json')) {
    const queries = [];
    for (const statement of splitStatements(text)) queries.push(await fingerprinted(statement));
    return { fields: {}, queries };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`, 2);
  }
  // either a whole run ({ repo, runId, queries, ... }) or just its queries
  const run = Array.isArray(parsed) ? { queries: parsed } : (parsed as Record<string, unknown>);
  const checked = ingestRunInput.partial().safeParse(run);
  if (!checked.success) {
    const detail = describeIssues(issuesOf(checked.error, '(file)'));
    throw new CliError(`${file} is not a run or a list of queries: ${detail}`, 2);
  }
  const { queries = [], schema, ...fields } = checked.data;
  const completed = [];
  for (const q of queries) completed.push(q.hash ? q : { ...(await fingerprinted(q.query)), ...q });
  return { fields, queries: completed, schema };
}

async function readDatabase(db: string, io: Io): Promise<CiQueryInput[]> {
  try {
    const statements = await readDatabaseStatements(db, { limit: CI_LIMITS.maxQueriesPerRun });
    if (statements.insufficientPrivilege > 0) {
      io.err(`querytrail: warning: ${statements.insufficientPrivilege} statements of other roles are hidden (grant pg_read_all_stats to see them)`);
    }
    if (statements.skipped > 0) io.err(`querytrail: warning: ${statements.skipped} statements could not be parsed and are left out`);
    return statements.queries.map((q) => ({ query: q.query, hash: q.hash, formattedQuery: q.formattedQuery, calls: q.calls, meanTimeMs: q.meanTimeMs }));
  } catch (error) {
    if (error instanceof StatementsReadError) throw new CliError(`cannot read pg_stat_statements of the CI database: ${error.message}`);
    throw error;
  }
}

/**
 * The schema is an extra: without it the verdict still plans the run on production's schema (it
 * only misses what the run's migrations change), so a failure to read it is a warning.
 */
async function readSchema(db: string, io: Io): Promise<RunSchema | undefined> {
  try {
    return await readRunSchema(db);
  } catch (error) {
    // readRunSchema words database failures itself (without the password); anything else is a bug of ours
    const reason = error instanceof RunSchemaReadError ? error.message : `unexpected failure: ${(error as Error).message}`;
    io.err(`querytrail: warning: the CI database's schema is not sent (${reason}); the verdict will plan the queries on production's schema as it is`);
    return undefined;
  }
}

function describeSchema(schema: RunSchema): string {
  return `with the CI database's schema (${schema.tables.length} tables, ${schema.indexes.length} indexes)`;
}

/** The audience ci-report asks GitHub to put in the job's ID token unless told otherwise: the server's default CI_OIDC_AUDIENCE. */
export const DEFAULT_AUDIENCE = 'querytrail';

/**
 * What ci-report authenticates with: QUERYTRAIL_TOKEN (a CI token of the environment, or the
 * server's API_TOKEN) when set; otherwise, in a GitHub Actions job with `permissions: id-token:
 * write` (which is what puts ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN in its environment), the job's
 * OpenID Connect ID token, fetched when the run is posted; otherwise, in a GitLab CI job whose
 * `id_tokens` names QUERYTRAIL_ID_TOKEN, that ID token as GitLab gave it (tokenless CI both);
 * otherwise nothing.
 */
export type Credential =
  | { kind: 'token'; token: string }
  | { kind: 'id-token'; requestUrl: string; requestToken: string; audience: string }
  | { kind: 'id-token-variable'; token: string; variable: string }
  | { kind: 'none' };

/** The variable a GitLab CI job's `id_tokens` puts querytrail's ID token in. */
export const ID_TOKEN_VARIABLE = 'QUERYTRAIL_ID_TOKEN';

export function credentialOf(env: NodeJS.ProcessEnv, audience?: string): Credential {
  const token = env.QUERYTRAIL_TOKEN?.trim();
  if (token) return { kind: 'token', token };
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL?.trim();
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN?.trim();
  if (requestUrl && requestToken) {
    return { kind: 'id-token', requestUrl, requestToken, audience: audience?.trim() || env.QUERYTRAIL_AUDIENCE?.trim() || DEFAULT_AUDIENCE };
  }
  const idToken = env[ID_TOKEN_VARIABLE]?.trim();
  if (idToken) return { kind: 'id-token-variable', token: idToken, variable: ID_TOKEN_VARIABLE };
  return { kind: 'none' };
}

/** Which credential, in words; never its value. */
export function describeCredential(credential: Credential): string {
  switch (credential.kind) {
    case 'token':
      return 'QUERYTRAIL_TOKEN';
    case 'id-token':
      return `this job's GitHub Actions ID token (audience "${credential.audience}")`;
    case 'id-token-variable':
      return `this job's ID token (${credential.variable})`;
    case 'none':
      return 'no credentials';
  }
}

/** The token request of GitHub's toolkit (core.getIDToken): the runner's URL with `&audience=` appended. */
export function idTokenRequestUrl(requestUrl: string, audience: string): string {
  return `${requestUrl}${requestUrl.includes('?') ? '&' : '?'}audience=${encodeURIComponent(audience)}`;
}

/** A second and third try when GitHub's token service did not answer or failed (5xx), as its toolkit retries. */
const ID_TOKEN_RETRY_MS = [500, 1500];

/** The job's ID token, from the runner's token request endpoint (GitHub answers { "value": "<jwt>" }). */
export async function fetchIdToken(credential: Extract<Credential, { kind: 'id-token' }>, timeoutMs = 30_000): Promise<string> {
  let url: URL;
  try {
    url = new URL(idTokenRequestUrl(credential.requestUrl, credential.audience));
  } catch {
    throw new CliError("cannot get the job's ID token: ACTIONS_ID_TOKEN_REQUEST_URL is not a URL");
  }
  // the request URL names the job; its origin is enough to say where we asked
  const where = `GitHub Actions' token service (ACTIONS_ID_TOKEN_REQUEST_URL at ${url.origin})`;
  for (let attempt = 0; ; attempt++) {
    let failure: string;
    try {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${credential.requestToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (response.ok) {
        let value: unknown;
        try {
          value = (JSON.parse(text) as { value?: unknown }).value;
        } catch {
          // below
        }
        if (typeof value === 'string' && value) return value;
        throw new CliError(`cannot get the job's ID token: ${where} answered ${response.status} without one`);
      }
      let message = text.slice(0, 200);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not JSON: its start
      }
      failure = `${where} answered ${response.status}: ${message}`;
      if (response.status < 500) throw new CliError(`cannot get the job's ID token: ${failure}`);
    } catch (error) {
      if (error instanceof CliError) throw error;
      failure = `${where} did not answer: ${describeFetchError(error)}`;
    }
    const delay = ID_TOKEN_RETRY_MS[attempt];
    if (delay === undefined) throw new CliError(`cannot get the job's ID token: ${failure}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The bearer value for the API: the token as is, or a fresh ID token; undefined for none. */
export async function bearerOf(credential: Credential | undefined): Promise<string | undefined> {
  if (!credential || credential.kind === 'none') return undefined;
  if (credential.kind === 'id-token') return fetchIdToken(credential);
  return credential.token;
}

/** What to do about a 401 or 403 of the API, given what was sent (the server's message says why) and the CI's ways to authenticate. */
export function refusalHint(status: number, credential: Credential | undefined, repo: string, ways = githubActions.credentialWays): string {
  const sent = credential ?? { kind: 'none' };
  let what: string;
  if (status === 401) {
    switch (sent.kind) {
      case 'token':
        what = 'QUERYTRAIL_TOKEN was refused';
        break;
      case 'id-token':
        what = `the job's ID token was refused: the server's CI_OIDC_ISSUERS, CI_OIDC_AUDIENCE and CI_OIDC_BRANCHES decide which it accepts; it was asked for the audience "${sent.audience}" (--audience, QUERYTRAIL_AUDIENCE)`;
        break;
      case 'id-token-variable':
        what = `the job's ID token (${sent.variable}) was refused: the server's CI_OIDC_ISSUERS, CI_OIDC_AUDIENCE and CI_OIDC_BRANCHES decide which it accepts; its audience is the \`aud\` of the job's \`id_tokens\``;
        break;
      case 'none':
        what = 'no credentials were sent';
    }
  } else if (status === 403) {
    const who = sent.kind === 'token' ? 'QUERYTRAIL_TOKEN' : sent.kind === 'none' ? 'a caller without credentials' : "the job's ID token";
    what = `${who} may not post runs of ${repo}: a CI token posts runs of the repositories linked to its environment, an ID token those of its own repository once an admin has linked it`;
  } else {
    return '';
  }
  return ` (${what}. Either ${ways})`;
}

/** What was reported: the stored run (absent for --dry-run) and the run's details. */
export interface Reported {
  result?: IngestRunOutput;
  fields: RunFields;
  /** The bearer value the run was posted with, for reading its verdict; never printed. */
  bearer?: string;
}

export async function ciReport(options: ReportOptions, env: NodeJS.ProcessEnv, io: Io): Promise<Reported> {
  if (!options.db && !options.file)
    throw new CliError('nothing to report: give --db <postgres URL> (or DATABASE_URL) and/or --file <statements.sql|run.json>', 2);
  const api = options.api;
  if (!api && !options.dryRun) throw new CliError('--api <URL> (or QUERYTRAIL_API_URL) is required, e.g. --api https://querytrail.example.com/api', 2);
  const url = api ? ingestUrl(api) : undefined;

  await loadParser();
  const fromFile = options.file ? await readFileRun(options.file) : { fields: {}, queries: [] };
  const fromDb = options.db ? await readDatabase(options.db, io) : [];
  const sendSchema = options.schema !== false;
  const schema = sendSchema ? ((options.db ? await readSchema(options.db, io) : undefined) ?? fromFile.schema) : undefined;

  const flags: Partial<RunFields> = {};
  if (options.repo) flags.repo = options.repo;
  if (options.runId) flags.runId = options.runId;
  if (options.branch) flags.branch = options.branch;
  if (options.sha) flags.commitSha = options.sha;
  if (options.pr) {
    const pr = Number(options.pr);
    if (!Number.isInteger(pr) || pr <= 0) throw new CliError(`--pr must be a pull request number, got "${options.pr}"`, 2);
    flags.pullRequest = pr;
  }
  const ci = ciProviderOf(env);
  const fields = { ...ci.runFields(env), ...fromFile.fields, ...flags };
  if (!fields.repo) throw new CliError(`--repo org/repo is required outside ${ci.name} (${ci.variables.repo} is not set)`, 2);
  if (!fields.runId) throw new CliError(`--run-id is required outside ${ci.name} (${ci.variables.runId} is not set)`, 2);

  const queries = [...fromDb, ...fromFile.queries].filter((q) => {
    if (q.query.length <= CI_LIMITS.maxQueryLength) return true;
    io.err(`querytrail: warning: a statement of ${q.query.length} characters is longer than the API accepts (${CI_LIMITS.maxQueryLength}); left out`);
    return false;
  });
  if (queries.length > CI_LIMITS.maxQueriesPerRun) {
    io.err(`querytrail: warning: ${queries.length} statements; only the first ${CI_LIMITS.maxQueriesPerRun} are reported`);
    queries.length = CI_LIMITS.maxQueriesPerRun;
  }
  const run = ingestRunInput.safeParse({ ...fields, queries, ...(schema ? { schema } : {}) });
  if (!run.success) {
    throw new CliError(`invalid run: ${describeIssues(issuesOf(run.error, '(run)'))}`, 2);
  }
  const { queries: _queries, schema: _schema, ...runFields } = run.data;
  if (options.dryRun || !url) {
    io.out(JSON.stringify(run.data, null, 2));
    return { fields: runFields };
  }

  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-encoding': 'gzip', accept: 'application/json' };
  if (options.credential && options.credential.kind !== 'none') io.out(`querytrail: authenticating with ${describeCredential(options.credential)}`);
  const bearer = await bearerOf(options.credential);
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const post = async (payload: IngestRunInput) => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: gzipSync(JSON.stringify(payload)),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      return { response, text: await response.text() };
    } catch (error) {
      throw new QuerytrailUnavailable(`cannot reach the querytrail API at ${url}: ${describeFetchError(error)}`);
    }
  };
  let sent = run.data;
  let { response, text } = await post(sent);
  if (response.status === 413 && sent.schema) {
    // The server's body limit is its own setting: the queries matter more than the schema.
    io.err(`querytrail: warning: the run with the CI database's schema is larger than the API accepts (413); sending it without the schema`);
    const { schema: _schema, ...withoutSchema } = sent;
    sent = withoutSchema;
    ({ response, text } = await post(sent));
  }
  if (!response.ok) {
    let message = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } };
      if (parsed.error?.message) message = parsed.error.message;
    } catch {
      // not our JSON (a proxy's page): show its start
    }
    const hint = refusalHint(response.status, options.credential, fields.repo, ci.credentialWays);
    const failure = `the querytrail API answered ${response.status}: ${message}${hint}`;
    throw response.status >= 500 ? new QuerytrailUnavailable(failure) : new CliError(failure);
  }
  let result: IngestRunOutput;
  try {
    result = ingestRunOutput.parse(JSON.parse(text));
  } catch {
    // a 2xx that is not our answer: something between us and querytrail (a captive proxy)
    throw new QuerytrailUnavailable(`the querytrail API at ${url} answered ${response.status} with something that is not a stored run: ${text.slice(0, 200)}`);
  }
  const where = result.environmentId ? `environment ${result.environmentId}` : 'no environment (the repository is not linked; the catalog is unchanged)';
  const verb = response.status === 201 ? 'reported' : 'already reported';
  const withSchema = sent.schema ? `, ${describeSchema(sent.schema)}` : '';
  io.out(
    `querytrail: ${verb} run ${fields.runId} of ${fields.repo} as ${result.id}: ${result.queryCount} queries, ${result.newQueryCount} new, ${where}${withSchema}`,
  );
  for (const rejected of result.rejected) {
    io.err(`querytrail: warning: query ${rejected.index} rejected: ${rejected.reason}`);
  }
  return { result, fields: runFields, bearer };
}
