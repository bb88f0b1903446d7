// Webhooks of an environment: where its events are sent (URL masked: it is a secret), add one
// (the signing secret is shown once), test and remove, and the recent deliveries.
import { useState } from 'react';
import { WEBHOOK_EVENTS, webhookSecretSchema, webhookUrlSchema, type WebhookEvent } from '../../../shared/webhooks';
import { useEnvAccess } from '../../hooks/useMe';
import { useMutationForm } from '../../hooks/useMutationForm';
import { messageOf, validate } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge } from '../Badge';
import { Card } from '../Card';
import { CopyButton } from '../CopyButton';
import { CheckboxGroup, FormError, TextField } from '../Field';
import { FieldRow, SubForm } from '../SubForm';
import { RelativeTime } from '../RelativeTime';
import { RoleNote } from '../RoleNote';
import { QueryTable } from '../DataTable';
import { EmptyState } from '../States';
import { WebhookDeliveries } from './WebhookDeliveries';

const EVENT_LABELS: Record<WebhookEvent, string> = {
  'ci.verdict.failed': 'A CI verdict fails',
  'production.query.new': 'A new query appears in production',
  'production.query.regressed': 'A production query regresses',
  'analysis.recommendation.new': 'Analyze recommends a new index',
};

type Created = RouterOutputs['webhooks']['add'];

function NewSecret({ created, onDone }: { created: Created; onDone: () => void }) {
  return (
    <div className="callout" role="status">
      <p className="callout-title">Webhook added. Its signing secret is shown this once:</p>
      <p className="webhook-secret">
        <code>{created.secret}</code> <CopyButton text={created.secret} label="Copy the signing secret" />
      </p>
      <p className="callout-message small">
        Check each delivery&apos;s <code>X-Querytrail-Signature</code> (HMAC-SHA256 of the body with this secret) before trusting it.
      </p>
      <button type="button" className="button button-small" onClick={onDone}>
        I have saved it
      </button>
    </div>
  );
}

function AddWebhookForm({ envId, onCreated }: { envId: string; onCreated: (created: Created) => void }) {
  const utils = trpc.useUtils();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['ci.verdict.failed']);
  const [secret, setSecret] = useState('');
  const add = trpc.webhooks.add.useMutation({
    onSuccess: async (created) => {
      setUrl('');
      setSecret('');
      form.clear();
      onCreated(created);
      await utils.webhooks.list.invalidate({ id: envId });
    },
  });
  const form = useMutationForm(add);
  const urlError = validate(webhookUrlSchema, url);
  const secretError = secret ? validate(webhookSecretSchema, secret) : undefined;
  const eventsError = form.serverError('events') ?? (events.length === 0 ? 'Choose at least one event' : undefined);
  const onSubmit = form.submit(!urlError && !secretError && events.length > 0, () =>
    add.mutate({ id: envId, url: url.trim(), events, ...(secret ? { secret } : {}) }),
  );
  const toggle = (event: WebhookEvent, checked: boolean) => {
    setEvents((current) => (checked ? WEBHOOK_EVENTS.filter((e) => e === event || current.includes(e)) : current.filter((e) => e !== event)));
    add.reset();
  };

  return (
    <SubForm
      title="Add a webhook"
      onSubmit={onSubmit}
      error={form.formError}
      submit={{ pending: add.isPending, label: 'Add webhook', pendingLabel: 'Adding…' }}
    >
      <FieldRow>
        <TextField
          label="URL"
          {...form.field('url', url, setUrl, urlError, { untilSubmit: true })}
          placeholder="https://hooks.slack.com/services/…"
          hint="Stored encrypted; only its host is shown again. A Slack incoming webhook gets Slack messages."
          autoComplete="off"
          spellCheck={false}
        />
        <TextField
          label="Signing secret (optional)"
          {...form.field('secret', secret, setSecret, secretError)}
          hint="Left empty, one is generated and shown once."
          autoComplete="off"
          spellCheck={false}
        />
      </FieldRow>
      <CheckboxGroup
        legend="Send when"
        className="webhook-events"
        options={WEBHOOK_EVENTS}
        checked={events}
        onChange={toggle}
        label={(event) => (
          <>
            {EVENT_LABELS[event]} <code className="muted small">{event}</code>
          </>
        )}
        error={eventsError}
      />
    </SubForm>
  );
}

