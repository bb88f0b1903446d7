// "Analyze" for an environment: plans every catalog query with the production connection's
// statistics in the background, shows its progress, then the indexes that would help, best first.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import { apiCodeOf, messageOf } from '../../lib/errors';
import { queryPath } from '../../lib/paths';
import { formatCost } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge } from '../Badge';
import { RelativeTime } from '../RelativeTime';
import { SqlBlock } from '../SqlBlock';
import { EmptyState, ErrorState, Loading } from '../States';

type Environment = RouterOutputs['env']['get'];
export type AnalysisStatus = RouterOutputs['analysis']['latest'];

export const POLL_INTERVAL_MS = 1000;

/** What each phase of the job does, and what its done/total count. */
const PHASES: Record<string, { label: string; unit?: string }> = {
  queued: { label: 'Waiting to start' },
  snapshot: { label: 'Reading production statistics' },
  shadow: { label: 'Preparing the shadow planner' },
  candidates: { label: 'Trying candidate indexes', unit: 'candidates' },
  queries: { label: 'Planning queries', unit: 'queries' },
  saving: { label: 'Saving results', unit: 'queries' },
  done: { label: 'Finishing', unit: 'queries' },
};

export function AnalysisProgress({ status }: { status: AnalysisStatus }) {
  const phase = PHASES[status.phase] ?? { label: status.phase };
  const known = status.total > 0;
  const count = known ? `${formatNumber(status.done)} of ${formatNumber(status.total)}${phase.unit ? ` ${phase.unit}` : ''}` : undefined;
  return (
    <div className="analysis-progress">
      <p className="analysis-phase" aria-live="polite">
        <span className="spinner" aria-hidden="true" /> {phase.label}…{count ? <span className="muted"> {count}</span> : null}
      </p>
      <progress
        className="progress"
        aria-label="Analysis progress"
        aria-valuetext={count ? `${phase.label}: ${count}` : phase.label}
        max={known ? status.total : undefined}
        value={known ? status.done : undefined}
      />
    </div>
  );
}

const HELPED_SHOWN = 5;

/** A catalog query by its SQL on one line (its fingerprint until that loads), linking to its page. */
function QueryLink({ envId, hash }: { envId: string; hash: string }) {
  const query = trpc.queries.get.useQuery({ id: envId, hash }, { staleTime: 60_000, retry: false });
  const sql = query.data?.formattedQuery.replace(/\s+/g, ' ').trim();
  return (
    <Link to={queryPath(envId, hash)} className="helped-query" title={sql}>
      {sql ?? <code>{hash}</code>}
    </Link>
  );
}

function IndexRecommendations({ envId, status }: { envId: string; status: AnalysisStatus }) {
  if (status.indexes.length === 0) {
    return (
      <EmptyState title="No index would help.">
        {status.queryCount === 0 ? 'The catalog had no queries to analyze.' : `Every one of the ${formatNumber(status.queryCount)} queries is already served well.`}
      </EmptyState>
    );
  }
  return (
    <ol className="index-list" aria-label="Recommended indexes, most time saved first">
      {status.indexes.map((index, rank) => (
        <li key={index.createIndex} className="index-item">
          <div className="index-head">
            <span className="index-rank" aria-label={`Rank ${rank + 1}`}>
              #{rank + 1}
            </span>
            <span>
              on <code>{index.table}</code>
            </span>
            <Badge tone="accent">{index.method === 'gin' ? 'GIN' : 'B-tree'}</Badge>
            {index.predicate ? <Badge>partial</Badge> : null}
            {index.include.length > 0 ? <Badge>covering</Badge> : null}
          </div>
          <SqlBlock sql={index.createIndex} compact />
          <dl className="facts facts-small index-facts">
            <div>
              <dt>Total saved</dt>
              <dd title="Cost saved × production calls (1 call when unknown)">{formatCost(index.totalSaved)}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd>~{formatNumber(index.estimatedPages)} pages</dd>
            </div>
            <div className="index-queries">
              <dt>Queries helped</dt>
              <dd>
                <ul className="helped-list">
                  {index.queries.slice(0, HELPED_SHOWN).map((hash) => (
                    <li key={hash}>
                      <QueryLink envId={envId} hash={hash} />
                    </li>
                  ))}
                  {index.queries.length > HELPED_SHOWN ? (
                    <li className="muted small">and {formatNumber(index.queries.length - HELPED_SHOWN)} more</li>
                  ) : null}
                </ul>
              </dd>
            </div>
          </dl>
        </li>
      ))}
    </ol>
  );
}

