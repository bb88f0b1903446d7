import type { ReactNode } from 'react';
import { CopyButton } from '../CopyButton';

/** A token just made: the store keeps only its hash, so this is the one time it can be shown. */
export function NewToken({ title, token, onDone, children }: { title: string; token: string; onDone: () => void; children?: ReactNode }) {
  return (
    <div className="callout callout-warning new-token" role="status">
      <p className="callout-title">{title}</p>
      <p className="token-value">
        <code>{token}</code> <CopyButton text={token} label="Copy the token" />
      </p>
      <p className="callout-message small">
        Copy it now: it will not be shown again. querytrail keeps only a hash of it, so a lost token is revoked and replaced.
      </p>
      {children}
      <button type="button" className="button button-small" onClick={onDone}>
        I have saved it
      </button>
    </div>
  );
}
