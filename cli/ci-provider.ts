// The CI a report runs in, behind one small interface: what the CI says about the run (repository,
// run id, commit, branch, pull or merge request), how a job authenticates without a stored token,
// and where the verdict shows (GitHub: job summary, annotations, the pull request's comment;
// GitLab: the merge request's note and a Code Quality report). One file per CI; the rest of
// ci-report does not know which one it is in.
import type { CiProvider } from './ci-types';
import { githubActions } from './github-actions';
import { gitlabCi } from './gitlab-ci';

/** GitLab CI when its documented GITLAB_CI is set; GitHub Actions (or a plain shell) otherwise. */
export function ciProviderOf(env: NodeJS.ProcessEnv): CiProvider {
  return env.GITLAB_CI === 'true' ? gitlabCi : githubActions;
}