function TestResult({ result }: { result: RouterOutputs['webhooks']['test'] }) {
  return result.status === 'delivered' ? (
    <p className="small" role="status">
      <Badge tone="success">delivered</Badge> The test was answered with HTTP {result.responseStatus}.
    </p>
  ) : (
    <p className="small" role="status">
      <Badge tone="danger">failed</Badge> The test was not delivered: {result.lastError}
    </p>
  );
}

export function WebhooksSection({ envId }: { envId: string }) {
  const utils = trpc.useUtils();
  const hooks = trpc.webhooks.list.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  const [created, setCreated] = useState<Created>();
  const refreshDeliveries = () => utils.webhooks.deliveries.invalidate({ id: envId });
  const remove = trpc.webhooks.remove.useMutation({
    onSettled: async () => {
      await utils.webhooks.list.invalidate({ id: envId });
      await refreshDeliveries();
    },
  });
  const test = trpc.webhooks.test.useMutation({ onSettled: refreshDeliveries });
  // where events go and their signing secrets are the owners' to decide; everyone sees the deliveries
  const { role, can } = useEnvAccess(envId);
  const owner = can('owner');

  return (
    <Card id="webhooks-heading" title="Webhooks" count={hooks.data?.length}>
      <QueryTable
        query={hooks}
        loading="Loading webhooks…"
        failed="Webhooks could not be loaded"
        label="Webhooks"
        columns={['URL', 'Events', { label: 'Added', className: 'hide-narrow' }, owner && { label: <span className="visually-hidden">Actions</span> }]}
        empty={
          <EmptyState title="No webhooks yet.">
            Send failing CI verdicts, new production queries and new index recommendations to Slack or any HTTPS endpoint.
          </EmptyState>
        }
        row={(hook) => (
          <tr key={hook.id}>
            <td className="break">
              <code>{hook.maskedUrl}</code> {hook.format === 'slack' ? <Badge tone="accent">Slack</Badge> : null}
            </td>
            <td>
              {hook.events.map((event) => (
                <code key={event} className="webhook-event">
                  {event}
                </code>
              ))}
            </td>
            <td className="nowrap hide-narrow">
              <RelativeTime value={hook.createdAt} />
            </td>
            {owner ? (
              <td className="actions nowrap">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => test.mutate({ id: envId, webhookId: hook.id })}
                  disabled={test.isPending && test.variables?.webhookId === hook.id}
                  aria-label={`Send a test to ${hook.maskedUrl}`}
                >
                  {test.isPending && test.variables?.webhookId === hook.id ? 'Sending…' : 'Test'}
                </button>{' '}
                <button
                  type="button"
                  className="button button-small button-danger-quiet"
                  onClick={() => remove.mutate({ id: envId, webhookId: hook.id })}
                  disabled={remove.isPending && remove.variables?.webhookId === hook.id}
                  aria-label={`Remove webhook ${hook.maskedUrl}`}
                >
                  Remove
                </button>
              </td>
            ) : null}
          </tr>
        )}
      />
      {test.data ? <TestResult result={test.data} /> : null}
      <FormError>{test.isError ? <>The test could not be sent: {messageOf(test.error)}</> : null}</FormError>
      <FormError>{remove.isError ? <>The webhook could not be removed: {messageOf(remove.error)}</> : null}</FormError>
      {created ? <NewSecret created={created} onDone={() => setCreated(undefined)} /> : null}
      {owner ? <AddWebhookForm envId={envId} onCreated={setCreated} /> : <RoleNote needed="owner" role={role} action="add, test and remove webhooks" />}
      <div className="webhook-log">
        <h3>Recent deliveries</h3>
        <WebhookDeliveries envId={envId} />
      </div>
    </Card>
  );
}
