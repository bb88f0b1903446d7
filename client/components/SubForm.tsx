// A form inside a card, laid out the same everywhere: its heading (also its accessible name), its
// rows of fields, the error about the whole form, and the submit button with any other actions.
import type { FormEvent, ReactNode } from 'react';
import { FormError, SubmitButton } from './Field';

interface SubFormProps {
  title: string;
  onSubmit: (event: FormEvent) => void;
  /** The server's error about no one field. */
  error: ReactNode;
  submit: { pending: boolean; label: string; pendingLabel: string };
  /** Buttons beside the submit button (Cancel). */
  actions?: ReactNode;
  children: ReactNode;
}

export function SubForm({ title, onSubmit, error, submit, actions, children }: SubFormProps) {
  return (
    <form className="subform" onSubmit={onSubmit} noValidate aria-label={title}>
      <h3>{title}</h3>
      {children}
      <FormError>{error}</FormError>
      {actions ? (
        <div className="actions">
          <SubmitButton {...submit} />
          {actions}
        </div>
      ) : (
        <SubmitButton {...submit} />
      )}
    </form>
  );
}

/**
 * One row of fields side by side (three on wide screens with `columns={3}`), stacked on narrow ones;
 * `className` for a row laid out its own way.
 */
export function FieldRow({ columns = 2, className, children }: { columns?: 2 | 3; className?: string; children: ReactNode }) {
  return <div className={['form-grid', columns === 3 ? 'form-grid-3' : undefined, className].filter(Boolean).join(' ')}>{children}</div>;
}

interface InlineFormProps {
  /** The form's accessible name. */
  label: string;
  onSubmit: (event: FormEvent) => void;
  submit: SubFormProps['submit'];
  children: ReactNode;
}

/** A form of one field with its submit button beside it (below it on narrow screens). */
export function InlineForm({ label, onSubmit, submit, children }: InlineFormProps) {
  return (
    <form className="subform subform-inline" onSubmit={onSubmit} noValidate aria-label={label}>
      {children}
      <button type="submit" className="button button-primary" disabled={submit.pending}>
        {submit.pending ? submit.pendingLabel : submit.label}
      </button>
    </form>
  );
}
