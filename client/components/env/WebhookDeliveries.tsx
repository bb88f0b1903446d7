// The delivery log of an environment's webhooks: each event sent, how it went, and why it failed.
import type { WebhookDelivery } from '../../../shared/webhooks';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc } from '../../trpc';
import { Badge, type BadgeTone } from '../Badge';
import { RelativeTime } from '../RelativeTime';
import { QueryTable } from '../DataTable';
import { EmptyState } from '../States';

const STATUS_TONES: Record<WebhookDelivery['status'], BadgeTone> = { pending: 'warning', delivered: 'success', failed: 'danger' };

const COLUMNS = ['Event', 'Status', { label: 'Attempts', className: 'numeric' }, 'Outcome', { label: 'To', className: 'hide-narrow' }, 'When'];

function Outcome({ delivery }: { delivery: WebhookDelivery }) {
  const answer = delivery.responseStatus === null ? null : `HTTP ${delivery.responseStatus}`;
  if (delivery.status === 'delivered') return <span>{answer}</span>;
  return (
    <span title={delivery.responseExcerpt ?? undefined}>
      {delivery.lastError ?? 'not sent yet'}
      {delivery.status === 'pending' && delivery.attempts > 0 ? ' · retrying' : null}
    </span>
  );
}

export function WebhookDeliveries({ envId }: { envId: string }) {
  const deliveries = trpc.webhooks.deliveries.useQuery(
    { id: envId, limit: 20 },
    {
      retry: retryUnlessNotFound,
      // while one is still being sent, its outcome is worth watching
      refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'pending') ? 5000 : false),
    },
  );
  return (
    <QueryTable
      query={deliveries}
      loading="Loading deliveries…"
      failed="Deliveries could not be loaded"
      label="Recent deliveries"
      columns={COLUMNS}
      empty={<EmptyState title="No deliveries yet.">Events and tests sent to these webhooks are listed here.</EmptyState>}
      row={(delivery) => (
        <tr key={delivery.id}>
          <td>
            <code>{delivery.event}</code>
          </td>
          <td>
            <Badge tone={STATUS_TONES[delivery.status]}>{delivery.status}</Badge>
          </td>
          <td className="numeric">{delivery.attempts}</td>
          <td className="break">
            <Outcome delivery={delivery} />
          </td>
          <td className="break hide-narrow">
            <code>{delivery.maskedUrl}</code>
          </td>
          <td className="nowrap">
            <RelativeTime value={delivery.lastAttemptAt ?? delivery.createdAt} />
          </td>
        </tr>
      )}
    />
  );
}
