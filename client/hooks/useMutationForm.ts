import { useState, type FormEvent } from 'react';
import { apiCodeOf, fieldErrorsOf, messageOf } from '../lib/errors';

interface Mutation {
  error: unknown;
  reset: () => void;
}

/**
 * A form that sends one mutation, and the errors it shows. A field shows the server's message for
 * it first; else its client-side check (the zod schema the server applies too), once the form was
 * submitted or as soon as the field holds text. An error the server gives about no field is the
 * form's. Editing a field clears the server's answer, so a stale message never stays beside a new
 * value.
 */
export function useMutationForm(
  mutation: Mutation,
  /** Server error codes that are about one field (a taken slug is a conflict without field issues). */
  codeFields: Record<string, string> = {},
) {
  const [submitted, setSubmitted] = useState(false);
  const server = fieldErrorsOf(mutation.error);
  const codeField = codeFields[apiCodeOf(mutation.error) ?? ''];
  if (mutation.error && codeField) server[codeField] ??= messageOf(mutation.error);

  return {
    formError: mutation.error && Object.keys(server).length === 0 ? messageOf(mutation.error) : undefined,
    /** The server's message about a field whose value cannot be wrong on this side (a select). */
    serverError: (name: string): string | undefined => server[name],
    /**
     * The value, onChange and error of the text field `name`, checked by `clientError`; with
     * `untilSubmit` the check shows only once the form was submitted, not while typing.
     */
    field: (name: string, value: string, set: (value: string) => void, clientError?: string, { untilSubmit = false } = {}) => ({
      value,
      onChange: (next: string) => {
        set(next);
        mutation.reset();
      },
      error: server[name] ?? (submitted || (!untilSubmit && value) ? clientError : undefined),
    }),
    /** The form's onSubmit: shows every field's error, and sends only when `valid`. */
    submit: (valid: boolean, send: () => void) => (event: FormEvent) => {
      event.preventDefault();
      setSubmitted(true);
      if (valid) send();
    },
    /** After a success: the emptied form shows no errors until submitted again. */
    clear: () => setSubmitted(false),
  };
}
