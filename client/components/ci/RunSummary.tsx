// What identifies a CI run in the lists and on its page: where it ran, and the environment whose
// catalog it fed.
import { Link } from 'react-router-dom';
import { environmentPath } from '../../lib/paths';
import type { RouterOutputs } from '../../trpc';

type Run = RouterOutputs['ci']['list'][number];

/** "run 42 · main · PR #7 · 1a2b3c4": the CI run id, branch, pull request and short commit. */
export function RunContext({ run }: { run: Pick<Run, 'branch' | 'pullRequest' | 'commitSha' | 'runId'> }) {
  return (
    <span className="run-context muted small">
      <span title="CI run id">run {run.runId}</span>
      {run.branch ? <span title="Branch"> · {run.branch}</span> : null}
      {run.pullRequest ? <span title="Pull request"> · PR #{run.pullRequest}</span> : null}
      {run.commitSha ? (
        <span title={`Commit ${run.commitSha}`}>
          {' '}
          · <code>{run.commitSha.slice(0, 7)}</code>
        </span>
      ) : null}
    </span>
  );
}

/** The environment of a linked repository's run, linking to it; nothing for an unlinked one. */
export function EnvironmentBadge({ environment }: { environment: Run['environment'] }) {
  if (!environment) return null;
  return (
    <Link to={environmentPath(environment.id)} className="badge badge-accent badge-link" title={`Environment ${environment.slug}`}>
      {environment.name}
    </Link>
  );
}
