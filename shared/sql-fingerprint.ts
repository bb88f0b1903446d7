// Query identity and display, shared by the server (ingestion), the analyzer and the CI reporter.
// libpg-query is PostgreSQL's own parser compiled to WASM, so a fingerprint here is the same one
// pganalyze and others compute: literals, IN-list lengths and comments do not change it.
import { loadModule, fingerprintSync, normalizeSync, parseSync } from 'libpg-query';
import { deparse } from 'pgsql-deparser';

let ready: Promise<void> | undefined;

/** Loads the WASM parser once; every other function here needs it loaded. */
export function loadParser(): Promise<void> {
  ready ??= loadModule();
  return ready;
}

export interface Fingerprinted {
  hash: string;
  /** Literals replaced by $1, $2, ... and pretty-printed. */
  formattedQuery: string;
}

/** Fingerprint and format one statement; throws with PostgreSQL's syntax error when it does not parse. */
export async function fingerprintQuery(query: string): Promise<Fingerprinted> {
  await loadParser();
  const hash = fingerprintSync(query);
  return { hash, formattedQuery: await formatQuery(query) };
}

/**
 * Normalized, pretty-printed SQL. Falls back to the normalized text when the deparser cannot
 * print a statement (it covers less of the grammar than the parser).
 */
export async function formatQuery(query: string): Promise<string> {
  await loadParser();
  const normalized = normalizeSync(query).trim();
  try {
    const pretty = await deparse(parseSync(normalized), { pretty: true });
    return pretty.trim() || normalized;
  } catch {
    return normalized;
  }
}
