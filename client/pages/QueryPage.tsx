// One catalog query: its full formatted SQL, its production analysis, raw text, and when and where it was seen.
import { Link, useParams } from 'react-router-dom';
import { QueryAnalysis } from '../components/analysis/QueryAnalysis';
import { Badge, SOURCE_LABELS, sourceTone } from '../components/Badge';
import { QueryHistory } from '../components/history/QueryHistory';
import { CallSites } from '../components/CallSites';
import { Card } from '../components/Card';
import { Fact, Facts } from '../components/Facts';
import { RelativeTime } from '../components/RelativeTime';
import { SqlBlock } from '../components/SqlBlock';
import { Loading, LoadFailure } from '../components/States';
import { environmentPath } from '../lib/paths';
import { retryUnlessNotFound } from '../lib/queries';
import { formatNumber } from '../lib/time';
import { trpc } from '../trpc';

export function QueryPage() {
  const { id = '', hash = '' } = useParams();
  const env = trpc.env.get.useQuery({ id }, { retry: false });
  const query = trpc.queries.get.useQuery({ id, hash }, { retry: retryUnlessNotFound });
  const envPath = environmentPath(id);

  return (
    <div className="page">
      <p className="breadcrumbs">
        <Link to="/environments">Environments</Link> / <Link to={envPath}>{env.data?.name ?? 'Environment'}</Link> / Query
      </p>
      {query.isPending ? (
        <Loading label="Loading query…" />
      ) : query.isError ? (
        <LoadFailure what="query" error={query.error} onRetry={() => query.refetch()} notFound="This query is not in the environment's catalog.">
          <Link to={envPath}>Back to the catalog</Link>
        </LoadFailure>
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
            <Facts>
              <Fact term="Last seen">
                <RelativeTime value={query.data.lastSeenAt} />
              </Fact>
              <Fact term="First seen">
                <RelativeTime value={query.data.firstSeenAt} />
              </Fact>
              <Fact term="Last seen in">
                <Badge tone={sourceTone(query.data.lastSeenSource)}>{SOURCE_LABELS[query.data.lastSeenSource]}</Badge>
              </Fact>
              <Fact term="CI runs">{formatNumber(query.data.ciRunCount)}</Fact>
            </Facts>
          </section>
          <Card id="formatted-heading" title="Formatted SQL">
            <SqlBlock sql={query.data.formattedQuery} />
          </Card>
          <Card id="call-sites-heading" title="Call sites">
            {query.data.callSites.length > 0 ? (
              <CallSites sites={query.data.callSites} />
            ) : (
              <p className="muted">
                No call site known: the query&rsquo;s texts carried no sqlcommenter or marginalia tags (see docs/ci-and-verdicts.md on tagging queries).
              </p>
            )}
          </Card>
          <QueryHistory envId={id} hash={query.data.hash} />
          <QueryAnalysis envId={id} hash={query.data.hash} />
          <Card id="raw-heading" title="Last raw text">
            <p className="muted">As last received, literals included.</p>
            <SqlBlock sql={query.data.query} />
          </Card>
        </>
      )}
    </div>
  );
}
