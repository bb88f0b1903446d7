// One catalog query: its full formatted SQL, its production analysis, raw text, and when and where it was seen.
import { Link, useParams } from 'react-router-dom';
import { QueryAnalysis } from '../components/analysis/QueryAnalysis';
import { Badge, SOURCE_LABELS, sourceTone } from '../components/Badge';
import { RelativeTime } from '../components/RelativeTime';
import { SqlBlock } from '../components/SqlBlock';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { apiCodeOf } from '../lib/errors';
import { environmentPath } from '../lib/paths';
import { formatNumber } from '../lib/time';
import { trpc } from '../trpc';

export function QueryPage() {
  const { id = '', hash = '' } = useParams();
  const env = trpc.env.get.useQuery({ id }, { retry: false });
  const query = trpc.queries.get.useQuery({ id, hash }, { retry: (count, error) => apiCodeOf(error) !== 'not_found' && count < 1 });
  const envPath = environmentPath(id);

  return (
    <div className="page">
      <p className="breadcrumbs">
        <Link to="/environments">Environments</Link> / <Link to={envPath}>{env.data?.name ?? 'Environment'}</Link> / Query
      </p>
      {query.isPending ? (
        <Loading label="Loading query…" />
      ) : query.isError ? (
        apiCodeOf(query.error) === 'not_found' ? (
          <>
            <h1>Query not found</h1>
            <EmptyState title="This query is not in the environment's catalog.">
              <Link to={envPath}>Back to the catalog</Link>
            </EmptyState>
          </>
        ) : (
          <ErrorState title="The query could not be loaded" error={query.error} onRetry={() => query.refetch()} />
        )
      ) : (
        <>
          <header className="page-header">
            <div>
              <h1>Query</h1>
              <p className="muted">
                Fingerprint <code>{query.data.hash}</code>
              </p>
            </div>
          </header>
          <section className="card" aria-labelledby="query-facts">
            <h2 id="query-facts" className="visually-hidden">
              Details
            </h2>
            <dl className="facts">
              <div>
                <dt>Last seen</dt>
                <dd>
                  <RelativeTime value={query.data.lastSeenAt} />
                </dd>
              </div>
              <div>
                <dt>First seen</dt>
                <dd>
                  <RelativeTime value={query.data.firstSeenAt} />
                </dd>
              </div>
              <div>
                <dt>Last seen in</dt>
                <dd>
                  <Badge tone={sourceTone(query.data.lastSeenSource)}>{SOURCE_LABELS[query.data.lastSeenSource]}</Badge>
                </dd>
              </div>
              <div>
                <dt>CI runs</dt>
                <dd>{formatNumber(query.data.ciRunCount)}</dd>
              </div>
            </dl>
          </section>
          <section className="card" aria-labelledby="formatted-heading">
            <h2 id="formatted-heading" className="card-title">
              Formatted SQL
            </h2>
            <SqlBlock sql={query.data.formattedQuery} />
          </section>
          <QueryAnalysis envId={id} hash={query.data.hash} />
          <section className="card" aria-labelledby="raw-heading">
            <h2 id="raw-heading" className="card-title">
              Last raw text
            </h2>
            <p className="muted">As last received, literals included.</p>
            <SqlBlock sql={query.data.query} />
          </section>
        </>
      )}
    </div>
  );
}
