// GitHub Actions: the run's details from its variables, and where a verdict shows on GitHub: the
// job summary ($GITHUB_STEP_SUMMARY), one annotation per counted finding, and the pull request's
// one comment. None of these changes the exit code: a GitHub that refuses a comment is a warning,
// the verdict alone decides.
import { readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import type { CiProvider, RunFields, VerdictReport } from './ci-types';
import { upsertPrComment } from './pr-comment';
import { verdictMarkdown } from './verdict-format';
import { sayNoteOutcome } from './verdict-note';
import { annotations } from './workflow-commands';

/** The pull request of a GitHub Actions run: the event's pull_request.number, else refs/pull/N/merge. */
export function pullRequestOf(env: NodeJS.ProcessEnv): number | undefined {
  if (env.GITHUB_EVENT_PATH) {
    try {
      const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as { pull_request?: { number?: unknown } };
      const number = event.pull_request?.number;
      if (typeof number === 'number' && Number.isInteger(number) && number > 0) return number;
    } catch {
      // not readable or not JSON: GITHUB_REF still says it on pull_request events
    }
  }
  const pr = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '');
  return pr ? Number(pr[1]) : undefined;
}

/** What GitHub Actions says about the run; flags and a run.json override these. */
export function githubDefaults(env: NodeJS.ProcessEnv): Partial<RunFields> {
  const out: Partial<RunFields> = {};
  if (env.GITHUB_REPOSITORY) out.repo = env.GITHUB_REPOSITORY;
  if (env.GITHUB_RUN_ID) {
    // A re-run of the same workflow run is a new run of the tests, so each attempt is its own run.
    const attempt = env.GITHUB_RUN_ATTEMPT;
    out.runId = attempt && attempt !== '1' ? `${env.GITHUB_RUN_ID}-${attempt}` : env.GITHUB_RUN_ID;
  }
  if (env.GITHUB_SHA) out.commitSha = env.GITHUB_SHA;
  // On pull_request events GITHUB_REF_NAME is "<n>/merge"; GITHUB_HEAD_REF is the branch itself.
  const branch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME;
  if (branch) out.branch = branch;
  const pr = pullRequestOf(env);
  if (pr) out.pullRequest = pr;
  return out;
}

export async function reportToGithub(env: NodeJS.ProcessEnv, report: VerdictReport): Promise<void> {
  const { verdict, context } = report;
  if (env.GITHUB_STEP_SUMMARY) {
    try {
      await appendFile(env.GITHUB_STEP_SUMMARY, `${verdictMarkdown(verdict, context)}\n`);
    } catch (error) {
      report.warn(`querytrail: warning: cannot write the job summary to ${env.GITHUB_STEP_SUMMARY}: ${(error as Error).message}`);
    }
  }
  if (env.GITHUB_ACTIONS === 'true') {
    for (const line of annotations(verdict, context)) report.annotate(line);
  }

  if (report.comment === 'never' || !report.pullRequest) return;
  const repository = env.GITHUB_REPOSITORY || context.repo;
  const token = env.GITHUB_TOKEN;
  if (!token) {
    if (env.GITHUB_ACTIONS === 'true') report.say("querytrail: no pull request comment: no GitHub token (GITHUB_TOKEN, or the action's github-token input)");
    return;
  }
  const outcome = await upsertPrComment(
    { token, baseUrl: env.GITHUB_API_URL || 'https://api.github.com', repository, pullRequest: report.pullRequest },
    {
      status: verdict.status,
      mode: report.comment,
      body: (previous) => verdictMarkdown(verdict, context, { previous }),
      warn: (message) => report.warn(`querytrail: warning: GitHub: ${message}`),
    },
  );
  sayNoteOutcome(outcome, { review: 'pull request', note: 'comment', where: `${repository}#${report.pullRequest}` }, report.say, report.warn);
}

export const githubActions: CiProvider = {
  name: 'GitHub Actions',
  runFields: githubDefaults,
  variables: { repo: 'GITHUB_REPOSITORY', runId: 'GITHUB_RUN_ID' },
  credentialWays:
    "set QUERYTRAIL_TOKEN (the action's `token` input) to a CI token of the environment the repository is linked to, " +
    'or give the GitHub Actions job `permissions: id-token: write` so that ci-report sends its ID token instead (tokenless CI)',
  publish: reportToGithub,
};
