// Turns the queries of a request into catalog rows: one per fingerprint hash, each with its
// normalized, pretty-printed text. Runs before any transaction is opened, so the (CPU-bound)
// fingerprinting never holds row locks.
import { callSitesOf } from '../../shared/call-sites';
import type { CiQueryInput, RejectedQuery } from '../../shared/ci';
import { fingerprintOf, formatQuery, loadParser } from '../../shared/sql-fingerprint';
import { mergeSightings, sortByHash } from './merge';
import type { CatalogRow } from './catalog-write';

export interface PreparedRun {
  /** Distinct by hash, sorted by hash (the order rows are locked in, see upsert.ts). */
  rows: CatalogRow[];
  rejected: RejectedQuery[];
}

const MAX_REASON = 500;

function reasonOf(error: unknown): string {
  // The parser's own message names what is wrong ("unterminated quoted string at or near ...").
  const message = error instanceof Error ? error.message : String(error);
  return `Query could not be parsed: ${message}`.slice(0, MAX_REASON);
}

/** Formats when the client did not; a statement the deparser or normalizer cannot read is shown as sent. */
async function formattedOrRaw(query: string): Promise<string> {
  try {
    return await formatQuery(query);
  } catch {
    return query.trim();
  }
}

/**
 * Hashes every query (the client's hash wins: it fingerprinted the text with the same parser, and
 * the zod layer only lets a fingerprint-shaped hash through), rejects the ones without a hash that
 * do not parse to a statement, and merges repeats of one hash: a query listed twice in a run
 * counts once, its figures summed and the last text kept.
 */
export async function prepareQueries(queries: readonly CiQueryInput[]): Promise<PreparedRun> {
  await loadParser();
  const rejected: RejectedQuery[] = [];
  const byHash = new Map<string, CatalogRow & { given: boolean }>();
  queries.forEach((input, index) => {
    let hash = input.hash;
    if (hash === undefined) {
      try {
        hash = fingerprintOf(input.query);
      } catch (error) {
        rejected.push({ index, reason: reasonOf(error) });
        return;
      }
    }
    const row = {
      hash,
      query: input.query,
      formattedQuery: input.formattedQuery ?? '',
      given: input.formattedQuery !== undefined,
      calls: input.calls ?? null,
      meanTimeMs: input.meanTimeMs ?? null,
      // the comments' tags: where in the application the statement comes from
      callSites: callSitesOf(input.query),
    };
    const earlier = byHash.get(hash);
    byHash.set(hash, earlier ? { ...row, ...mergeSightings(earlier, row) } : row);
  });
  // Only the kept texts are formatted: deparsing is the costly step, repeats need none.
  const rows: CatalogRow[] = [];
  for (const { given, ...row } of byHash.values()) {
    rows.push(given ? row : { ...row, formattedQuery: await formattedOrRaw(row.query) });
  }
  return { rows: sortByHash(rows), rejected };
}

/**
 * One query typed by hand; throws a readable message when it does not parse. A person typed it, so
 * it is parsed even when a hash came with it: a manual entry is never text the parser cannot read.
 */
export async function prepareOne(query: string, hash?: string): Promise<CatalogRow> {
  await loadParser();
  let computed: string;
  try {
    computed = fingerprintOf(query);
  } catch (error) {
    throw new Error(reasonOf(error), { cause: error });
  }
  const { rows } = await prepareQueries([{ query, hash: hash ?? computed }]);
  return rows[0]!;
}
