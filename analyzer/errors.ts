// How the analyzer fails, in querytrail's one error vocabulary (shared/errors.ts): an HTTP status and
// a code per cause, so the SPA can tell the user what to fix (the host, the password, the database
// name...). The causes of a failed connection are classified by the gateway; this file only says
// which status each one gets.
import { classifyError, type GatewayErrorCode } from '../gateway/index';
import type { ErrorCode, Issue } from '../shared/errors';

export class AnalyzerHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
  ) {
    super(message);
  }
}

const ANSWERS: Record<GatewayErrorCode, { status: number; code: ErrorCode }> = {
  // the request's schema checks the same rules first; this is the gateway's own refusal
  invalid_connection_string: { status: 400, code: 'validation_failed' },
  connection_refused: { status: 502, code: 'connection_refused' },
  host_not_found: { status: 502, code: 'host_not_found' },
  tls_error: { status: 502, code: 'tls_error' },
  authentication_failed: { status: 401, code: 'authentication_failed' },
  database_not_found: { status: 404, code: 'database_not_found' },
  too_many_connections: { status: 503, code: 'too_many_connections' },
  timeout: { status: 504, code: 'timeout' },
  connection_failed: { status: 502, code: 'connection_failed' },
  not_read_only: { status: 502, code: 'not_read_only' },
};

/** Maps a failure to connect (or to run the first statement) to an HTTP status and code. */
export function classifyConnectionError(error: unknown): AnalyzerHttpError {
  if (error instanceof AnalyzerHttpError) return error;
  const classified = classifyError(error);
  const { status, code } = ANSWERS[classified.code];
  return new AnalyzerHttpError(status, code, classified.message);
}
