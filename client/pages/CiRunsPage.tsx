// CI runs, newest first. A run of a linked repository carries its environment's name as a badge,
// and its verdict beside it.
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Badge } from '../components/Badge';
import { EnvironmentBadge, RunContext } from '../components/ci/RunSummary';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { DataTable } from '../components/DataTable';
import { VerdictBadge } from '../components/verdict/VerdictBadge';
import { runPath } from '../lib/paths';
import { nextOffset } from '../lib/queries';
import { formatNumber } from '../lib/time';
import { trpc } from '../trpc';

const PAGE_SIZE = 50;
const PENDING_REFRESH_MS = 3000;
const COLUMNS = ['Repository', { label: 'Queries', className: 'numeric' }, 'Received'];

export function CiRunsPage() {
  const utils = trpc.useUtils();
  const runs = useInfiniteQuery({
    queryKey: ['ci-runs'],
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) => utils.client.ci.list.query({ limit: PAGE_SIZE, offset: pageParam }, { signal }),
    getNextPageParam: nextOffset(PAGE_SIZE),
    // a run being analyzed gets its verdict within seconds: ask again sooner while one is pending
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.some((run) => run.verdictStatus === 'pending')) ? PENDING_REFRESH_MS : 30_000),
  });
  const rows = runs.data?.pages.flat() ?? [];

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>CI runs</h1>
          <p className="lead">Every run the CI reporter sent, newest first. Runs of a linked repository feed its environment&apos;s query catalog.</p>
        </div>
      </header>
      <section className="card" aria-label="CI runs">
        {runs.isPending ? (
          <Loading label="Loading CI runs…" />
        ) : runs.isError ? (
          <ErrorState title="CI runs could not be loaded" error={runs.error} onRetry={() => runs.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title="No CI runs yet.">
            Add the querytrail CI reporter to your pipeline (<code>npx querytrail ci-report</code>); its runs appear here.
          </EmptyState>
        ) : (
          <>
            <DataTable
              label="CI runs, newest first"
              className="runs-table"
              columns={COLUMNS}
              rows={rows}
              row={(run) => (
                <tr key={run.id}>
                  <td>
                    <div className="run-title">
                      <Link to={runPath(run.id)} className="repo-name">
                        {run.repo}
                      </Link>
                      <EnvironmentBadge environment={run.environment} />
                      {run.environment ? <VerdictBadge status={run.verdictStatus} /> : null}
                    </div>
                    <RunContext run={run} />
                  </td>
                  <td className="numeric">
                    {formatNumber(run.queryCount)}
                    {run.newQueryCount > 0 ? (
                      <div>
                        <Badge tone="success">{formatNumber(run.newQueryCount)} new</Badge>
                      </div>
                    ) : null}
                  </td>
                  <td className="nowrap">
                    <RelativeTime value={run.createdAt} />
                  </td>
                </tr>
              )}
            />
            {runs.hasNextPage ? (
              <button type="button" className="button" onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
                {runs.isFetchingNextPage ? 'Loading…' : 'Load older runs'}
              </button>
            ) : null}
          </>
        )}
      </section>
    </div>
  );
}
