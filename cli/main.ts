// The `querytrail` command. Users run it as one bundled file (dist/querytrail.mjs, built from here
// by `npm run build:cli`); bin/querytrail.mjs runs that bundle, or these sources through tsx for
// the commands that need the whole checkout (SOURCE_COMMANDS).
import { parseArgs } from 'node:util';
import { apiBase, ciReport, CliError, credentialOf, DEFAULT_AUDIENCE, QuerytrailUnavailable } from './ci-report';
import type { Io } from './ci-types';
import { COMMENT_MODES, type CommentMode } from './pr-comment';
import { FAIL_ON, FORMATS, noVerdict, reportVerdict, type FailOn, type Format } from './report-verdict';

/** The verdict wait when --wait is not given: the same as the action's, long enough for a warm verdict of a large run. */
export const DEFAULT_WAIT_SECONDS = 120;
const MAX_WAIT_SECONDS = 3600;

export const USAGE = `Usage: querytrail ci-report [options]

Reads pg_stat_statements of the CI database (its own database only, without system statements)
and/or a file of statements, fingerprints them, posts one CI run to querytrail and waits for its
verdict.

  --api URL       querytrail API, e.g. https://querytrail.example.com/api   [QUERYTRAIL_API_URL]
  --db URL        CI database (postgres://...), read only                  [DATABASE_URL]
  --file PATH     statements.sql (split on ;) or run.json (a run or an array of queries)
  --repo ORG/REPO repository                                               [GITHUB_REPOSITORY]
  --run-id ID     CI run id                              [GITHUB_RUN_ID, -GITHUB_RUN_ATTEMPT if > 1]
  --branch NAME   branch                                   [GITHUB_HEAD_REF or GITHUB_REF_NAME]
  --sha SHA       commit                                                   [GITHUB_SHA]
  --pr N          pull request number   [GITHUB_EVENT_PATH's pull_request.number, refs/pull/N/merge]
  --no-schema     do not send the CI database's schema (tables, columns, indexes; sent with --db
                  so the verdict plans the run with its migrations applied)
  --dry-run       print the run as JSON instead of posting it
  --timeout MS    give up on posting the run after this long (default 60000)

The verdict:
  --wait SECONDS  wait this long for the verdict (default ${DEFAULT_WAIT_SECONDS}; 0: do not wait)
  --fail-on WHAT  exit 1 when the verdict is "fail" (default), "warn" (or fail), or "never"
  --strict        exit 1 when there is no verdict (querytrail unreachable, 5xx, the wait ran out)
  --format F      text (default), markdown, or json (the verdict as the API returns it); with
                  markdown and json, stdout holds only the verdict, progress goes to stderr
  --app-url URL   querytrail's web app, for the run's link (default: --api without /api)
  --comment WHEN  the pull request comment: on-findings (default: not for a first pass), always,
                  never. Needs GITHUB_TOKEN and a pull request; one comment, updated in place.
                  On GitLab CI: the merge request's note (QUERYTRAIL_GITLAB_TOKEN, else CI_JOB_TOKEN)
  --codequality FILE  on GitLab CI, the Code Quality report (default gl-code-quality-report.json)

In GitHub Actions the verdict also goes to the job summary ($GITHUB_STEP_SUMMARY) and each failing
or warning finding is an annotation. On GitLab CI (GITLAB_CI) the run's details come from
CI_PROJECT_PATH, CI_PIPELINE_ID-CI_JOB_ID, CI_COMMIT_SHA and CI_MERGE_REQUEST_IID, and the findings
go to the Code Quality report.

Credentials (never on the command line, which other users can see):
  QUERYTRAIL_TOKEN   a CI token of the environment the repository is linked to (or the server's
                     API_TOKEN), sent as the bearer token
  without it, in a GitHub Actions job with \`permissions: id-token: write\`: the job's OpenID Connect
  ID token, fetched from GitHub (ACTIONS_ID_TOKEN_REQUEST_URL) for each report; in a GitLab CI job:
  QUERYTRAIL_ID_TOKEN (the job's \`id_tokens\`). The server accepts it for the repository it names
  once that repository is linked to an environment (tokenless CI)
  --audience AUD  the audience to ask GitHub for: the server's CI_OIDC_AUDIENCE
                  (default ${DEFAULT_AUDIENCE})                                  [QUERYTRAIL_AUDIENCE]

For an AI assistant: \`querytrail mcp\` speaks MCP on stdio (querytrail mcp --help).

Exit codes: 0 reported (verdict pass, warn or unavailable; no verdict without --strict),
1 failing verdict (per --fail-on), database or API failure, 2 usage error.`;

const consoleIo: Io = { out: (line) => console.log(line), err: (line) => console.error(line) };

type Command = (args: string[], env: NodeJS.ProcessEnv, io: Io) => Promise<number>;

