// Acknowledging a finding's query (with an optional note, in a dialog) and undoing it. An
// acknowledged query stays listed but no longer counts toward the verdict, so every view of
// verdicts and acknowledgements is refreshed after either.
import { useState } from 'react';
import { noteSchema } from '../../../shared/policy';
import { useEnvAccess } from '../../hooks/useMe';
import { useMutationForm } from '../../hooks/useMutationForm';
import { messageOf, validate } from '../../lib/errors';
import { roleReason } from '../../lib/roles';
import { trpc } from '../../trpc';
import { ConfirmDialog } from '../ConfirmDialog';
import { TextAreaField } from '../Field';

function useRefreshAfterAcknowledging(envId: string) {
  const utils = trpc.useUtils();
  return async () => {
    await Promise.all([utils.ci.verdict.invalidate(), utils.policy.acknowledgements.invalidate({ id: envId }), utils.ci.list.invalidate()]);
  };
}

export function AcknowledgeButton({ envId, hash }: { envId: string; hash: string }) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const refresh = useRefreshAfterAcknowledging(envId);
  const acknowledge = trpc.policy.acknowledge.useMutation({
    onSuccess: async () => {
      setOpen(false);
      setNote('');
      await refresh();
    },
  });
  const form = useMutationForm(acknowledge);
  const noteError = validate(noteSchema, note);
  const close = () => {
    setOpen(false);
    acknowledge.reset();
  };
  const { role, can } = useEnvAccess(envId);

  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => setOpen(true)}
        aria-label={`Acknowledge query ${hash}`}
        disabled={!can('editor')}
        title={can('editor') ? undefined : roleReason('editor', 'acknowledge queries', role)}
      >
        Acknowledge
      </button>
      {open ? (
        <ConfirmDialog
          title="Acknowledge this query?"
          confirmLabel="Acknowledge"
          pendingLabel="Acknowledging…"
          confirmTone="primary"
          onConfirm={() => {
            if (!noteError) acknowledge.mutate({ id: envId, hash, note: note.trim() === '' ? null : note });
          }}
          onCancel={close}
          pending={acknowledge.isPending}
          error={form.formError}
        >
          <p>
            Its findings stay listed but no longer fail or warn, in this run and later ones, until its cost moves by more than the policy&apos;s percentage from
            today&apos;s.
          </p>
          <TextAreaField label="Note (optional)" {...form.field('note', note, setNote, noteError)} rows={3} placeholder="Why this is fine, for the team" />
        </ConfirmDialog>
      ) : null}
    </>
  );
}

export function UndoAcknowledgeButton({ envId, hash, label = 'Undo' }: { envId: string; hash: string; label?: string }) {
  const refresh = useRefreshAfterAcknowledging(envId);
  const undo = trpc.policy.unacknowledge.useMutation({ onSuccess: refresh });
  const { role, can } = useEnvAccess(envId);
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => undo.mutate({ id: envId, hash })}
        disabled={undo.isPending || !can('editor')}
        title={can('editor') ? undefined : roleReason('editor', 'undo acknowledgements', role)}
        aria-label={`Undo the acknowledgement of query ${hash}`}
      >
        {undo.isPending ? 'Undoing…' : label}
      </button>
      {undo.isError ? (
        <span className="field-error" role="alert">
          {messageOf(undo.error)}
        </span>
      ) : null}
    </>
  );
}
