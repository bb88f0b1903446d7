// Turns errors from the tRPC client and zod into what a form shows: a message per field and one
// for the form as a whole. The server's codes and issues are querytrail's one error vocabulary
// (shared/errors.ts); the tRPC formatter sends them as data.apiCode and data.issues.
import type { z } from 'zod';
import type { ErrorCode, Issue } from '../../shared/errors';

export type FieldErrors = Record<string, string>;

interface ServerErrorData {
  apiCode?: ErrorCode;
  issues?: Issue[];
  httpStatus?: number;
}

/** The REST-shaped body { error: { code, message, issues } } of a refusal made before tRPC runs. */
interface RestErrorBody {
  error?: { code?: ErrorCode; message?: string; issues?: Issue[] };
}

const objectOf = (value: unknown): Record<string, unknown> | undefined => (value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);

/**
 * A refusal made before tRPC runs (no session: 401; a cross-site request: 403) comes as the REST
 * error body, which the tRPC client cannot read as its own: it keeps the response in `meta`.
 */
function restErrorOf(error: unknown): { status?: number; body?: RestErrorBody['error'] } {
  const meta = objectOf(objectOf(error)?.meta);
  const response = objectOf(meta?.response);
  const body = objectOf(meta?.responseJSON) as RestErrorBody | undefined;
  return { status: typeof response?.status === 'number' ? response.status : undefined, body: objectOf(body?.error) };
}

function dataOf(error: unknown): ServerErrorData | undefined {
  const data = objectOf(objectOf(error)?.data);
  if (data) return data as ServerErrorData;
  const rest = restErrorOf(error);
  if (rest.body || rest.status) return { apiCode: rest.body?.code, issues: rest.body?.issues, httpStatus: rest.status };
  return undefined;
}

/** The API's error code (validation_failed, conflict, not_found, ...), when the server sent one. */
export function apiCodeOf(error: unknown): ErrorCode | undefined {
  const data = dataOf(error);
  return data?.apiCode ?? (data?.httpStatus === 401 ? 'unauthorized' : undefined);
}

/** The server no longer knows who is asking (never signed in, or the session ended). */
export const isUnauthorized = (error: unknown) => apiCodeOf(error) === 'unauthorized';

/** Asking again cannot help: the thing is not there, or the caller may not have it. */
export const isRefusal = (error: unknown) => {
  const code = apiCodeOf(error);
  return code === 'not_found' || code === 'unauthorized' || code === 'forbidden';
};

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
  // a refusal made before tRPC runs: the tRPC client's own message ("Unable to transform...") says nothing
  const rest = restErrorOf(error).body?.message;
  if (rest) return rest;
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
