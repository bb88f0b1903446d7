// The audit log, newest first: who changed what, when and from where. Admins read all of it,
// environment owners their environments' entries (the server filters; this page only offers the
// environments the reader may pick).
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { AuditChange } from '../components/audit/AuditChange';
import { Badge } from '../components/Badge';
import { Card } from '../components/Card';
import { SelectField } from '../components/Field';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { DataTable } from '../components/DataTable';
import { useMeState } from '../hooks/useMe';
import { environmentPath } from '../lib/paths';
import { readsAudit } from '../lib/session';
import { formatNumber } from '../lib/time';
import { trpc, type RouterOutputs } from '../trpc';

const PAGE_SIZE = 50;
const COLUMNS = ['When', 'Actor', 'Action', 'Target', 'Environment', { label: 'Source', className: 'hide-narrow' }, 'Change'];

type Entry = RouterOutputs['audit']['list'][number];
type Environment = RouterOutputs['env']['list'][number];

/** How the actor authenticated, when it was not a person's session. */
const ACTOR_KINDS: Record<string, string> = { token: 'token', 'break-glass': 'API_TOKEN', 'ci-token': 'CI token', 'ci-oidc': 'CI', local: 'local' };

function AuditRow({ entry, environments }: { entry: Entry; environments: Map<string, Environment> }) {
  const env = entry.environmentId ? environments.get(entry.environmentId) : undefined;
  const kind = ACTOR_KINDS[entry.actorKind];
  return (
    <tr>
      <td className="nowrap">
        <RelativeTime value={entry.at} />
      </td>
      <td className="break">
        {entry.actor} {kind && kind !== entry.actor ? <Badge>{kind}</Badge> : null}
      </td>
      <td>
        <code>{entry.action}</code>
      </td>
      <td className="break">{entry.target && entry.target !== entry.environmentId ? <code>{entry.target}</code> : <span className="muted">—</span>}</td>
      <td className="break">
        {env ? (
          <Link to={environmentPath(env.id)}>{env.name}</Link>
        ) : entry.environmentId ? (
          <code>{entry.environmentId}</code>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="nowrap hide-narrow">{entry.sourceAddress ?? <span className="muted">—</span>}</td>
      <td>
        <AuditChange before={entry.before} after={entry.after} />
      </td>
    </tr>
  );
}

function AuditLog({ admin, ownedIds }: { admin: boolean; ownedIds: ReadonlySet<string> }) {
  const [environmentId, setEnvironmentId] = useState('');
  const [offset, setOffset] = useState(0);
  const envs = trpc.env.list.useQuery();
  // one more than a page: whether there are older entries, without counting them all
  const log = trpc.audit.list.useQuery({ environmentId: environmentId || undefined, limit: PAGE_SIZE + 1, offset }, { placeholderData: keepPreviousData });
  const pickable = (envs.data ?? []).filter((env) => admin || ownedIds.has(env.id));
  const byId = new Map((envs.data ?? []).map((env) => [env.id, env]));
  const rows = log.data?.slice(0, PAGE_SIZE) ?? [];
  const hasOlder = (log.data?.length ?? 0) > PAGE_SIZE;
  const filter = (id: string) => {
    setEnvironmentId(id);
    setOffset(0);
  };

  return (
    <Card id="audit-heading" title="Entries">
      <div className="toolbar audit-toolbar">
        <SelectField
          label="Environment"
          value={environmentId}
          onChange={filter}
          options={[
            { value: '', label: admin ? 'All environments and the instance' : 'All my environments' },
            ...pickable.map((env) => ({ value: env.id, label: env.name })),
          ]}
        />
      </div>
      {log.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : log.isError ? (
        <ErrorState title="The audit log could not be loaded" error={log.error} onRetry={() => log.refetch()} />
      ) : (
        <DataTable
          label="Audit log, newest first"
          className="audit-table"
          busy={log.isFetching}
          columns={COLUMNS}
          rows={rows}
          empty={
            <EmptyState title={offset > 0 ? 'No older entries.' : 'No changes recorded yet.'}>
              Every change made through the app or the API is recorded here.
            </EmptyState>
          }
          row={(entry) => <AuditRow key={entry.id} entry={entry} environments={byId} />}
        />
      )}
      <div className="pager">
        <button
          type="button"
          className="button button-small"
          onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
          disabled={offset === 0 || log.isFetching}
        >
          Newer
        </button>
        <span className="muted small">{rows.length > 0 ? `Entries ${formatNumber(offset + 1)}–${formatNumber(offset + rows.length)}` : null}</span>
        <button type="button" className="button button-small" onClick={() => setOffset(offset + PAGE_SIZE)} disabled={!hasOlder || log.isFetching}>
          Older
        </button>
      </div>
    </Card>
  );
}

export function AuditPage() {
  const { me, loading } = useMeState();
  const admin = !me || me.role === 'admin';
  const ownedIds = new Set(Object.entries(me?.memberships ?? {}).flatMap(([id, role]) => (role === 'owner' ? [id] : [])));
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Audit log</h1>
          <p className="lead">Who changed what, when and from where, newest first.</p>
        </div>
      </header>
      {loading ? (
        <Loading />
      ) : me && !readsAudit(me) ? (
        <EmptyState title="Admins and environment owners read the audit log.">You own no environment here; an admin can show you its entries.</EmptyState>
      ) : (
        <AuditLog admin={admin} ownedIds={ownedIds} />
      )}
    </div>
  );
}
