// What PostgreSQL said about a failure (its SQLSTATE), wherever that sits in the chain of causes:
// drizzle wraps driver errors (DrizzleQueryError), tRPC wraps those again, and pg, PGlite and our
// own wrappers put the code on different levels. Every check of a SQLSTATE goes through here.

/** What PostgreSQL said, from pg and PGlite alike. */
interface DatabaseError {
  /** SQLSTATE, e.g. 23505 */
  code: string;
  message: string;
  constraint?: string;
}

/** An error and the causes it wraps, outermost first; at most `limit`, so a cycle cannot loop. */
export function causeChain(error: unknown, limit = 6): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < limit; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * The database error behind an error, if any. Only errors with a severity count: a Node system
 * error such as EPIPE also has a 5-letter code.
 */
export function databaseErrorOf(error: unknown): DatabaseError | undefined {
  for (const e of causeChain(error)) {
    const candidate = e as { code?: unknown; severity?: unknown; message?: unknown; constraint?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code) && typeof candidate.severity === 'string') {
      return {
        code: candidate.code,
        message: typeof candidate.message === 'string' ? candidate.message : '',
        constraint: typeof candidate.constraint === 'string' ? candidate.constraint : undefined,
      };
    }
  }
  return undefined;
}
