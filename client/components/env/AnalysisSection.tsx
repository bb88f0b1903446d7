// "Analyze" for an environment: plans every catalog query with the production connection's
// statistics in the background, shows its progress, then the indexes that would help, best first.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useEnvAccess } from '../../hooks/useMe';
import { apiCodeOf, messageOf } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { RelativeTime } from '../RelativeTime';
import { RoleNote } from '../RoleNote';
import { EmptyState, ErrorState, Loading } from '../States';
import { IndexRecommendations } from './IndexRecommendations';
import { SavingCurve } from '../analysis/SavingCurve';

type Environment = RouterOutputs['env']['get'];
export type AnalysisStatus = RouterOutputs['analysis']['latest'];

/** How often a running analysis is asked how far it got. */
const POLL_INTERVAL_MS = 1000;

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

function AnalysisResult({ envId, status }: { envId: string; status: AnalysisStatus }) {
  if (status.status === 'running') return <AnalysisProgress status={status} />;
  return (
    <>
      <p className="muted small">
        {status.status === 'failed' ? 'Failed' : `Analyzed ${formatNumber(status.queryCount)} quer${status.queryCount === 1 ? 'y' : 'ies'}`} with the statistics
        of <strong>{status.connectionLabel}</strong>
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
          <IndexRecommendations envId={envId} indexes={status.indexes} queryCount={status.queryCount} />
          {status.savingCurve ? <SavingCurve curve={status.savingCurve} stop={status.stopReason ?? null} /> : null}
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
      void utils.analysis.indexHealth.invalidate({ id: envId });
    }
  }, [status, envId, queryClient, utils]);
}

export function AnalysisSection({ env }: { env: Environment }) {
  const utils = trpc.useUtils();
  const latest = trpc.analysis.latest.useQuery(
    { id: env.id },
    {
      retry: retryUnlessNotFound,
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
  const { role, can } = useEnvAccess(env.id);
  const editor = can('editor');

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
          disabled={running || !editor}
          aria-describedby={editor ? 'analysis-hint' : 'analysis-role analysis-hint'}
        >
          {running ? 'Analyzing…' : status ? 'Analyze again' : 'Analyze'}
        </button>
      </div>
      <p id="analysis-hint" className="muted">
        {production ? (
          <>
            Plans every catalog query with the planner statistics of <strong>{production.label}</strong> (read only) and finds the indexes that would lower
            their cost. Nothing is created on your databases.
          </>
        ) : (
          <>Needs a connection with role production: its planner statistics are what the queries are planned with.</>
        )}
      </p>
      {editor ? null : <RoleNote id="analysis-role" needed="editor" role={role} action="run Analyze" />}
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
        start.isPending ? null : (
          <EmptyState title="This environment has not been analyzed yet." />
        )
      ) : (
        <ErrorState title="The latest analysis could not be loaded" error={latest.error} onRetry={() => latest.refetch()} />
      )}
    </section>
  );
}
