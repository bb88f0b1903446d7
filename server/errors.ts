// How procedures fail, in the API's vocabulary (shared/errors.ts). Procedures throw these tRPC
// errors; the tRPC error formatter (trpc.ts) and the REST adapter (rest.ts) turn them into
// { error: { code, message, issues } } with the matching status.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';
import { databaseErrorOf } from '../shared/database-error';
import { describeIssues, invalidInputMessage, issuesOf, type ErrorCode, type Issue } from '../shared/errors';

const TRPC_TO_API: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: 'validation_failed',
  PARSE_ERROR: 'malformed_json',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  BAD_GATEWAY: 'upstream_unavailable',
};

export const notFound = (what: string) => new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });
export const conflict = (message: string) => new TRPCError({ code: 'CONFLICT', message });
export const badRequest = (message: string, issues?: Issue[]) =>
  new TRPCError({ code: 'BAD_REQUEST', message, cause: issues ? new IssuesError(issues) : undefined });
export const unauthorized = (message = 'Sign in, or send Authorization: Bearer <token>') => new TRPCError({ code: 'UNAUTHORIZED', message });
export const forbidden = (message: string) => new TRPCError({ code: 'FORBIDDEN', message });
export const upstream = (message: string) => new TRPCError({ code: 'BAD_GATEWAY', message });

/** Field-level issues raised by a procedure itself (not by zod). */
class IssuesError extends Error {
  constructor(readonly issues: Issue[]) {
    super(describeIssues(issues));
  }
}

export function apiCode(code: TRPC_ERROR_CODE_KEY): ErrorCode {
  return TRPC_TO_API[code] ?? 'internal_error';
}

/** The API code of one error: a value the database refused is invalid_input, the rest follow the tRPC code. */
export function apiCodeOf(error: TRPCError): ErrorCode {
  return error.cause instanceof InvalidInputError ? 'invalid_input' : apiCode(error.code);
}

/** The refused fields a tRPC error carries: zod's from input validation, or those a domain check named. */
export function issuesCarriedBy(error: TRPCError): Issue[] | undefined {
  const cause = error.cause;
  if (cause instanceof ZodError) return issuesOf(cause);
  if (cause instanceof IssuesError) return cause.issues;
  return undefined;
}

/** The public message: zod failures name their fields, internal errors say nothing of internals. */
export function publicMessage(error: TRPCError): string {
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  const issues = issuesCarriedBy(error);
  if (issues && error.cause instanceof ZodError) return invalidInputMessage(issues);
  return error.message;
}

/** PostgreSQL's unique_violation, on PGlite and on a real server alike. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const db = databaseErrorOf(error);
  return db?.code === '23505' && (constraint === undefined || db.constraint === constraint);
}

/** PostgreSQL's foreign_key_violation: the row referred to was deleted meanwhile. */
export const isForeignKeyViolation = (error: unknown) => databaseErrorOf(error)?.code === '23503';

/** A value PostgreSQL refused as data (SQLSTATE class 22): the caller's input, not our failure. */
class InvalidInputError extends Error {}

/**
 * The backstop behind the zod layer: a request whose value the database refuses as data (class 22:
 * NUL in text, a number out of range, an impossible date) answers 400 invalid_input with
 * PostgreSQL's own message, not 500. Its statement failed, so nothing was stored. It is logged,
 * since the input schemas should have refused the value first.
 */
export function asInvalidInput(error: TRPCError): TRPCError | undefined {
  if (error.code !== 'INTERNAL_SERVER_ERROR') return undefined;
  const db = databaseErrorOf(error);
  if (!db?.code.startsWith('22')) return undefined;
  console.warn(`[api] input refused by the database (SQLSTATE ${db.code}): ${db.message}`);
  const message = `Invalid input: ${db.message || 'a value cannot be stored'}`;
  return new TRPCError({ code: 'BAD_REQUEST', message, cause: new InvalidInputError(message) });
}
