// A modal confirmation: focus moves into it, Tab stays inside, Escape cancels, and focus goes back
// to the control that opened it.
import { FormError } from './Field';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { messageOf } from '../lib/errors';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
  /** What the confirm button says while the action runs. */
  pendingLabel?: string;
  /** 'danger' for destructive actions (the default), 'primary' for others. */
  confirmTone?: 'danger' | 'primary';
  error?: ReactNode;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  pending = false,
  pendingLabel = 'Deleting…',
  confirmTone = 'danger',
  error,
}: ConfirmDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    cancelRef.current?.focus();
    return () => opener?.focus?.();
  }, []);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape' && !pending) {
      event.stopPropagation();
      onCancel();
      return;
    }
    if (event.key !== 'Tab' || !dialogRef.current) return;
    const focusable = [...dialogRef.current.querySelectorAll<HTMLElement>('button:not([disabled]), [href], input, select, textarea')];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="dialog-backdrop" onMouseDown={(event) => event.target === event.currentTarget && !pending && onCancel()}>
      <div ref={dialogRef} className="dialog" role="alertdialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId} onKeyDown={onKeyDown}>
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        <div id={bodyId} className="dialog-body">
          {children}
        </div>
        <FormError>{error}</FormError>
        <div className="dialog-actions">
          <button ref={cancelRef} type="button" className="button" onClick={onCancel} disabled={pending}>
            Cancel
          </button>
          <button type="button" className={`button button-${confirmTone}`} onClick={onConfirm} disabled={pending}>
            {pending ? pendingLabel : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}

/** What a dialog needs of the mutation its confirm button runs. */
interface MutationLike {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  reset: () => void;
}

/**
 * A ConfirmDialog's `onCancel`, `pending` and `error` for `mutation`: cancelling closes the dialog
 * (`close`) and forgets a failed attempt, so that the dialog opens again without its error.
 */
export function mutationDialog(mutation: MutationLike, close: () => void) {
  return {
    onCancel: () => {
      close();
      mutation.reset();
    },
    pending: mutation.isPending,
    error: mutation.isError ? messageOf(mutation.error) : undefined,
  };
}
