// What one write into an environment's catalog carries: the rows of one source (upsert.ts applies it,
// upsert.sql.ts is its statement).
import type { SQL } from 'drizzle-orm';
import type { CallSite } from '../../shared/call-sites';
import type { SOURCES } from '../../shared/environments';

export type CatalogSource = (typeof SOURCES)[number];

/** One statement as a source saw it, distinct by hash within a write. */
export interface CatalogRow {
  hash: string;
  query: string;
  formattedQuery: string;
  calls: number | null;
  meanTimeMs: number | null;
  /** Where the statement comes from, read from its comments at ingestion (none when absent). */
  callSites?: readonly CallSite[];
}

export interface CatalogWrite {
  environmentId: string;
  source: CatalogSource;
  rows: readonly CatalogRow[];
  /** The write's time (ISO 8601); a CI run passes its own so the run and its rows agree. */
  now?: string;
  /**
   * More data-modifying CTEs for the same statement, after the upsert: they may read `input` (the
   * rows) and `upserted` (hash, inserted). A CI run stores its query list and its count of new
   * queries this way, in the one statement.
   */
  alongside?: SQL;
}
