// One CI run: its verdict first, then what changed in it under production statistics, and the
// queries it reported.
import { Link, useParams } from 'react-router-dom';
import { RunChanges } from '../components/analysis/RunChanges';
import { RejectedQueries, RunQueries } from '../components/ci/RunQueries';
import { EnvironmentBadge, RunContext } from '../components/ci/RunSummary';
import { RelativeTime } from '../components/RelativeTime';
import { Loading, LoadFailure } from '../components/States';
import { RunVerdict } from '../components/verdict/RunVerdict';
import { useMeState } from '../hooks/useMe';
import { retryUnlessNotFound } from '../lib/queries';
import { trpc } from '../trpc';

export function CiRunPage() {
  const { id = '' } = useParams();
  const run = trpc.ci.get.useQuery({ id }, { retry: retryUnlessNotFound });
  // acknowledging depends on the caller's role: the run shows once it is known
  const meLoading = useMeState().loading;

  return (
    <div className="page">
      <p className="breadcrumbs">
        <Link to="/ci">CI runs</Link> / Run
      </p>
      {run.isPending || (meLoading && !run.isError) ? (
        <Loading label="Loading CI run…" />
      ) : run.isError ? (
        <LoadFailure what="CI run" error={run.error} onRetry={() => run.refetch()} notFound="There is no CI run with this id.">
          <Link to="/ci">Back to CI runs</Link>
        </LoadFailure>
      ) : (
        <>
          <header className="page-header">
            <div>
              <h1 className="run-title">
                <span>{run.data.repo}</span>
                <EnvironmentBadge environment={run.data.environment} />
              </h1>
              <p>
                <RunContext run={run.data} />{' '}
                <span className="muted small">
                  Received <RelativeTime value={run.data.createdAt} />
                </span>
              </p>
              {!run.data.environment ? (
                <p className="muted">This repository was not linked to an environment when the run arrived, so its queries are not in any catalog.</p>
              ) : null}
            </div>
          </header>
          <RunVerdict runId={run.data.id} envId={run.data.environment?.id ?? null} />
          <RejectedQueries rejected={run.data.rejected} />
          <RunChanges runId={run.data.id} envId={run.data.environment?.id ?? null} />
          <RunQueries run={run.data} />
        </>
      )}
    </div>
  );
}
