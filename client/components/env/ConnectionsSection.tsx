// Database Connections of an environment: label, role, masked connection string, schema filters;
// add, change the schema filters, remove.
import { useState } from 'react';
import { connectionStringSchema, labelSchema, ROLES, type Role } from '../../../shared/validation';
import { useMutationForm } from '../../hooks/useMutationForm';
import { messageOf, validate } from '../../lib/errors';
import { useEnvAccess } from '../../hooks/useMe';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge, roleTone } from '../Badge';
import { Card } from '../Card';
import { FormError, SelectField, TextField } from '../Field';
import { FieldRow, SubForm } from '../SubForm';
import { RelativeTime } from '../RelativeTime';
import { RoleNote } from '../RoleNote';
import { DataTable } from '../DataTable';
import { SchemaFilterFields, useSchemaFilterFields } from '../SchemaFilterFields';
import { EmptyState } from '../States';

type Environment = RouterOutputs['env']['get'];
type Connection = Environment['connections'][number];

function filtersText(connection: Connection): string {
  const parts = [
    connection.includeSchemas.length ? `only ${connection.includeSchemas.join(', ')}` : 'all schemas',
    ...(connection.excludeSchemas.length ? [`except ${connection.excludeSchemas.join(', ')}`] : []),
  ];
  return parts.join(' ');
}

function SchemaFiltersForm({ envId, connection, onDone }: { envId: string; connection: Connection; onDone: () => void }) {
  const utils = trpc.useUtils();
  const fields = useSchemaFilterFields({ include: connection.includeSchemas.join(', '), exclude: connection.excludeSchemas.join(', ') });
  const update = trpc.connections.update.useMutation({
    onSuccess: async () => {
      await utils.env.get.invalidate({ id: envId });
      onDone();
    },
  });
  const form = useMutationForm(update);
  const onSubmit = form.submit(fields.valid, () => update.mutate({ id: envId, connectionId: connection.id, ...fields.patterns() }));
  return (
    <SubForm
      title={`Schema filters of ${connection.label}`}
      onSubmit={onSubmit}
      error={form.formError}
      submit={{ pending: update.isPending, label: 'Save schema filters', pendingLabel: 'Saving…' }}
      actions={
        <button type="button" className="button button-small" onClick={onDone}>
          Cancel
        </button>
      }
    >
      <SchemaFilterFields fields={fields} field={form.field} />
    </SubForm>
  );
}

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: role[0]!.toUpperCase() + role.slice(1) }));

function AddConnectionForm({ envId }: { envId: string }) {
  const utils = trpc.useUtils();
  const [label, setLabel] = useState('');
  const [role, setRole] = useState<Role>('other');
  const [connectionString, setConnectionString] = useState('');
  const filters = useSchemaFilterFields();
  const add = trpc.connections.add.useMutation({
    onSuccess: async () => {
      setLabel('');
      setRole('other');
      setConnectionString('');
      filters.setInclude('');
      filters.setExclude('');
      form.clear();
      await utils.env.get.invalidate({ id: envId });
    },
  });
  const form = useMutationForm(add);
  const labelError = validate(labelSchema, label);
  const stringError = validate(connectionStringSchema, connectionString);
  const onSubmit = form.submit(!labelError && !stringError && filters.valid, () =>
    add.mutate({
      id: envId,
      label: label.trim(),
      role,
      connectionString: connectionString.trim(),
      ...filters.patterns(),
    }),
  );

  return (
    <SubForm
      title="Add a connection"
      onSubmit={onSubmit}
      error={form.formError}
      submit={{ pending: add.isPending, label: 'Add connection', pendingLabel: 'Adding…' }}
    >
      <FieldRow columns={3}>
        <TextField label="Label" {...form.field('label', label, setLabel, labelError, { untilSubmit: true })} placeholder="Primary" autoComplete="off" />
        <SelectField label="Role" value={role} onChange={(v) => setRole(v as Role)} options={ROLE_OPTIONS} error={form.serverError('role')} />
        <TextField
          label="Connection string"
          {...form.field('connectionString', connectionString, setConnectionString, stringError)}
          placeholder="postgres://user:password@host:5432/db"
          hint="Stored encrypted; only a masked form is ever shown again."
          autoComplete="off"
          spellCheck={false}
        />
      </FieldRow>
      <SchemaFilterFields fields={filters} field={form.field} />
    </SubForm>
  );
}

export function ConnectionsSection({ env }: { env: Environment }) {
  const utils = trpc.useUtils();
  const remove = trpc.connections.remove.useMutation({ onSettled: () => utils.env.get.invalidate({ id: env.id }) });
  // connections hold production credentials: only owners add or remove them
  const { role, can } = useEnvAccess(env.id);
  const owner = can('owner');
  const [editing, setEditing] = useState<string | null>(null);
  const edited = env.connections.find((c) => c.id === editing);
  return (
    <Card id="connections-heading" title="Database Connections" count={env.connections.length}>
      <DataTable
        label="Database connections"
        columns={[
          'Label',
          'Role',
          'Connection string',
          { label: 'Schemas', className: 'hide-narrow' },
          { label: 'Added', className: 'hide-narrow' },
          owner && { label: <span className="visually-hidden">Actions</span> },
        ]}
        rows={env.connections}
        empty={<EmptyState title="No database connections yet.">Add the production, staging or CI databases of this environment.</EmptyState>}
        row={(connection) => (
          <tr key={connection.id}>
            <td>{connection.label}</td>
            <td>
              <Badge tone={roleTone(connection.role)}>{connection.role}</Badge>
            </td>
            <td className="break">
              <code>{connection.maskedConnectionString}</code>
            </td>
            <td className="break hide-narrow">{filtersText(connection)}</td>
            <td className="nowrap hide-narrow">
              <RelativeTime value={connection.createdAt} />
            </td>
            {owner ? (
              <td className="actions">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setEditing(connection.id)}
                  aria-label={`Edit schema filters of ${connection.label}`}
                >
                  Schemas
                </button>
                <button
                  type="button"
                  className="button button-small button-danger-quiet"
                  onClick={() => remove.mutate({ id: env.id, connectionId: connection.id })}
                  disabled={remove.isPending && remove.variables?.connectionId === connection.id}
                  aria-label={`Remove connection ${connection.label}`}
                >
                  Remove
                </button>
              </td>
            ) : null}
          </tr>
        )}
      />
      {owner && edited ? <SchemaFiltersForm key={edited.id} envId={env.id} connection={edited} onDone={() => setEditing(null)} /> : null}
      <FormError>{remove.isError ? <>The connection could not be removed: {messageOf(remove.error)}</> : null}</FormError>
      {owner ? <AddConnectionForm envId={env.id} /> : <RoleNote needed="owner" role={role} action="add and remove connections" />}
    </Card>
  );
}
