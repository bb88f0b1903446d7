// Turns what pg and Node throw while connecting into the analyzer's one error shape, with a code per
// cause so the SPA can tell the user what to fix (the host, the password, the database name...).
import type { AnalyzerErrorCode } from '../shared/analyzer-schema';

export class AnalyzerHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: AnalyzerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
}

// OpenSSL and Node codes seen when a certificate cannot be verified.
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** Maps a failure to connect (or to run the first statement) to an HTTP status and code. */
export function classifyConnectionError(error: unknown): AnalyzerHttpError {
  const { code, message } = (error ?? {}) as ErrorLike;
  const text = typeof message === 'string' && message ? message : String(error);
  const sqlState = typeof code === 'string' ? code : '';
  switch (sqlState) {
    case 'ECONNREFUSED':
      return new AnalyzerHttpError(502, 'connection_refused', `Connection refused: nothing accepts connections at that host and port (${text})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new AnalyzerHttpError(502, 'host_not_found', `The host name could not be resolved (${text})`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new AnalyzerHttpError(504, 'timeout', `The server could not be reached in time (${text})`);
    case '28P01':
    case '28000':
      return new AnalyzerHttpError(401, 'authentication_failed', text);
    case '3D000':
      return new AnalyzerHttpError(404, 'database_not_found', text);
    case '53300':
    case '57P03':
      return new AnalyzerHttpError(503, 'too_many_connections', text);
    case '57014':
      return new AnalyzerHttpError(504, 'timeout', text);
  }
  if (TLS_CODES.test(sqlState) || /\bSSL\b|\bTLS\b|certificate/i.test(text)) {
    return new AnalyzerHttpError(502, 'tls_error', text);
  }
  if (/timeout|timed out/i.test(text)) {
    return new AnalyzerHttpError(504, 'timeout', `The server did not answer in time (${text})`);
  }
  return new AnalyzerHttpError(502, 'connection_failed', text);
}

/** The message of anything thrown, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
