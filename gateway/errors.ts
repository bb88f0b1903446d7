// What goes wrong between us and a user's database, classified once here: every caller (the
// analyzer's HTTP answers, production sync, ci-report, the advisor) maps these codes to its own
// shape instead of guessing from driver messages.
import { databaseErrorOf } from '../shared/database-error';

export type GatewayErrorCode =
  | 'invalid_connection_string'
  | 'connection_refused'
  | 'host_not_found'
  | 'tls_error'
  | 'authentication_failed'
  | 'database_not_found'
  | 'too_many_connections'
  | 'timeout'
  | 'connection_failed'
  | 'not_read_only';

export class GatewayError extends Error {
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
}

// OpenSSL and Node codes seen when a certificate cannot be verified.
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** The message of anything thrown, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Maps a failure to connect (or to run the first statement) to one code: by what PostgreSQL said
 * (its SQLSTATE), else by Node's error code (ECONNREFUSED, an OpenSSL code), else by the message.
 */
export function classifyError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const { code, message } = (error ?? {}) as ErrorLike;
  const text = typeof message === 'string' && message ? message : String(error);
  const reason = databaseErrorOf(error)?.code ?? (typeof code === 'string' ? code : '');
  switch (reason) {
    case 'ECONNREFUSED':
      return new GatewayError('connection_refused', `Connection refused: nothing accepts connections at that host and port (${text})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new GatewayError('host_not_found', `The host name could not be resolved (${text})`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new GatewayError('timeout', `The server could not be reached in time (${text})`);
    case '28P01':
    case '28000':
      return new GatewayError('authentication_failed', text);
    case '3D000':
      return new GatewayError('database_not_found', text);
    case '53300':
    case '57P03':
      return new GatewayError('too_many_connections', text);
    case '57014':
      return new GatewayError('timeout', text);
  }
  if (TLS_CODES.test(reason) || /\bSSL\b|\bTLS\b|certificate/i.test(text)) return new GatewayError('tls_error', text);
  if (/timeout|timed out/i.test(text)) return new GatewayError('timeout', `The server did not answer in time (${text})`);
  return new GatewayError('connection_failed', text);
}
