// One CI run, what changed in it under production statistics, and the queries it reported.
import { Link, useParams } from 'react-router-dom';
import { RunChanges } from '../components/analysis/RunChanges';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { apiCodeOf } from '../lib/errors';
import { queryPath } from '../lib/paths';
import { formatDuration, formatNumber } from '../lib/time';
import { trpc } from '../trpc';
import { EnvironmentBadge, RunContext } from './CiRunsPage';

export function CiRunPage() {
  const { id = '' } = useParams();
  const run = trpc.ci.get.useQuery({ id }, { retry: (count, error) => apiCodeOf(error) !== 'not_found' && count < 1 });

  return (
    <div className="page">
      <p className="breadcrumbs">
        <Link to="/ci">CI runs</Link> / Run
      </p>
      {run.isPending ? (
        <Loading label="Loading CI run…" />
      ) : run.isError ? (
        apiCodeOf(run.error) === 'not_found' ? (
          <>
            <h1>CI run not found</h1>
            <EmptyState title="There is no CI run with this id.">
              <Link to="/ci">Back to CI runs</Link>
            </EmptyState>
          </>
        ) : (
          <ErrorState title="The CI run could not be loaded" error={run.error} onRetry={() => run.refetch()} />
        )
      ) : (
        <>
          <header className="page-header">
            <div>
              <h1 className="run-title">
                <span>{run.data.repo}</span>
                <EnvironmentBadge environment={run.data.environment} />
              </h1>
              <p>
                <RunContext run={run.data} /> <span className="muted small">Received <RelativeTime value={run.data.createdAt} /></span>
              </p>
              {!run.data.environment ? (
                <p className="muted">This repository was not linked to an environment when the run arrived, so its queries are not in any catalog.</p>
              ) : null}
            </div>
          </header>
          {run.data.rejected.length > 0 ? (
            <div className="callout callout-warning">
              <p className="callout-title">
                {run.data.rejected.length} quer{run.data.rejected.length === 1 ? 'y was' : 'ies were'} rejected
              </p>
              <ul>
                {run.data.rejected.map((r) => (
                  <li key={r.index}>
                    #{r.index + 1}: {r.reason}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <RunChanges runId={run.data.id} envId={run.data.environment?.id ?? null} />
          <section className="card" aria-labelledby="run-queries-heading">
            <h2 id="run-queries-heading" className="card-title">
              Queries <span className="count">{formatNumber(run.data.queries.length)}</span>
            </h2>
            {run.data.queries.length === 0 ? (
              <EmptyState title="This run reported no queries." />
            ) : (
              <div className="table-scroll">
                <table className="data-table queries-table" aria-label="Queries of this run">
                  <thead>
                    <tr>
                      <th scope="col">Query</th>
                      <th scope="col" className="numeric">
                        Calls
                      </th>
                      <th scope="col" className="numeric">
                        Mean time
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {run.data.queries.map((query) => (
                      <tr key={query.hash}>
                        <td className="query-cell">
                          {run.data.environment ? (
                            <Link to={queryPath(run.data.environment.id, query.hash)} className="query-link" aria-label={`Open query ${query.hash} in the catalog`}>
                              <pre className="sql sql-compact">
                                <code>{query.formattedQuery}</code>
                              </pre>
                            </Link>
                          ) : (
                            <pre className="sql sql-compact">
                              <code>{query.formattedQuery}</code>
                            </pre>
                          )}
                        </td>
                        <td className="numeric">{query.calls === null ? '—' : formatNumber(query.calls)}</td>
                        <td className="numeric">{query.meanTimeMs === null ? '—' : formatDuration(query.meanTimeMs)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}