function AnalysisResult({ envId, status }: { envId: string; status: AnalysisStatus }) {
  if (status.status === 'running') return <AnalysisProgress status={status} />;
  return (
    <>
      <p className="muted small">
        {status.status === 'failed' ? 'Failed' : `Analyzed ${formatNumber(status.queryCount)} quer${status.queryCount === 1 ? 'y' : 'ies'}`} with the statistics of{' '}
        <strong>{status.connectionLabel}</strong>
        {status.finishedAt ? (
          <>
            {' '}
            · finished <RelativeTime value={status.finishedAt} />
          </>
        ) : null}
      </p>
      {status.status === 'failed' ? (
        <div className="callout callout-danger" role="alert">
          <p className="callout-title">The analysis failed</p>
          <p className="callout-message">{status.error ?? 'No reason was given.'}</p>
        </div>
      ) : null}
      {status.warnings.length > 0 ? (
        <div className="callout callout-warning">
          <p className="callout-title">
            {status.warnings.length} warning{status.warnings.length === 1 ? '' : 's'}
          </p>
          <ul>
            {status.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {status.status === 'done' ? (
        <>
          <h3 className="analysis-subtitle">
            Recommended indexes {status.indexes.length > 0 ? <span className="count">{formatNumber(status.indexes.length)}</span> : null}
          </h3>
          <IndexRecommendations envId={envId} status={status} />
        </>
      ) : null}
    </>
  );
}

/** When a job this page watched finishes, what other views show of the old analysis is stale. */
function useRefreshWhenFinished(envId: string, status: AnalysisStatus['status'] | undefined) {
  const queryClient = useQueryClient();
  const utils = trpc.useUtils();
  const sawRunning = useRef(false);
  useEffect(() => {
    if (status === 'running') {
      sawRunning.current = true;
    } else if (status && sawRunning.current) {
      sawRunning.current = false;
      void queryClient.invalidateQueries({ queryKey: ['catalog', envId] });
      void utils.analysis.query.invalidate();
      void utils.analysis.ciRun.invalidate();
    }
  }, [status, envId, queryClient, utils]);
}

export function AnalysisSection({ env }: { env: Environment }) {
  const utils = trpc.useUtils();
  const latest = trpc.analysis.latest.useQuery(
    { id: env.id },
    {
      retry: (count, error) => apiCodeOf(error) !== 'not_found' && count < 1,
      refetchInterval: (query) => (query.state.data?.status === 'running' ? POLL_INTERVAL_MS : false),
    },
  );
  const start = trpc.analysis.start.useMutation({
    onSuccess: (status) => utils.analysis.latest.setData({ id: env.id }, status),
  });
  const status = latest.data;
  useRefreshWhenFinished(env.id, status?.status);
  const production = env.connections.find((c) => c.role === 'production');
  const running = status?.status === 'running' || start.isPending;
  const neverRun = latest.isError && apiCodeOf(latest.error) === 'not_found';

  return (
    <section className="card" aria-labelledby="analysis-heading" aria-busy={running}>
      <div className="card-row">
        <h2 id="analysis-heading" className="card-title">
          Query Analysis
        </h2>
        <button
          type="button"
          className="button button-primary"
          onClick={() => start.mutate({ id: env.id })}
          disabled={running}
          aria-describedby="analysis-hint"
        >
          {running ? 'Analyzing…' : status ? 'Analyze again' : 'Analyze'}
        </button>
      </div>
      <p id="analysis-hint" className="muted">
        {production ? (
          <>
            Plans every catalog query with the planner statistics of <strong>{production.label}</strong> (read only) and finds the indexes that would
            lower their cost. Nothing is created on your databases.
          </>
        ) : (
          <>Needs a connection with role production: its planner statistics are what the queries are planned with.</>
        )}
      </p>
      {start.isError ? (
        <div className="callout callout-danger" role="alert">
          <p className="callout-title">{apiCodeOf(start.error) === 'conflict' ? 'Cannot analyze this environment' : 'The analysis could not start'}</p>
          <p className="callout-message">{messageOf(start.error)}</p>
        </div>
      ) : null}
      {status ? (
        <AnalysisResult envId={env.id} status={status} />
      ) : latest.isPending ? (
        <Loading label="Loading the latest analysis…" />
      ) : neverRun ? (
        start.isPending ? null : <EmptyState title="This environment has not been analyzed yet." />
      ) : (
        <ErrorState title="The latest analysis could not be loaded" error={latest.error} onRetry={() => latest.refetch()} />
      )}
    </section>
  );
}
