// Turns errors from the tRPC client and zod into what a form shows: a message per field and one
// for the form as a whole. The server's codes and issues are querytrail's one error vocabulary
// (shared/errors.ts); the tRPC formatter sends them as data.apiCode and data.issues.
import type { z } from 'zod';
import type { ErrorCode, Issue } from '../../shared/errors';

export type FieldErrors = Record<string, string>;

interface ServerErrorData {
  apiCode?: ErrorCode;
  issues?: Issue[];
}

function dataOf(error: unknown): ServerErrorData | undefined {
  if (error && typeof error === 'object' && 'data' in error) {
    const data = (error as { data: unknown }).data;
    if (data && typeof data === 'object') return data as ServerErrorData;
  }
  return undefined;
}

/** The API's error code (validation_failed, conflict, not_found, ...), when the server sent one. */
export function apiCodeOf(error: unknown): ErrorCode | undefined {
  return dataOf(error)?.apiCode;
}

/** Field-level messages the server returned, keyed by the top-level field they name. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  const result: FieldErrors = {};
  for (const issue of dataOf(error)?.issues ?? []) {
    const field = issue.path.split('.')[0] ?? issue.path;
    result[field] ??= issue.message;
  }
  return result;
}

/** A message for people: network failures say so instead of "Failed to fetch". */
export function messageOf(error: unknown): string {
  if (!error) return '';
  const message = error instanceof Error ? error.message : String(error);
  if (/failed to fetch|networkerror|fetch failed|load failed/i.test(message)) {
    return 'Could not reach the querytrail server. Check that it is running and try again.';
  }
  return message;
}

/** The first message zod gives for a value, or undefined when it is valid. */
export function validate(schema: z.ZodType, value: unknown): string | undefined {
  try {
    const result = schema.safeParse(value);
    return result.success ? undefined : (result.error.issues[0]?.message ?? 'Invalid value');
  } catch (error) {
    return (error as Error).message;
  }
}
