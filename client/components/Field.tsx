// Labelled form controls with their error beside them (aria-invalid + aria-describedby, so
// assistive technology reads the message with the field).
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/** What every control of a field carries: its id for the label, and its error or hint described. */
interface ControlProps {
  id: string;
  className: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  label: string;
  error?: string;
  hint?: ReactNode;
  /** Layout of the field: 'field-inline' (label beside a toolbar control), 'field-grow' (fills the toolbar). */
  layout?: 'field-inline' | 'field-grow';
  children: (control: ControlProps) => ReactNode;
}

/** A label, the control `children` renders, and below it the error or else the hint. */
function Field({ label, error, hint, layout, children }: FieldProps) {
  const id = useId();
  const control: ControlProps = {
    id,
    className: 'input',
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : hint ? `${id}-hint` : undefined,
  };
  return (
    <div className={['field', layout, error ? 'field-invalid' : undefined].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{label}</label>
      {children(control)}
      {hint && !error ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
};

export function TextField({ label, value, onChange, error, hint, ...rest }: TextFieldProps) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => <input {...control} value={value} onChange={(event) => onChange(event.target.value)} {...rest} />}
    </Field>
  );
}

type TextAreaFieldProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'onChange' | 'value'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
  /** For code-like values (hashes, SQL): a fixed-width font. */
  monospace?: boolean;
};

export function TextAreaField({ label, value, onChange, error, hint, monospace = false, ...rest }: TextAreaFieldProps) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => (
        <textarea
          {...control}
          className={monospace ? 'input textarea textarea-mono' : 'input textarea'}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          {...rest}
        />
      )}
    </Field>
  );
}

/** A search box in a toolbar: filters as the user types, so it has no error to show. */
export function SearchField({
  label,
  value,
  onChange,
  placeholder,
  layout = 'field-inline',
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  layout?: FieldProps['layout'];
}) {
  return (
    <Field label={label} layout={layout}>
      {(control) => <input {...control} type="search" value={value} onChange={(event) => onChange(event.target.value)} placeholder={placeholder} />}
    </Field>
  );
}

type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'onChange' | 'value'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
  error?: string;
  hint?: ReactNode;
};

export function SelectField({ label, value, onChange, options, error, hint, ...rest }: SelectFieldProps) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => (
        <select {...control} value={value} onChange={(event) => onChange(event.target.value)} {...rest}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

interface CheckboxGroupProps<T extends string> {
  legend: string;
  /** Classes beside `policy-conditions`. */
  className: string;
  options: readonly T[];
  checked: readonly T[];
  onChange: (option: T, checked: boolean) => void;
  /** What the checkbox of `option` says. */
  label: (option: T) => ReactNode;
  error?: string;
}

/** A set of checkboxes that choose some of `options`, under a legend, with the error about the choice. */
export function CheckboxGroup<T extends string>({ legend, className, options, checked, onChange, label, error }: CheckboxGroupProps<T>) {
  const id = useId();
  return (
    <fieldset className={`policy-conditions ${className}`} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option} className="checkbox">
          <input type="checkbox" checked={checked.includes(option)} onChange={(event) => onChange(option, event.target.checked)} />
          {label(option)}
        </label>
      ))}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** An error about a whole form or action (not one field), announced when it appears. */
export function FormError({ children }: { children?: ReactNode }) {
  if (!children) return null;
  return (
    <p className="field-error" role="alert">
      {children}
    </p>
  );
}

/** A form's submit button, which says what it is doing while the request runs. */
export function SubmitButton({ pending, label, pendingLabel }: { pending: boolean; label: string; pendingLabel: string }) {
  return (
    <div className="form-actions">
      <button type="submit" className="button button-primary" disabled={pending}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
