// One environment: its connections, linked repositories, query analysis, CI policy and acknowledged
// queries, query catalog, webhooks, members and CI tokens (on a team server), and deletion. Each
// section shows the controls the caller's role on the environment allows, and says who may use the
// others.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { Card } from '../components/Card';
import { ConfirmDialog, mutationDialog } from '../components/ConfirmDialog';
import { ProductionHistorySection } from '../components/history/ProductionHistorySection';
import { AcknowledgedQueries } from '../components/env/AcknowledgedQueries';
import { AnalysisSection } from '../components/env/AnalysisSection';
import { CiTokensSection } from '../components/env/CiTokensSection';
import { ConnectionsSection } from '../components/env/ConnectionsSection';
import { IndexHealthSection } from '../components/env/IndexHealthSection';
import { MembersSection } from '../components/env/MembersSection';
import { PolicySection } from '../components/env/PolicySection';
import { QueryCatalog } from '../components/env/QueryCatalog';
import { ReposSection } from '../components/env/ReposSection';
import { WebhooksSection } from '../components/env/WebhooksSection';
import { Badge } from '../components/Badge';
import { RelativeTime } from '../components/RelativeTime';
import { RoleNote } from '../components/RoleNote';
import { Loading, LoadFailure } from '../components/States';
import { useEnvAccess, useMe, useMeState } from '../hooks/useMe';
import { retryUnlessNotFound } from '../lib/queries';
import { trpc, type RouterOutputs } from '../trpc';

type Environment = RouterOutputs['env']['get'];

function DeleteEnvironment({ env }: { env: Environment }) {
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState(false);
  const { role, can } = useEnvAccess(env.id);
  const owner = can('owner');
  const remove = trpc.env.delete.useMutation({
    onSuccess: async () => {
      utils.env.get.setData({ id: env.id }, undefined);
      await utils.env.list.invalidate();
      navigate('/environments', { state: { deleted: env.name } });
    },
  });
  return (
    <Card id="delete-heading" title="Delete Environment" className="card-danger">
      <p className="muted">
        Removes the environment, its connections, its repository links and its query catalog. CI runs already received stay, without an environment.
      </p>
      <button
        type="button"
        className="button button-danger"
        onClick={() => setConfirming(true)}
        disabled={!owner}
        aria-describedby={owner ? undefined : 'delete-role-note'}
      >
        Delete environment
      </button>
      {owner ? null : <RoleNote id="delete-role-note" needed="owner" role={role} action="delete this environment" />}
      {confirming ? (
        <ConfirmDialog
          title={`Delete “${env.name}”?`}
          confirmLabel="Delete environment"
          onConfirm={() => remove.mutate({ id: env.id })}
          {...mutationDialog(remove, () => setConfirming(false))}
        >
          <p>
            This deletes {env.connections.length} connection{env.connections.length === 1 ? '' : 's'}, {env.repos.length} repository link
            {env.repos.length === 1 ? '' : 's'} and the whole query catalog of <strong>{env.name}</strong>. It cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </Card>
  );
}

/** On a team server: what the signed-in person is here (admins may do everything). */
function YourRole({ envId }: { envId: string }) {
  const me = useMe();
  if (!me || me.mode === 'local') return null;
  const role = me.role === 'admin' ? 'admin' : me.memberships[envId];
  return role ? <Badge tone={role === 'admin' || role === 'owner' ? 'accent' : 'neutral'} title="Your role on this environment">{`you: ${role}`}</Badge> : null;
}

/** Members and CI tokens mean something only where people sign in: not on a single-user server. */
function TeamSections({ envId }: { envId: string }) {
  const me = useMe();
  if (!me || me.mode === 'local') return null;
  // full width, one above the other: a token table does not fit a column
  return (
    <>
      <MembersSection envId={envId} />
      <CiTokensSection envId={envId} />
    </>
  );
}

export function EnvironmentPage() {
  const { id = '' } = useParams();
  const env = trpc.env.get.useQuery({ id }, { retry: retryUnlessNotFound });
  // its controls depend on the caller's role: the page shows once both are known
  const meLoading = useMeState().loading;

  if (env.isPending || (meLoading && !env.isError)) {
    return (
      <div className="page">
        <Loading label="Loading environment…" />
      </div>
    );
  }
  if (env.isError) {
    return (
      <div className="page">
        <p className="breadcrumbs">
          <Link to="/environments">Environments</Link>
        </p>
        <LoadFailure what="environment" error={env.error} onRetry={() => env.refetch()} notFound="This environment does not exist, or it was deleted.">
          <Link to="/environments">Back to all environments</Link>
        </LoadFailure>
      </div>
    );
  }

  const data = env.data;
  // keyed by id: forms and filters start fresh when another environment opens in the same route
  return (
    <div className="page" key={data.id}>
      <header className="page-header">
        <div>
          <p className="breadcrumbs">
            <Link to="/environments">Environments</Link> / {data.name}
          </p>
          <h1>{data.name}</h1>
          <p className="muted">
            <code>{data.slug}</code> · created <RelativeTime value={data.createdAt} /> <YourRole envId={data.id} />
          </p>
        </div>
      </header>
      <div className="two-columns">
        <ConnectionsSection env={data} />
        <ReposSection env={data} />
      </div>
      <AnalysisSection env={data} />
      <IndexHealthSection envId={data.id} />
      <ProductionHistorySection
        envId={data.id}
        intervalSeconds={data.snapshotIntervalSeconds}
        effectiveIntervalSeconds={data.effectiveSnapshotIntervalSeconds}
      />
      <div className="two-columns">
        <PolicySection envId={data.id} />
        <AcknowledgedQueries envId={data.id} />
      </div>
      <QueryCatalog envId={data.id} />
      <WebhooksSection envId={data.id} />
      <TeamSections envId={data.id} />
      <DeleteEnvironment env={data} />
    </div>
  );
}