/**
 * Commands that need the whole checkout (the web server's sources), not the CI bundle:
 * bin/querytrail.mjs runs them from the sources through tsx, and build:cli leaves `./demo` out of
 * the bundle. Each is loaded only when asked for.
 */
export const SOURCE_COMMANDS: Record<string, () => Promise<Command>> = {
  demo: () => import('./demo').then((m) => m.demo),
};

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = consoleIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  const fromSources = SOURCE_COMMANDS[command];
  if (fromSources) {
    let run: Command;
    try {
      run = await fromSources();
    } catch (error) {
      // the bundle (dist/) leaves these commands out: they need the checkout's TypeScript sources
      io.err(
        `querytrail: "${command}" runs from a querytrail checkout (npx querytrail ${command}, i.e. bin/querytrail.mjs), not from the CI bundle: ${(error as Error).message}`,
      );
      return 2;
    }
    return run(rest, env, io);
  }
  // loaded only when asked for: ci-report, the command CI runs, never evaluates the MCP SDK
  if (command === 'mcp') return (await import('./mcp')).mcp(rest, env, io);
  if (command !== 'ci-report') {
    io.err(`querytrail: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  return ciReportCommand(rest, env, io);
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const found = allowed.find((a) => a === value);
  if (!found) throw new CliError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`, 2);
  return found;
}

async function ciReportCommand(rest: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let strict = false;
  try {
    const { values } = parseArgs({
      args: rest,
      strict: true,
      options: {
        api: { type: 'string' },
        db: { type: 'string' },
        file: { type: 'string' },
        repo: { type: 'string' },
        'run-id': { type: 'string' },
        branch: { type: 'string' },
        sha: { type: 'string' },
        pr: { type: 'string' },
        'dry-run': { type: 'boolean' },
        'no-schema': { type: 'boolean' },
        timeout: { type: 'string' },
        wait: { type: 'string' },
        'fail-on': { type: 'string' },
        strict: { type: 'boolean' },
        comment: { type: 'string' },
        format: { type: 'string' },
        'app-url': { type: 'string' },
        audience: { type: 'string' },
        codequality: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    strict = values.strict ?? false;
    const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new CliError(`--timeout must be a number of milliseconds, got "${values.timeout}"`, 2);
    const waitSeconds = values.wait === undefined ? DEFAULT_WAIT_SECONDS : Number(values.wait);
    if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      throw new CliError(`--wait must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}, got "${values.wait}"`, 2);
    }
    const failOn: FailOn = oneOf('--fail-on', values['fail-on'], FAIL_ON, 'fail');
    const comment: CommentMode = oneOf('--comment', values.comment, COMMENT_MODES, 'on-findings');
    const format: Format = oneOf('--format', values.format, FORMATS, 'text');
    const api = values.api ?? env.QUERYTRAIL_API_URL;
    const appUrl = values['app-url'] ?? (api ? apiBase(api).replace(/\/api$/, '') : undefined);
    if (values['app-url'] !== undefined && !/^https?:\/\/[^/]/.test(values['app-url'])) {
      throw new CliError(`--app-url must be an http(s) URL such as https://querytrail.example.com, got "${values['app-url']}"`, 2);
    }
    if (values.audience !== undefined && !values.audience.trim()) throw new CliError('--audience must not be empty', 2);
    if (values.codequality !== undefined && !values.codequality.trim()) throw new CliError('--codequality must be a file name', 2);
    const credential = credentialOf(env, values.audience);
    const dryRun = values['dry-run'] ?? false;
    // with Markdown or JSON, stdout carries the verdict only
    const reportIo: Io = format === 'text' || dryRun ? io : { out: io.err, err: io.err };

    const reported = await ciReport(
      {
        api,
        db: values.db ?? env.DATABASE_URL,
        file: values.file,
        repo: values.repo,
        runId: values['run-id'],
        branch: values.branch,
        sha: values.sha,
        pr: values.pr,
        credential,
        dryRun,
        schema: !values['no-schema'],
        timeoutMs,
      },
      env,
      reportIo,
    );
    if (!reported.result || !api || !appUrl) return 0;
    return await reportVerdict(
      {
        api: apiBase(api),
        appUrl,
        token: reported.bearer,
        id: reported.result.id,
        fields: reported.fields,
        waitSeconds,
        failOn,
        strict,
        comment,
        codequality: values.codequality,
        format,
      },
      env,
      io,
    );
  } catch (error) {
    if (error instanceof QuerytrailUnavailable) {
      return noVerdict(io, strict, `${error.message}; the run is not reported and has no verdict`);
    }
    if (error instanceof CliError) {
      io.err(`querytrail: ${error.message}`);
      if (error.exitCode === 2) io.err('Run `querytrail ci-report --help` for the options.');
      return error.exitCode;
    }
    // parseArgs' own errors (unknown option, missing value) are usage errors too
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.err(`querytrail: ${(error as Error).message}\nRun \`querytrail ci-report --help\` for the options.`);
      return 2;
    }
    io.err(`querytrail: unexpected failure: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}
