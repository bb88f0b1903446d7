// Query identity and display, shared by the server (ingestion), the analyzer and the CI reporter.
// libpg-query is PostgreSQL's own parser compiled to WASM, so a fingerprint here is the same one
// pganalyze and others compute: literals, IN-list lengths and comments do not change it.
import { loadModule, fingerprintSync, normalizeSync, parseSync } from 'libpg-query';
import { deparse } from 'pgsql-deparser';

let ready: Promise<void> | undefined;

/**
 * Loads libpg-query's WASM module, once per process. Everything that parses SQL with it (the
 * functions here, the advisor's statement gate and candidate reader) needs it loaded first.
 */
export function loadParser(): Promise<void> {
  ready ??= loadModule();
  return ready;
}

/** What every libpg_query fingerprint looks like: 64 bits as 16 lowercase hexadecimal digits. */
const FINGERPRINT = /^[0-9a-f]{16}$/;

/** A query text that is not SQL libpg_query can read; the message is PostgreSQL's syntax error. */
export class QueryParseError extends Error {
  override name = 'QueryParseError';
}

let emptyFingerprint: string | undefined;

/**
 * The fingerprint of a text that parses to at least one statement; throws QueryParseError otherwise.
 * fingerprintSync does not throw for every parse error: an unterminated quote, comment or dollar
 * quote, or nesting too deep for the parser, come back as the error message in place of the hash.
 * Such a "hash" would file unrelated broken texts under one catalog entry, so anything that is not
 * a fingerprint is the parse error. A text with no statement (only comments or semicolons) has the
 * fingerprint of the empty list, which again every such text would share.
 */
export function fingerprintOf(query: string): string {
  if (!query.trim()) throw new QueryParseError('Query is empty');
  let hash: string;
  try {
    hash = fingerprintSync(query);
  } catch (error) {
    throw new QueryParseError((error as Error).message);
  }
  if (!FINGERPRINT.test(hash)) throw new QueryParseError(hash);
  emptyFingerprint ??= fingerprintSync(';');
  if (hash === emptyFingerprint) throw new QueryParseError('Query has no SQL statement, only comments or semicolons');
  return hash;
}

export interface Fingerprinted {
  hash: string;
  /** Literals replaced by $1, $2, ... and pretty-printed. */
  formattedQuery: string;
}

/** Fingerprint and format one statement; throws QueryParseError when it does not parse. */
export async function fingerprintQuery(query: string): Promise<Fingerprinted> {
  await loadParser();
  const hash = fingerprintOf(query);
  return { hash, formattedQuery: await formatQuery(query) };
}

/**
 * Normalized, pretty-printed SQL. Falls back to the normalized text when the deparser cannot
 * print a statement (it covers less of the grammar than the parser). Throws when the query itself
 * does not parse.
 */
export async function formatQuery(query: string): Promise<string> {
  await loadParser();
  let normalized: string;
  try {
    normalized = normalizeSync(query).trim();
  } catch (error) {
    throw new QueryParseError((error as Error).message);
  }
  let tree: ReturnType<typeof parseSync>;
  try {
    tree = parseSync(normalized);
  } catch {
    // normalizeSync, like fingerprintSync, answers some parse errors with the message as its
    // result: only a query that parses itself may be shown as its normalized text.
    try {
      parseSync(query);
    } catch (error) {
      throw new QueryParseError((error as Error).message);
    }
    return normalized;
  }
  try {
    const pretty = await deparse(tree, { pretty: true });
    return pretty.trim() || normalized;
  } catch {
    return normalized;
  }
}
