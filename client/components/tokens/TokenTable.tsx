// Tokens as the server lists them, never the tokens themselves: what each may do, when it was last
// used, when it expires, and Revoke (confirmed first: whatever uses it stops working at once).
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { TokenSummary } from '../../../shared/auth';
import { useNow } from '../../hooks/useNow';
import { formatExact } from '../../lib/time';
import { Badge } from '../Badge';
import { ConfirmDialog, mutationDialog } from '../ConfirmDialog';
import { RelativeTime } from '../RelativeTime';
import { DataTable } from '../DataTable';

function TokenStatus({ token, now }: { token: TokenSummary; now: number }) {
  if (token.revokedAt) {
    return (
      <Badge tone="danger" title={`Revoked ${new Date(token.revokedAt).toLocaleString('en')}`}>
        revoked
      </Badge>
    );
  }
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return <Badge tone="warning">expired</Badge>;
  return <Badge tone="success">active</Badge>;
}

/** An expiry is a date to plan by ("Dec 27, 2026"), not a distance ("in 4 weeks"). */
function ExpiryDate({ value }: { value: string }) {
  return (
    <time dateTime={value} title={formatExact(value)}>
      {new Date(value).toLocaleDateString('en', { dateStyle: 'medium' })}
    </time>
  );
}

export function TokenTable({
  label,
  tokens,
  showOwner = false,
  showScopes = false,
  revoke,
  onRevoked,
}: {
  /** The table's accessible name. */
  label: string;
  tokens: readonly TokenSummary[];
  /** Admins see everyone's personal tokens: whose each is. */
  showOwner?: boolean;
  showScopes?: boolean;
  /** Revokes one token by id; absent, the table has no Revoke. */
  revoke?: (tokenId: string) => Promise<unknown>;
  onRevoked?: () => unknown;
}) {
  const now = useNow();
  const [revoking, setRevoking] = useState<TokenSummary>();
  const mutation = useMutation({
    mutationFn: (token: TokenSummary) => revoke!(token.id),
    onSuccess: async () => {
      setRevoking(undefined);
      await onRevoked?.();
    },
  });
  return (
    <>
      <DataTable
        label={label}
        columns={[
          'Name',
          showOwner && 'Owner',
          showScopes && 'Scopes',
          { label: 'Created', className: 'hide-narrow' },
          'Last used',
          'Expires',
          'Status',
          revoke && { label: <span className="visually-hidden">Actions</span> },
        ]}
        rows={tokens}
        row={(token) => (
          <tr key={token.id} className={token.revokedAt ? 'row-muted' : undefined}>
            <td>{token.name}</td>
            {showOwner ? <td>{token.owner ?? '—'}</td> : null}
            {showScopes ? <td>{token.scopes.join(', ')}</td> : null}
            <td className="nowrap hide-narrow">
              <RelativeTime value={token.createdAt} />
              <div className="muted small">by {token.createdBy}</div>
            </td>
            <td className="nowrap">{token.lastUsedAt ? <RelativeTime value={token.lastUsedAt} /> : <span className="muted">never</span>}</td>
            <td className="nowrap">{token.expiresAt ? <ExpiryDate value={token.expiresAt} /> : <span className="muted">never</span>}</td>
            <td>
              <TokenStatus token={token} now={now} />
            </td>
            {revoke ? (
              <td className="actions">
                {token.revokedAt ? null : (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    onClick={() => setRevoking(token)}
                    aria-label={`Revoke ${token.name}`}
                  >
                    Revoke
                  </button>
                )}
              </td>
            ) : null}
          </tr>
        )}
      />
      {revoking ? (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke token"
          pendingLabel="Revoking…"
          onConfirm={() => mutation.mutate(revoking)}
          {...mutationDialog(mutation, () => setRevoking(undefined))}
        >
          <p>Whatever uses this token stops working at once. It cannot be undone: make a new token to replace it.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
