// The CI a report runs in, behind one small interface: what the CI says about the run (repository,
// run id, commit, branch, pull or merge request), how a job authenticates without a stored token,
// and where the verdict shows (GitHub: job summary, annotations, the pull request's comment;
// GitLab: the merge request's note and a Code Quality report). One file per CI; the rest of
// ci-report does not know which one it is in.
import type { Verdict } from '../shared/policy';
import type { Io, RunFields } from './ci-report';
import { githubActions } from './github-actions';
import { gitlabCi } from './gitlab-ci';
import type { VerdictContext } from './verdict-format';
import type { CommentMode } from './verdict-note';

/** A verdict to show, and how ci-report was asked to show it. */
export interface VerdictReport {
  verdict: Verdict;
  context: VerdictContext;
  pullRequest?: number;
  comment: CommentMode;
  /** Where GitLab's Code Quality report goes (--codequality); GitHub has none. */
  codequality?: string;
  /** Where annotation lines go (stdout, unless stdout carries --format json). */
  annotate: Io['out'];
  /** Progress and outcome lines. */
  say: Io['out'];
  warn: Io['err'];
}

export interface CiProvider {
  /** Its name in messages, e.g. "GitHub Actions". */
  name: string;
  /** What the CI says about the run; flags and a run.json override these. */
  runFields(env: NodeJS.ProcessEnv): Partial<RunFields>;
  /** The variables the repository and the run id come from, for the error when they are missing. */
  variables: { repo: string; runId: string };
  /** The ways a job of this CI authenticates, for the hint of a 401 or 403. */
  credentialWays: string;
  /** Shows the verdict where developers look. Never changes the exit code: a refusal is a warning. */
  publish(env: NodeJS.ProcessEnv, report: VerdictReport): Promise<void>;
}

/** GitLab CI when its documented GITLAB_CI is set; GitHub Actions (or a plain shell) otherwise. */
export function ciProviderOf(env: NodeJS.ProcessEnv): CiProvider {
  return env.GITLAB_CI === 'true' ? gitlabCi : githubActions;
}
