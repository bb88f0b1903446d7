// Turns the queries of a request into catalog rows: one per fingerprint hash, each with its
// normalized, pretty-printed text. Runs before any transaction is opened, so the (CPU-bound)
// fingerprinting never holds row locks.
import { fingerprintSync } from 'libpg-query';
import type { CiQueryInput, RejectedQuery } from '../../shared/ci';
import { formatQuery, loadParser } from '../../shared/sql-fingerprint';

export interface CatalogRow {
  hash: string;
  query: string;
  formattedQuery: string;
  calls: number | null;
  meanTimeMs: number | null;
}

export interface PreparedRun {
  /** Distinct by hash, sorted by hash (the order rows are locked in, see ingest.ts). */
  rows: CatalogRow[];
  rejected: RejectedQuery[];
}

const MAX_REASON = 500;

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `Query could not be parsed: ${message}`.slice(0, MAX_REASON);
}

/** Mean of two samples weighted by their calls; either side may not know its figures. */
function mergeFigures(a: CatalogRow, b: CatalogRow): Pick<CatalogRow, 'calls' | 'meanTimeMs'> {
  if (a.calls === null || b.calls === null) {
    return { calls: a.calls ?? b.calls, meanTimeMs: b.meanTimeMs ?? a.meanTimeMs };
  }
  const calls = a.calls + b.calls;
  if (a.meanTimeMs === null || b.meanTimeMs === null) return { calls, meanTimeMs: b.meanTimeMs ?? a.meanTimeMs };
  const meanTimeMs = calls > 0 ? (a.meanTimeMs * a.calls + b.meanTimeMs * b.calls) / calls : b.meanTimeMs;
  return { calls, meanTimeMs };
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
 * Hashes every query (the client's hash wins), rejects the unparseable ones that came without a
 * hash, and merges repeats of one hash: a query listed twice in a run counts once, its figures
 * summed and the last text kept.
 */
export async function prepareQueries(queries: readonly CiQueryInput[]): Promise<PreparedRun> {
  await loadParser();
  const rejected: RejectedQuery[] = [];
  const byHash = new Map<string, CatalogRow & { given: boolean }>();
  queries.forEach((input, index) => {
    let hash = input.hash;
    if (hash === undefined) {
      try {
        hash = fingerprintSync(input.query);
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
    };
    const earlier = byHash.get(hash);
    byHash.set(hash, earlier ? { ...row, ...mergeFigures(earlier, row) } : row);
  });
  // Only the kept texts are formatted: deparsing is the costly step, repeats need none.
  const rows: CatalogRow[] = [];
  for (const { given, ...row } of byHash.values()) {
    rows.push(given ? row : { ...row, formattedQuery: await formattedOrRaw(row.query) });
  }
  rows.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  return { rows, rejected };
}

/** One query of the manual or production source; throws a readable message when it cannot be parsed. */
export async function prepareOne(query: string, hash?: string): Promise<CatalogRow> {
  const { rows, rejected } = await prepareQueries([{ query, hash }]);
  if (rejected[0]) throw new Error(rejected[0].reason);
  return rows[0]!;
}
