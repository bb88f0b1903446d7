// One error vocabulary for both transports. Procedures throw these; the REST adapter and the tRPC
// error formatter turn them into { error: { code, message, issues } } with the matching status.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';

export type ApiErrorCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unauthorized'
  | 'unsupported_media_type'
  | 'upstream_unavailable'
  | 'internal_error';

const TRPC_TO_API: Partial<Record<TRPC_ERROR_CODE_KEY, ApiErrorCode>> = {
  BAD_REQUEST: 'validation_failed',
  PARSE_ERROR: 'malformed_json',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNAUTHORIZED: 'unauthorized',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  BAD_GATEWAY: 'upstream_unavailable',
};

export interface Issue {
  path: string;
  message: string;
}

export const notFound = (what: string) => new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });
export const conflict = (message: string) => new TRPCError({ code: 'CONFLICT', message });
export const badRequest = (message: string, issues?: Issue[]) =>
  new TRPCError({ code: 'BAD_REQUEST', message, cause: issues ? new IssuesError(issues) : undefined });
export const upstream = (message: string) => new TRPCError({ code: 'BAD_GATEWAY', message });

/** Field-level issues raised by a procedure itself (not by zod). */
export class IssuesError extends Error {
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  }
}

export function apiCode(code: TRPC_ERROR_CODE_KEY): ApiErrorCode {
  return TRPC_TO_API[code] ?? 'internal_error';
}

export function issuesOf(error: TRPCError): Issue[] | undefined {
  const cause = error.cause;
  if (cause instanceof ZodError) {
    return cause.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
  }
  if (cause instanceof IssuesError) return cause.issues;
  return undefined;
}

/** The public message: zod failures name their fields, internal errors say nothing of internals. */
export function publicMessage(error: TRPCError): string {
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  const issues = issuesOf(error);
  if (issues && error.cause instanceof ZodError) {
    return `Invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
  }
  return error.message;
}

/** PostgreSQL's unique_violation, on PGlite and on a real server alike. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  let e: unknown = error;
  // drizzle wraps driver errors; the SQLSTATE is on the innermost cause
  for (let depth = 0; e && depth < 5; depth++) {
    const candidate = e as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === '23505') return constraint === undefined || candidate.constraint === constraint;
    e = candidate.cause;
  }
  return false;
}
