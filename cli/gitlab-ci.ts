// GitLab CI: the run's details from the predefined variables GitLab documents, and where a verdict
// shows on GitLab: the merge request's one note (cli/gitlab-notes.ts) and a Code Quality report
// (cli/code-quality.ts) the job keeps as `artifacts: reports: codequality`. Neither changes the exit
// code: a GitLab that refuses the note is a warning, the verdict alone decides.
import type { CiProvider, RunFields, VerdictReport } from './ci-types';
import { CODE_QUALITY_FILE, codeQualityReport, fallbackPath, writeCodeQuality } from './code-quality';
import { gitlabTokenOf, upsertMergeRequestNote } from './gitlab-notes';
import { verdictMarkdown } from './verdict-format';
import { sayNoteOutcome } from './verdict-note';

/** What GitLab CI says about the job; flags and a run.json override these. */
export function gitlabDefaults(env: NodeJS.ProcessEnv): Partial<RunFields> {
  const out: Partial<RunFields> = {};
  if (env.CI_PROJECT_PATH) out.repo = env.CI_PROJECT_PATH;
  // A retried job is a new run of the tests: the job's id is new, the pipeline's is not.
  if (env.CI_PIPELINE_ID) out.runId = env.CI_JOB_ID ? `${env.CI_PIPELINE_ID}-${env.CI_JOB_ID}` : env.CI_PIPELINE_ID;
  if (env.CI_COMMIT_SHA) out.commitSha = env.CI_COMMIT_SHA;
  // In a merge request pipeline CI_COMMIT_BRANCH is unset and CI_COMMIT_REF_NAME may be a ref of GitLab's own.
  const branch = env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME;
  if (branch) out.branch = branch;
  const iid = Number(env.CI_MERGE_REQUEST_IID);
  if (Number.isInteger(iid) && iid > 0) out.pullRequest = iid;
  return out;
}

/** CI_API_V4_URL; older runners give only CI_SERVER_URL. */
const apiUrlOf = (env: NodeJS.ProcessEnv) => env.CI_API_V4_URL || (env.CI_SERVER_URL ? `${env.CI_SERVER_URL.replace(/\/+$/, '')}/api/v4` : undefined);

async function reportToGitlab(env: NodeJS.ProcessEnv, report: VerdictReport): Promise<void> {
  const { verdict, context } = report;
  const file = report.codequality ?? CODE_QUALITY_FILE;
  const issues = codeQualityReport(verdict, context, fallbackPath(env));
  try {
    await writeCodeQuality(file, issues);
    report.say(`querytrail: wrote ${issues.length} Code Quality issue${issues.length === 1 ? '' : 's'} to ${file}`);
  } catch (error) {
    report.warn(`querytrail: warning: cannot write the Code Quality report to ${file}: ${(error as Error).message}`);
  }

  if (report.comment === 'never' || !report.pullRequest) return;
  const project = env.CI_PROJECT_ID || env.CI_PROJECT_PATH || context.repo;
  const token = gitlabTokenOf(env);
  const apiUrl = apiUrlOf(env);
  if (!token || !apiUrl) {
    const missing = !token ? 'no GitLab token (QUERYTRAIL_GITLAB_TOKEN, or CI_JOB_TOKEN)' : 'no GitLab API address (CI_API_V4_URL or CI_SERVER_URL)';
    report.say(`querytrail: no merge request note: ${missing}`);
    return;
  }
  const outcome = await upsertMergeRequestNote(
    { token, apiUrl, project, mergeRequest: report.pullRequest },
    {
      status: verdict.status,
      mode: report.comment,
      body: (previous) => verdictMarkdown(verdict, context, { previous, review: 'merge request' }),
      warn: (message) => report.warn(`querytrail: warning: GitLab: ${message}`),
    },
  );
  const where = `${env.CI_PROJECT_PATH || context.repo}!${report.pullRequest}`;
  sayNoteOutcome(outcome, { review: 'merge request', note: 'note', where, detail: ` (with ${token.variable})` }, report.say, report.warn);
}

export const gitlabCi: CiProvider = {
  name: 'GitLab CI',
  runFields: gitlabDefaults,
  variables: { repo: 'CI_PROJECT_PATH', runId: 'CI_PIPELINE_ID' },
  credentialWays:
    'set QUERYTRAIL_TOKEN (a masked CI/CD variable) to a CI token of the environment the project is linked to, ' +
    'or give the job `id_tokens: QUERYTRAIL_ID_TOKEN: aud: querytrail` so that ci-report sends its ID token instead (tokenless CI)',
  publish: reportToGitlab,
};
