// The environment's CI tokens: what a pipeline sends (QUERYTRAIL_TOKEN) to post runs of the linked
// repositories and read their verdicts, and nothing else. Owners make them (shown once), see when
// each was last used, and revoke them; the list itself is theirs only.
import { useState } from 'react';
import { createCiTokenInput } from '../../../shared/auth';
import { useEnvAccess } from '../../hooks/useMe';
import { useMutationForm } from '../../hooks/useMutationForm';
import { validate } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc } from '../../trpc';
import { Card } from '../Card';
import { FormError, TextField } from '../Field';
import { RoleNote } from '../RoleNote';
import { InlineForm } from '../SubForm';
import { EmptyState, Loaded } from '../States';
import { NewToken } from '../tokens/NewToken';
import { TokenTable } from '../tokens/TokenTable';

function CreateCiTokenForm({ envId, onCreated }: { envId: string; onCreated: (created: { name: string; token: string }) => void }) {
  const utils = trpc.useUtils();
  const [name, setName] = useState('');
  const create = trpc.ciTokens.create.useMutation({
    onSuccess: async ({ token }, input) => {
      setName('');
      form.clear();
      onCreated({ name: input.name, token });
      await utils.ciTokens.list.invalidate({ id: envId });
    },
  });
  const form = useMutationForm(create);
  const nameError = validate(createCiTokenInput.shape.name, name);
  const onSubmit = form.submit(!nameError, () => create.mutate({ id: envId, name: name.trim() }));
  return (
    <>
      <InlineForm label="Make a CI token" onSubmit={onSubmit} submit={{ pending: create.isPending, label: 'Make CI token', pendingLabel: 'Making…' }}>
        <TextField label="Name" {...form.field('name', name, setName, nameError, { untilSubmit: true })} placeholder="GitHub Actions" autoComplete="off" />
      </InlineForm>
      <FormError>{form.formError}</FormError>
    </>
  );
}

function CiTokens({ envId }: { envId: string }) {
  const utils = trpc.useUtils();
  const tokens = trpc.ciTokens.list.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  const [created, setCreated] = useState<{ name: string; token: string }>();
  return (
    <>
      <Loaded
        query={tokens}
        loading="Loading CI tokens…"
        failed="CI tokens could not be loaded"
        empty={<EmptyState title="No CI tokens yet.">Make one for the pipeline that runs the querytrail CI reporter.</EmptyState>}
      >
        {(rows) => (
          <TokenTable
            label="CI tokens"
            tokens={rows}
            revoke={(tokenId) => utils.client.ciTokens.revoke.mutate({ id: envId, tokenId })}
            onRevoked={() => utils.ciTokens.list.invalidate({ id: envId })}
          />
        )}
      </Loaded>
      {created ? (
        <NewToken title={`CI token “${created.name}” made. Here it is, this once:`} token={created.token} onDone={() => setCreated(undefined)}>
          <p className="small">
            Store it as the pipeline&apos;s <code>QUERYTRAIL_TOKEN</code> secret.
          </p>
        </NewToken>
      ) : null}
      <CreateCiTokenForm envId={envId} onCreated={setCreated} />
    </>
  );
}

export function CiTokensSection({ envId }: { envId: string }) {
  const { role, can } = useEnvAccess(envId);
  return (
    <Card id="ci-tokens-heading" title="CI Tokens">
      <p className="muted">A CI token posts runs of the linked repositories and reads their verdicts, and can do nothing else.</p>
      {can('owner') ? <CiTokens envId={envId} /> : <RoleNote needed="owner" role={role} action="make, see and revoke CI tokens" />}
    </Card>
  );
}
