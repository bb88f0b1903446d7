// Who may use the environment, and as what: viewers read, editors also link repositories, analyze,
// acknowledge and set snapshots, owners also manage members, connections, policy, webhooks and CI
// tokens. Everyone who can open the environment sees the list; owners add people by email (they
// get access when they sign in with it), change roles and remove people.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { emailSchema, ENV_ROLES, type EnvRole, type Member } from '../../../shared/auth';
import { useEnvAccess, useMe } from '../../hooks/useMe';
import { useMutationForm } from '../../hooks/useMutationForm';
import { messageOf, validate } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { ME_KEY } from '../../lib/session';
import { trpc } from '../../trpc';
import { Badge } from '../Badge';
import { Card } from '../Card';
import { ConfirmDialog, mutationDialog } from '../ConfirmDialog';
import { FormError, SelectField, TextField } from '../Field';
import { FieldRow, SubForm } from '../SubForm';
import { RelativeTime } from '../RelativeTime';
import { RoleNote } from '../RoleNote';
import { EmptyState } from '../States';
import { QueryTable } from '../DataTable';

const ROLE_OPTIONS = ENV_ROLES.map((role) => ({ value: role, label: role[0]!.toUpperCase() + role.slice(1) }));
const ROLE_TONES = { owner: 'accent', editor: 'success', viewer: 'neutral' } as const;

/** After a change of members: the list, and who I am (my own role may be what changed). */
function useRefreshMembers(envId: string) {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  return () => Promise.all([utils.members.list.invalidate({ id: envId }), queryClient.invalidateQueries({ queryKey: ME_KEY })]);
}

function AddMemberForm({ envId }: { envId: string }) {
  const refresh = useRefreshMembers(envId);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<EnvRole>('viewer');
  const add = trpc.members.set.useMutation({
    onSuccess: async () => {
      setEmail('');
      form.clear();
      await refresh();
    },
  });
  const form = useMutationForm(add);
  const emailError = validate(emailSchema, email);
  const onSubmit = form.submit(!emailError, () => add.mutate({ id: envId, email: email.trim(), role }));
  return (
    <SubForm title="Add a member" onSubmit={onSubmit} error={form.formError} submit={{ pending: add.isPending, label: 'Add member', pendingLabel: 'Adding…' }}>
      <FieldRow className="member-form">
        <TextField
          label="Email"
          {...form.field('email', email, setEmail, emailError, { untilSubmit: true })}
          placeholder="ana@example.com"
          hint="They get access when they sign in with this email."
          autoComplete="off"
          spellCheck={false}
        />
        <SelectField label="Role" value={role} onChange={(v) => setRole(v as EnvRole)} options={ROLE_OPTIONS} error={form.serverError('role')} />
      </FieldRow>
    </SubForm>
  );
}

function MemberRow({ envId, member, owner, me }: { envId: string; member: Member; owner: boolean; me: string | undefined }) {
  const refresh = useRefreshMembers(envId);
  const [removing, setRemoving] = useState(false);
  const set = trpc.members.set.useMutation({ onSettled: refresh });
  const remove = trpc.members.remove.useMutation({
    onSuccess: async () => {
      setRemoving(false);
      await refresh();
    },
  });
  const you = member.email === me;
  return (
    <tr>
      <td className="break">
        {member.name ? <div>{member.name}</div> : null}
        <div className={member.name ? 'muted small' : undefined}>
          {member.email} {you ? <Badge tone="accent">you</Badge> : null}
        </div>
      </td>
      <td>
        {owner ? (
          <>
            <select
              className="input input-compact"
              aria-label={`Role of ${member.email}`}
              value={(set.isPending ? set.variables?.role : undefined) ?? member.role}
              onChange={(event) => set.mutate({ id: envId, email: member.email, role: event.target.value as EnvRole })}
              disabled={set.isPending}
            >
              {ROLE_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
            <FormError>{set.isError ? messageOf(set.error) : null}</FormError>
          </>
        ) : (
          <Badge tone={ROLE_TONES[member.role]}>{member.role}</Badge>
        )}
      </td>
      <td className="nowrap hide-narrow">
        <RelativeTime value={member.createdAt} />
      </td>
      {owner ? (
        <td className="actions">
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setRemoving(true)} aria-label={`Remove ${member.email}`}>
            Remove
          </button>
          {removing ? (
            <ConfirmDialog
              title={you ? 'Remove yourself?' : `Remove ${member.email}?`}
              confirmLabel="Remove member"
              pendingLabel="Removing…"
              onConfirm={() => remove.mutate({ id: envId, email: member.email })}
              {...mutationDialog(remove, () => setRemoving(false))}
            >
              <p>{you ? 'You lose access to this environment unless you are an admin.' : `${member.email} loses access to this environment at once.`}</p>
            </ConfirmDialog>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

export function MembersSection({ envId }: { envId: string }) {
  const me = useMe();
  const { role, can } = useEnvAccess(envId);
  const owner = can('owner');
  const members = trpc.members.list.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  const columns = [
    'Person',
    'Role',
    { label: 'Added', className: 'hide-narrow' },
    ...(owner ? [{ label: <span className="visually-hidden">Actions</span> }] : []),
  ];
  return (
    <Card id="members-heading" title="Members" count={members.data?.length}>
      <QueryTable
        query={members}
        loading="Loading members…"
        failed="Members could not be loaded"
        label="Members"
        columns={columns}
        empty={<EmptyState title="No members yet.">Only admins can open this environment until someone is added.</EmptyState>}
        row={(member) => <MemberRow key={member.email} envId={envId} member={member} owner={owner} me={me?.email} />}
      />
      {owner ? <AddMemberForm envId={envId} /> : <RoleNote needed="owner" role={role} action="add members and change their roles" />}
    </Card>
  );
}
