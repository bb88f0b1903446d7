// How many pages an index would have in production, from column widths and distinct counts.
// The planner charges an index scan by the index's page count (get_relation_info reads it from
// the file), so a candidate must be given a realistic size, not the one page an empty build has.
// The B-tree model follows nbtree's layout: 8-byte tuple header plus MAXALIGNed data plus a
// 4-byte line pointer, leaves filled to 90% by CREATE INDEX, and deduplication (PG13+) turning
// runs of equal keys into posting lists of 6-byte heap pointers. The benchmark compares these
// estimates with real index sizes (docs/benchmarks.md).

export interface ColumnSize {
  avgWidth: number;
  nullFrac: number;
  distinct: number;
}

export interface IndexShape {
  am: 'btree' | 'gin';
  keys: string[];
  include: string[];
  tuples: number;
  unique: boolean;
  stat(column: string): ColumnSize;
}

const PAGE = 8192;
const USABLE = PAGE - 24 - 16; // page header, btree special space
const maxalign = (n: number) => Math.ceil(n / 8) * 8;

export function estimateIndexPages(shape: IndexShape): number {
  const tuples = Math.max(shape.tuples, 0);
  if (shape.am === 'gin') {
    // GIN stores each key once with a compressed posting list (~2 bytes a heap pointer once
    // packed). jsonb_ops extracts every key and value, so entries grow with the document width.
    const width = shape.keys.reduce((s, k) => s + shape.stat(k).avgWidth, 0);
    const entryBytes = tuples * Math.max(width, 8) * 0.25;
    const postingBytes = tuples * (width / 16) * 2;
    return Math.max(2, Math.ceil((entryBytes + postingBytes) / (USABLE * 0.9)) + 2);
  }
  const columns = [...shape.keys, ...shape.include];
  const width = columns.reduce((s, c) => s + shape.stat(c).avgWidth * (1 - shape.stat(c).nullFrac), 0);
  const hasNulls = columns.some((c) => shape.stat(c).nullFrac > 0);
  const tupleBytes = maxalign(8 + (hasNulls ? 4 : 0) + width) + 4;
  // Deduplication is off for INCLUDE indexes and unique ones; it needs repeated keys to matter.
  let distinctKeys = tuples;
  if (!shape.unique && shape.include.length === 0) {
    distinctKeys = Math.min(tuples, shape.keys.reduce((p, k) => p * Math.max(shape.stat(k).distinct, 1), 1));
  }
  const duplicates = distinctKeys > 0 ? tuples / distinctKeys : 1;
  // A posting list tuple holds at most about a third of a page of heap pointers.
  const perPosting = Math.min(duplicates, (USABLE / 3 - tupleBytes) / 6);
  const bytesPerRow = duplicates >= 2 ? 6 + tupleBytes / Math.max(perPosting, 1) : tupleBytes;
  const leaves = Math.ceil((tuples * bytesPerRow) / (USABLE * 0.9));
  const keyBytes = maxalign(8 + shape.keys.reduce((s, k) => s + shape.stat(k).avgWidth, 0)) + 4;
  const fanout = Math.max(2, Math.floor((USABLE * 0.7) / keyBytes));
  let internal = 0;
  for (let level = leaves; level > 1; level = Math.ceil(level / fanout)) internal += Math.ceil(level / fanout);
  return Math.max(1, leaves) + internal + 1; // + metapage
}

/**
 * Levels above the leaves of a B-tree of `pages` pages (what _bt_getrootheight reports), from
 * the width of its pivot tuples: suffix truncation leaves them mostly the first key column.
 * Internal pages are filled to 70% by CREATE INDEX.
 */
export function estimateBtreeHeight(pages: number, firstKeyWidth: number): number {
  const leaves = Math.max(pages - 1, 1);
  const fanout = Math.max(2, Math.floor((USABLE * 0.7) / (maxalign(8 + Math.max(firstKeyWidth, 1)) + 4)));
  let height = 0;
  for (let n = leaves; n > 1; n = Math.ceil(n / fanout)) height++;
  return height;
}
