// What the server logs about an unexpected failure: enough to find the failing code, nothing of the
// request. Printing the error object itself would also print what it carries: the raw body of a
// body-parser error, the bound parameters of a failed query (drizzle puts them in its message), a
// PostgreSQL error's DETAIL with the offending row values.
import { causeChain } from '../shared/database-error';

const MAX_MESSAGE = 200;
const MAX_FRAMES = 8;

function describe(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  // drizzle: "Failed query: <sql>\nparams: <values>"; the SQL is ours, the values are the request's
  const message = (error.message.split('\nparams:')[0] ?? '').replace(/\s+/g, ' ').slice(0, MAX_MESSAGE);
  return `${error.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${message}`;
}

/** One entry per unexpected error: its chain of causes (name, SQLSTATE or error code, message) and where it was thrown. */
export function logUnexpectedError(where: string, error: unknown): void {
  const chain = causeChain(error, 5).map(describe);
  const frames =
    error instanceof Error && error.stack
      ? error.stack
          .split('\n')
          .filter((line) => /^\s+at /.test(line))
          .slice(0, MAX_FRAMES)
      : [];
  console.error([`[${where}] ${chain.join(' <- caused by ')}`, ...frames].join('\n'));
}
