// "No database at hand?": the demo, started from the first page. Its steps are shown as the server
// makes them (polled every second); once ready, links to what it made, its schema, and Remove.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { ConfirmDialog, mutationDialog } from '../ConfirmDialog';
import { ErrorCallout } from '../States';
import { useMe } from '../../hooks/useMe';
import { messageOf } from '../../lib/errors';
import { useSync } from '../../sync-context';
import { trpc, type RouterOutputs } from '../../trpc';

type DemoStatus = RouterOutputs['demo']['status'];
type Step = DemoStatus['steps'][number];

const STEP_MARKS: Record<Step['status'], string> = { pending: '○', running: '…', done: '✓', failed: '✗' };
const STEP_WORDS: Record<Step['status'], string> = { pending: 'to do', running: 'running', done: 'done', failed: 'failed' };

function DemoSteps({ steps }: { steps: Step[] }) {
  return (
    <ol className="demo-steps" aria-label="Demo progress">
      {steps.map((step) => (
        <li key={step.key} className={`demo-step demo-step-${step.status}`} aria-label={`${step.label}: ${STEP_WORDS[step.status]}`}>
          <span className="demo-step-mark" aria-hidden="true">
            {step.status === 'running' ? <span className="spinner" /> : STEP_MARKS[step.status]}
          </span>
          <span className="demo-step-text">
            <span className="demo-step-label">{step.label}</span>
            {step.detail ? <span className="demo-step-detail muted small">{step.detail}</span> : null}
          </span>
          {step.durationMs !== null && step.status === 'done' ? <span className="muted small nowrap">{(step.durationMs / 1000).toFixed(1)} s</span> : null}
        </li>
      ))}
    </ol>
  );
}

function ReadyActions({ status }: { status: DemoStatus }) {
  const navigate = useNavigate();
  const { setSync } = useSync();
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState(false);
  const admin = useIsAdmin();
  const sync = trpc.demo.sync.useMutation({
    onSuccess: (result) => {
      setSync({ result, target: 'Pagila demo (local PostgreSQL 18)', receivedAt: new Date().toISOString() });
      navigate('/sync');
    },
  });
  const remove = trpc.demo.remove.useMutation({
    onSuccess: async () => {
      setConfirming(false);
      await Promise.all([utils.demo.status.invalidate(), utils.env.list.invalidate()]);
    },
  });
  return (
    <>
      <p>
        The demo is ready{status.durationMs !== null ? ` (made in ${Math.round(status.durationMs / 1000)} s)` : ''}
        {status.database === 'running' ? '' : '; its database is starting'}.
      </p>
      <ul className="demo-links">
        <li>
          <Link to={`/environments/${status.environmentId}`} className="link">
            Open the “Pagila demo” environment
          </Link>
          <span className="muted"> — its catalog from CI, production and by hand, costs and recommended indexes</span>
        </li>
        <li>
          <Link to={`/ci/${status.pullRequestRunId}`} className="link">
            See the failing CI run of pull request #42
          </Link>
          <span className="muted"> — its verdict and the CREATE INDEX it needs</span>
        </li>
      </ul>
      {sync.isError ? <ErrorCallout>{messageOf(sync.error)}</ErrorCallout> : null}
      {admin ? (
        <div className="form-actions">
          <button type="button" className="button" onClick={() => sync.mutate({})} disabled={sync.isPending}>
            {sync.isPending ? 'Reading the demo database…' : 'View the demo database’s schema'}
          </button>
          <button type="button" className="button button-danger-quiet" onClick={() => setConfirming(true)}>
            Remove demo
          </button>
        </div>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title="Remove the demo?"
          confirmLabel="Remove demo"
          pendingLabel="Removing…"
          onConfirm={() => remove.mutate({})}
          {...mutationDialog(remove, () => setConfirming(false))}
        >
          <p>
            This stops the demo’s PostgreSQL and deletes its data folder, the <strong>Pagila demo</strong> environment with its catalog, and its CI runs.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** The demo runs a database on the server's machine: admins only (outside a session, and until /api/me answers, the single-user app's admin: the server refuses anyone else). */
function useIsAdmin() {
  const me = useMe();
  return !me || me.role === 'admin';
}

export function DemoCard() {
  const utils = trpc.useUtils();
  const admin = useIsAdmin();
  const status = trpc.demo.status.useQuery(undefined, {
    refetchInterval: (query) => (query.state.data?.state === 'starting' || query.state.data?.state === 'removing' ? 1000 : false),
  });
  const start = trpc.demo.start.useMutation({ onSuccess: (data) => utils.demo.status.setData(undefined, data) });
  const data = status.data;
  const state = data?.state;

  return (
    <section className="card" aria-labelledby="demo-heading">
      <h2 id="demo-heading" className="card-title">
        No database at hand?
      </h2>
      {state === 'ready' && data ? (
        <>
          <DemoSteps steps={data.steps} />
          <ReadyActions status={data} />
        </>
      ) : state === 'starting' || state === 'removing' ? (
        <>
          <p role="status">
            {state === 'removing' ? 'Removing the demo…' : 'Making the demo: a local PostgreSQL 18 with Pagila, then everything querytrail does with it.'}
          </p>
          <DemoSteps steps={data!.steps} />
        </>
      ) : (
        <>
          <p className="muted">
            Start a local PostgreSQL 18 with a generated Pagila database (half a million rows) and an application’s workload, then see what querytrail makes of
            it: a synced catalog, costs and recommended indexes, and a pull request’s failing CI verdict. It takes about a minute.
          </p>
          {state === 'failed' && data ? (
            <>
              <DemoSteps steps={data.steps} />
              <ErrorCallout title="The demo failed">{data.error}</ErrorCallout>
            </>
          ) : null}
          {start.isError ? <ErrorCallout>{messageOf(start.error)}</ErrorCallout> : null}
          {admin ? (
            <div className="form-actions">
              <button type="button" className="button button-primary" onClick={() => start.mutate({})} disabled={start.isPending || status.isPending}>
                {state === 'failed' ? 'Try the demo again' : 'Start the demo database'}
              </button>
              <span className="muted small">
                or from a shell: <code>npx querytrail demo</code>
              </span>
            </div>
          ) : (
            <p className="role-note">Admins can start the demo on this server.</p>
          )}
        </>
      )}
    </section>
  );
}
