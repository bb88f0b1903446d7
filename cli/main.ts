// The `querytrail` command (bin/querytrail.mjs loads this through tsx).
import { parseArgs } from 'node:util';
import { ciReport, CliError, type Io } from './ci-report';

export const USAGE = `Usage: querytrail ci-report [options]

Reads pg_stat_statements of the CI database (its own database only, without system statements)
and/or a file of statements, fingerprints them and posts one CI run to querytrail.

  --api URL       querytrail API, e.g. https://querytrail.example.com/api   [QUERYTRAIL_API_URL]
  --db URL        CI database (postgres://...), read only                  [DATABASE_URL]
  --file PATH     statements.sql (split on ;) or run.json (a run or an array of queries)
  --repo ORG/REPO repository                                               [GITHUB_REPOSITORY]
  --run-id ID     CI run id                              [GITHUB_RUN_ID, -GITHUB_RUN_ATTEMPT if > 1]
  --branch NAME   branch                                   [GITHUB_HEAD_REF or GITHUB_REF_NAME]
  --sha SHA       commit                                                   [GITHUB_SHA]
  --pr N          pull request number                        [from GITHUB_REF refs/pull/N/merge]
  --no-schema     do not send the CI database's schema (tables, columns, indexes; sent with --db
                  so the verdict plans the run with its migrations applied)
  --dry-run       print the run as JSON instead of posting it
  --timeout MS    give up on the API after this long (default 60000)

The bearer token is read from QUERYTRAIL_TOKEN (never from the command line, which other users can see).
Exit codes: 0 reported, 1 database or API failure, 2 usage error.`;

const consoleIo: Io = { out: (line) => console.log(line), err: (line) => console.error(line) };

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = consoleIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (command !== 'ci-report') {
    io.err(`querytrail: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
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
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new CliError(`--timeout must be a number of milliseconds, got "${values.timeout}"`, 2);
    await ciReport(
      {
        api: values.api ?? env.QUERYTRAIL_API_URL,
        db: values.db ?? env.DATABASE_URL,
        file: values.file,
        repo: values.repo,
        runId: values['run-id'],
        branch: values.branch,
        sha: values.sha,
        pr: values.pr,
        token: env.QUERYTRAIL_TOKEN || undefined,
        dryRun: values['dry-run'],
        schema: !values['no-schema'],
        timeoutMs,
      },
      env,
      io,
    );
    return 0;
  } catch (error) {
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
