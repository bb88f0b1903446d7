// Where a verdict shows on GitHub: the job summary ($GITHUB_STEP_SUMMARY), one annotation per
// counted finding, and the pull request's one comment. None of these changes the exit code: a
// GitHub that refuses a comment is a warning, the verdict alone decides.
import { appendFile } from 'node:fs/promises';
import type { Verdict } from '../shared/policy';
import type { Io } from './ci-report';
import { upsertPrComment, type CommentMode } from './pr-comment';
import { verdictMarkdown, type VerdictContext } from './verdict-format';
import { annotations } from './workflow-commands';

export interface GithubReport {
  verdict: Verdict;
  context: VerdictContext;
  pullRequest?: number;
  comment: CommentMode;
  /** Where annotation lines go (stdout, unless stdout carries --format json). */
  annotate: Io['out'];
  /** Progress and outcome lines. */
  say: Io['out'];
  warn: Io['err'];
}

export async function reportToGithub(env: NodeJS.ProcessEnv, report: GithubReport): Promise<void> {
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
    if (env.GITHUB_ACTIONS === 'true') report.say('querytrail: no pull request comment: no GitHub token (GITHUB_TOKEN, or the action\'s github-token input)');
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
  switch (outcome.type) {
    case 'created':
    case 'updated':
      report.say(`querytrail: ${outcome.type} the comment on ${repository}#${report.pullRequest}${outcome.url ? ` (${outcome.url})` : ''}`);
      break;
    case 'skipped':
      report.say(`querytrail: no pull request comment: ${outcome.why}`);
      break;
    case 'failed':
      report.warn(`querytrail: warning: the pull request comment was not written: ${outcome.message}`);
      break;
  }
}
