// Personal access tokens: a token acts as its person through the API (scripts, the CLI), limited to
// its scopes. Made here (shown once), listed with when each was last used, and revoked. Admins see
// and may revoke everyone's.
import { useState } from 'react';
import { createTokenInput, TOKEN_SCOPES, type TokenScope } from '../../shared/auth';
import { Card } from '../components/Card';
import { CheckboxGroup, TextField } from '../components/Field';
import { FieldRow, SubForm } from '../components/SubForm';
import { EmptyState, Loaded, Loading } from '../components/States';
import { NewToken } from '../components/tokens/NewToken';
import { TokenTable } from '../components/tokens/TokenTable';
import { useMeState } from '../hooks/useMe';
import { useMutationForm } from '../hooks/useMutationForm';
import { validate } from '../lib/errors';
import { trpc } from '../trpc';

const SCOPE_LABELS: Record<TokenScope, string> = {
  read: 'Read: GET requests and queries',
  write: 'Write: changes, as your role allows',
};

/** Expiry as typed: empty never expires; anything else must be a whole number of days. */
const daysOf = (text: string) => (text.trim() === '' ? undefined : Number(text));

function CreateTokenForm({ onCreated }: { onCreated: (created: { name: string; token: string }) => void }) {
  const utils = trpc.useUtils();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TokenScope[]>(['read']);
  const [days, setDays] = useState('90');
  const create = trpc.tokens.create.useMutation({
    onSuccess: async ({ token }, input) => {
      setName('');
      form.clear();
      onCreated({ name: input.name, token });
      await utils.tokens.list.invalidate();
    },
  });
  const form = useMutationForm(create);
  const shape = createTokenInput.shape;
  const nameError = validate(shape.name, name);
  const daysError = validate(shape.expiresInDays, daysOf(days));
  const scopesError = form.serverError('scopes') ?? validate(shape.scopes, scopes);
  const onSubmit = form.submit(!nameError && !daysError && !scopesError, () =>
    create.mutate({ name: name.trim(), scopes, ...(daysOf(days) === undefined ? {} : { expiresInDays: daysOf(days) }) }),
  );
  const toggle = (scope: TokenScope, checked: boolean) => {
    setScopes((current) => TOKEN_SCOPES.filter((s) => (s === scope ? checked : current.includes(s))));
    create.reset();
  };

  return (
    <SubForm
      title="Make a token"
      onSubmit={onSubmit}
      error={form.formError}
      submit={{ pending: create.isPending, label: 'Make token', pendingLabel: 'Making…' }}
    >
      <FieldRow>
        <TextField
          label="Name"
          {...form.field('name', name, setName, nameError, { untilSubmit: true })}
          placeholder="deploy script"
          hint="What uses it, to know it again."
          autoComplete="off"
        />
        <TextField
          label="Expires after (days)"
          {...form.field('expiresInDays', days, setDays, daysError)}
          hint="Empty: it never expires."
          type="number"
          inputMode="numeric"
          min={1}
          max={3650}
        />
      </FieldRow>
      <CheckboxGroup
        legend="Scopes"
        className="token-scopes"
        options={TOKEN_SCOPES}
        checked={scopes}
        onChange={toggle}
        label={(scope) => SCOPE_LABELS[scope]}
        error={scopesError}
      />
    </SubForm>
  );
}

function Tokens({ admin }: { admin: boolean }) {
  const utils = trpc.useUtils();
  const tokens = trpc.tokens.list.useQuery();
  const [created, setCreated] = useState<{ name: string; token: string }>();
  return (
    <Card id="tokens-heading" title={admin ? 'Personal access tokens of everyone' : 'Your tokens'} count={tokens.data?.length}>
      <Loaded
        query={tokens}
        loading="Loading tokens…"
        failed="Tokens could not be loaded"
        empty={<EmptyState title="No tokens yet.">Make one below for a script or the querytrail CLI.</EmptyState>}
      >
        {(rows) => (
          <TokenTable
            label="Personal access tokens"
            tokens={rows}
            showOwner={admin}
            showScopes
            revoke={(id) => utils.client.tokens.revoke.mutate({ id })}
            onRevoked={() => utils.tokens.list.invalidate()}
          />
        )}
      </Loaded>
      {created ? (
        <NewToken title={`Token “${created.name}” made. Here it is, this once:`} token={created.token} onDone={() => setCreated(undefined)}>
          <p className="small">
            Send it as <code>Authorization: Bearer &lt;token&gt;</code>, or set <code>QUERYTRAIL_TOKEN</code> for the CLI.
          </p>
        </NewToken>
      ) : null}
      <CreateTokenForm onCreated={setCreated} />
    </Card>
  );
}

export function TokensPage() {
  const { me, loading } = useMeState();
  const local = !me || me.mode === 'local';
  return (
    <div className="page page-narrow">
      <header className="page-header">
        <div>
          <h1>Tokens</h1>
          <p className="lead">A personal access token lets a script or the CLI call the API as you, limited to its scopes and to what your roles allow.</p>
        </div>
      </header>
      {loading ? (
        <Loading />
      ) : local ? (
        <EmptyState title="This server has no sign-in, so no personal tokens.">
          Without an identity provider or <code>API_TOKEN</code>, everyone who reaches it is its admin and needs no token.
        </EmptyState>
      ) : (
        <Tokens admin={me.role === 'admin'} />
      )}
    </div>
  );
}
