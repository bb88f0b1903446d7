// The signed-in person in the header: who they are and their instance role, their tokens, the audit
// log (admins and environment owners), and signing out here or on every device. Absent in
// single-user mode, where no one signs in.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useMeQuery } from '../../hooks/useMe';
import { messageOf } from '../../lib/errors';
import { ME_KEY, readsAudit, sessionHeaders, setCsrfToken, type Me } from '../../lib/session';
import { useServer } from '../../server-context';
import { Badge } from '../Badge';
import { FormError } from '../Field';

/** POST /auth/logout (?everywhere=1: every session of the person), then forget everything the session read. */
function useSignOut() {
  const { base, fetch } = useServer();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async (everywhere: boolean) => {
      const response = await fetch(`${base}/auth/logout${everywhere ? '?everywhere=1' : ''}`, {
        method: 'POST',
        headers: sessionHeaders(),
        credentials: 'same-origin',
      });
      // 401: the session had already ended, which is what was asked
      if (!response.ok && response.status !== 401) {
        const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
        throw new Error(body?.error?.message ?? `Signing out failed (HTTP ${response.status})`);
      }
    },
    onSuccess: () => {
      setCsrfToken(null);
      queryClient.setQueryData(ME_KEY, null);
      // the next person at this browser sees nothing of what this one read
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
      navigate('/sign-in', { state: { signedOut: true } });
    },
  });
}

/** Closes the menu on Escape and on a click outside it. */
function useDismiss(open: boolean, close: () => void, ref: React.RefObject<HTMLElement | null>) {
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && close();
    const onPointer = (event: MouseEvent) => !ref.current?.contains(event.target as Node) && close();
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onPointer);
    };
  }, [open, close, ref]);
}

function MenuPanel({ me, id, close }: { me: Me; id: string; close: () => void }) {
  const signOut = useSignOut();
  return (
    <div className="user-menu-panel" id={id}>
      <div className="user-menu-who">
        <span className="user-menu-name">{me.name || me.email}</span>
        {me.name ? <span className="muted small break">{me.email}</span> : null}
        <span>
          <Badge tone={me.role === 'admin' ? 'accent' : 'neutral'}>{me.role}</Badge>
        </span>
      </div>
      <ul className="user-menu-links">
        <li>
          <Link to="/tokens" onClick={close}>
            Tokens
          </Link>
        </li>
        {readsAudit(me) ? (
          <li>
            <Link to="/audit" onClick={close}>
              Audit log
            </Link>
          </li>
        ) : null}
      </ul>
      {me.via === 'session' ? (
        <div className="user-menu-actions">
          <button type="button" className="button button-small" onClick={() => signOut.mutate(false)} disabled={signOut.isPending}>
            Sign out
          </button>
          <button
            type="button"
            className="button button-small button-danger-quiet"
            onClick={() => signOut.mutate(true)}
            disabled={signOut.isPending}
            title="Ends every session of yours, on every browser and device"
          >
            Sign out everywhere
          </button>
          <FormError>{signOut.isError ? messageOf(signOut.error) : null}</FormError>
        </div>
      ) : null}
    </div>
  );
}

export function UserMenu() {
  const me = useMeQuery().data;
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, ref);
  if (!me || me.mode !== 'team') return null;
  return (
    <div className="user-menu" ref={ref}>
      <button
        type="button"
        className="user-menu-button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={`Account: ${me.name || me.email}`}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="user-menu-avatar" aria-hidden="true">
          {(me.name || me.email).slice(0, 1).toUpperCase()}
        </span>
        <span className="user-menu-label">{me.name || me.email}</span>
        <span aria-hidden="true">▾</span>
      </button>
      {open ? <MenuPanel me={me} id={panelId} close={close} /> : null}
    </div>
  );
}
