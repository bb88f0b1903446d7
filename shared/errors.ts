// The one HTTP error vocabulary of querytrail: the API (server/) and the analyzer (analyzer/) answer
// every failure with the same body, { error: { code, message, issues? } }, and a given condition
// gets the same code from both (a body that is not JSON is malformed_json wherever it is sent), so
// the SPA, the CLI and scripts branch on one list. Each service keeps its own HTTP statuses.
import { z } from 'zod';

const ERROR_CODES = [
  // the request itself
  'validation_failed', // a field (named in issues), the path or the body's shape is refused
  'invalid_input', // the database refused a value as data: the backstop behind the schemas
  'malformed_json',
  'payload_too_large',
  'unsupported_media_type',
  'not_found',
  'conflict',
  // who may ask
  'unauthorized', // no credentials, or ones that are not (or no longer) valid
  'forbidden', // valid credentials without the role or scope needed (the message names it)
  'host_not_allowed',
  'origin_not_allowed',
  // reaching a user's database (the analyzer): one code per way a connection fails
  'connection_refused',
  'host_not_found',
  'tls_error',
  'authentication_failed',
  'database_not_found',
  'too_many_connections',
  'timeout',
  'connection_failed',
  'not_read_only',
  'pg_stat_statements_unavailable',
  'shadow_busy',
  // our side
  'upstream_unavailable',
  'internal_error',
] as const;
const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** One refused field: its dotted path (queries.0.hash) and why. */
const issueSchema = z.object({ path: z.string(), message: z.string() });
export type Issue = z.infer<typeof issueSchema>;

export const errorBodySchema = z.object({
  error: z.object({ code: errorCodeSchema, message: z.string(), issues: z.array(issueSchema).optional() }),
});
type ErrorBody = z.infer<typeof errorBodySchema>;

/** The body of every error answer; issues only when there are some to name. */
export function errorBody(code: ErrorCode, message: string, issues?: Issue[]): ErrorBody {
  return { error: { code, message, ...(issues ? { issues } : {}) } };
}

/** zod's issues as the API names them: the path dotted, the value as a whole named `whole`. */
export function issuesOf(error: z.ZodError, whole = '(body)'): Issue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || whole, message: issue.message }));
}

/** "path: message; path: message", for a message that names every refused field. */
export function describeIssues(issues: Issue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/** The message of a validation_failed answer. */
export const invalidInputMessage = (issues: Issue[]) => `Invalid input: ${describeIssues(issues)}`;

interface ErrorAnswer {
  status: number;
  code: ErrorCode;
  message: string;
}

/** An HTTP response that can be given a status and a JSON body (express's, and any like it). */
interface JsonResponse {
  status(code: number): { json(body: unknown): unknown };
}

/** Answers an HTTP request with an error: its status, and the one error body. */
export function sendError(res: JsonResponse, answer: ErrorAnswer & { issues?: Issue[] }): void {
  res.status(answer.status).json(errorBody(answer.code, answer.message, answer.issues));
}

// A client error some middleware raised with only an HTTP status (express.static's 404, ...).
const BY_STATUS: Record<number, Omit<ErrorAnswer, 'status'>> = {
  404: { code: 'not_found', message: 'Not found' },
  413: { code: 'payload_too_large', message: 'Request body is too large' },
  415: { code: 'unsupported_media_type', message: 'Unsupported media type' },
};

/**
 * The answer to a client error raised before any route ran: a body the JSON parser (body-parser, as
 * express.json) could not read, told by the `type` it marks its errors with, or any other 4xx a
 * middleware raised (an aborted upload: validation_failed). Undefined for anything else, which is
 * our failure and answers 500.
 */
export function clientErrorAnswer(error: unknown, maxBodyBytes?: number): ErrorAnswer | undefined {
  const { type, status, statusCode } = (error ?? {}) as { type?: unknown; status?: unknown; statusCode?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return { status: 400, code: 'malformed_json', message: 'Request body is not valid JSON' };
    case 'entity.too.large':
      return {
        status: 413,
        code: 'payload_too_large',
        message: maxBodyBytes ? `Request body is larger than ${maxBodyBytes} bytes` : 'Request body is too large',
      };
    case 'encoding.unsupported':
      return { status: 415, code: 'unsupported_media_type', message: 'Unsupported Content-Encoding (use gzip, deflate or none)' };
    case 'charset.unsupported':
      return { status: 415, code: 'unsupported_media_type', message: 'Unsupported charset' };
  }
  const code = Number(status ?? statusCode);
  if (!(code >= 400 && code < 500)) return undefined;
  return { status: code, ...(BY_STATUS[code] ?? { code: 'validation_failed', message: 'Bad request' }) };
}
