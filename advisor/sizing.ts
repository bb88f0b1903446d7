// How many pages an index would have in production, from the planner's statistics of its columns
// (pg_stats: null_frac, avg_width, n_distinct, most_common_freqs, sampled values; reltuples). The
// planner charges an index scan by the index's page count, and a storage budget is spent in the
// same pages, so the estimate follows what CREATE INDEX writes on PostgreSQL 13+ (nbtsort.c):
// - leaf tuples laid out as sizing-tuple.ts says, each with a 4-byte line pointer;
// - deduplication (not for unique or INCLUDE indexes, nor types without equal images) turns runs
//   of equal keys into posting-list tuples of 6-byte heap pointers, each at most a tenth of a page;
// - a leaf is closed once its free space falls under (100 - fillfactor)% of the page (a posting
//   list's own bytes counting as free: suffix truncation drops them from the high key), and its
//   last tuple moves to the next leaf; internal pages are filled to 70%;
// - one metapage.
// Several key columns are taken as independent: each first-column value's rows are split over the
// later columns' values as random draws with those values' own shares would split them (a common
// value getting its many rows, the long tail a row here and there). Evening shares out where the
// statistics give only an average (values beyond the most common and the histogram) can only add
// combinations: more keys, fewer duplicates, a larger index. Where the statistics cannot tell (an
// expression without statistics, compressible wide values, GIN), the estimate leans high and says
// so: `exact: false`.
// The measured errors are in docs/index-sizes.md.
import { estimateGinSize } from './sizing-gin.js';
import { buckets, combinedShares, forEachCount, groupClasses, type Shares } from './size-distinct.js';
import { pageEndTupleBytes, tupleBytes, type ColumnSize } from './sizing-tuple.js';
import type { IndexShape, SizeEstimate } from './index-shape.js';

export type { ColumnSize, TypeLayout } from './sizing-tuple.js';

const PAGE = 8192;
/** Free bytes of an empty page: page header, B-tree special space, the high key's line pointer, and the next item's. */
const PAGE_ROOM = PAGE - 24 - 16 - 4 - 4;
const LINE_POINTER = 4;
const TID = 6;
/** Largest posting-list tuple CREATE INDEX forms: MAXALIGN_DOWN(PAGE / 10) minus a line pointer. */
const MAX_POSTING = Math.floor(PAGE / 10 / 8) * 8 - LINE_POINTER;
const INTERNAL_FILLFACTOR = 70;
/** Values above this many bytes are compressed in an index tuple when that saves space (TOAST_INDEX_TARGET). */
const COMPRESS_ABOVE = PAGE / 16;
/** Null patterns enumerated exactly; beyond, columns are taken as never NULL (larger tuples, no bitmap). */
const MAX_NULL_PATTERNS = 256;
const ceil8 = (n: number) => Math.ceil(n / 8) * 8;

export function estimateIndexSize(shape: IndexShape): SizeEstimate {
  return shape.am === 'gin' ? estimateGinSize(shape) : btreeSize(shape);
}

export function estimateIndexPages(shape: IndexShape): number {
  return estimateIndexSize(shape).pages;
}

/** `count` leaf tuples of `size` bytes each with the line pointer, `posting` of those a posting list. */
type AddTuples = (count: number, size: number, posting: number) => void;

function btreeSize(shape: IndexShape): SizeEstimate {
  const tuples = Math.max(shape.tuples, 0);
  const names = [...shape.keys, ...shape.include];
  const columns = names.map((c) => shape.stat(c));
  const keyCount = shape.keys.length;
  const dedup = !shape.unique && shape.include.length === 0 && columns.slice(0, keyCount).every((c) => c.layout?.dedup);
  const why = new Set<string>();
  for (const c of columns) if (c.guess) why.add(c.guess);
  if (columns.some((c) => (c.layout?.len ?? -1) < 0 && c.avgWidth > COMPRESS_ABOVE))
    why.add('values over 512 bytes may be compressed in the index; sized uncompressed');

  const leafFree = Math.floor((PAGE * (100 - (shape.fillfactor ?? 90))) / 100);
  let leafPages = 0;
  const add: AddTuples = (count, size, posting) => {
    leafPages += count / perPage(size, posting, leafFree, true);
  };
  for (const { present, share } of nullPatterns(columns)) {
    const rows = tuples * share;
    if (rows <= 0) continue;
    const kt = tupleBytes(columns, present);
    if (!dedup) {
      add(rows, kt + LINE_POINTER, 0);
      continue;
    }
    for (const g of valueGroups(columns.slice(0, keyCount), present.slice(0, keyCount), rows, tuples)) addPostings(g.values, g.rows, kt, add);
  }
  const leaves = Math.max(1, Math.ceil(leafPages));
  const pivot = pivotBytes(columns.slice(0, keyCount), tuples) + LINE_POINTER;
  const internalFree = Math.floor((PAGE * (100 - INTERNAL_FILLFACTOR)) / 100);
  let internal = 0;
  for (let level = leaves; level > 1;) {
    level = Math.ceil(level / perPage(pivot, 0, internalFree, false));
    internal += level;
  }
  const pages = Math.max(2, leaves + internal + 1);
  return why.size ? { pages, exact: false, why: [...why].join('; ') } : { pages, exact: true };
}

/** Each combination of NULL and non-NULL columns with the share of rows it has (columns independent). */
function nullPatterns(columns: ColumnSize[]): { present: boolean[]; share: number }[] {
  const nullable = columns.map((c, i) => (c.nullFrac > 0 ? i : -1)).filter((i) => i >= 0);
  if (2 ** nullable.length > MAX_NULL_PATTERNS) return [{ present: columns.map(() => true), share: 1 }];
  const out: { present: boolean[]; share: number }[] = [];
  for (let mask = 0; mask < 2 ** nullable.length; mask++) {
    const present = columns.map(() => true);
    let share = 1;
    nullable.forEach((col, bit) => {
      const isNull = (mask >> bit) & 1;
      present[col] = !isNull;
      share *= isNull ? columns[col]!.nullFrac : 1 - columns[col]!.nullFrac;
    });
    out.push({ present, share });
  }
  return out;
}

/** Distinct key combinations in `rows` rows: the product of the columns' distinct counts, at most the rows. */
function distinctCombinations(keys: ColumnSize[], rows: number): number {
  return Math.min(
    rows,
    keys.reduce((p, c) => p * Math.max(c.distinct, 1), 1),
  );
}

/**
 * Rows sharing one key value, as `values` keys of `rows` rows each. The first key column's values:
 * its most common values with their own frequencies, the other values sharing the remaining rows,
 * spread over the integer histogram's buckets by how many values each bucket's range can hold, and
 * within a bucket as random draws would (size-distinct.ts). Each of those groups of rows is then
 * split by the other key columns' values, drawn at random with their own shares: a value holding a
 * share p of the rows gets about n·p of a group's n rows, and is missing from it with the chance
 * (1 - p)^n. NULLs are one value.
 */
function valueGroups(keys: ColumnSize[], present: boolean[], rows: number, tuples: number): Groups {
  const [first, ...others] = keys;
  const firstGroups = present[0] ? columnGroups(first!, rows, tuples) : [{ values: 1, rows }];
  const shares = combinedShares(
    others.filter((_, i) => present[i + 1]),
    tuples,
  );
  if (shares.length === 1 && shares[0]!.values <= 1) return firstGroups;
  // A value expecting λ = n·p of a group's rows holds them as random draws do, the same spread for
  // the same λ: the (group, class) pairs are summed by λ to within 2% and spread once each. Classes
  // rarer than that (shares ascending) are summed at once as keys of one row each.
  const share = Float64Array.from(shares, (s) => s.share);
  const shareValues = Float64Array.from(shares, (s) => s.values);
  const logShare = share.map((p) => Math.log(p) * LAMBDA_STEPS);
  const logMiss = share.map((p) => Math.log1p(-Math.min(p, 1)));
  const rowsBelow = [0];
  for (const s of shares) rowsBelow.push(rowsBelow[rowsBelow.length - 1]! + s.values * s.share);
  let low = LAMBDA_KEYS;
  let high = -1;
  let single = 0;
  for (const g of groupClasses(firstGroups)) {
    let i = firstAtLeast(shares, RARE / g.rows);
    single += g.values * g.rows * rowsBelow[i]!;
    const logRows = Math.log(g.rows) * LAMBDA_STEPS + LAMBDA_KEYS / 2;
    for (; i < shares.length; i++) {
      const key = Math.round(logRows + logShare[i]!);
      const values = g.values * shareValues[i]!;
      rowsAt[key] = rowsAt[key]! + values * g.rows * share[i]!;
      // Of the class's values, those the group's rows hit at least once.
      hitAt[key] = hitAt[key]! - values * Math.expm1(g.rows * logMiss[i]!);
      if (key < low) low = key;
      if (key > high) high = key;
    }
  }
  const byRows = new GroupsByRows();
  if (single > 0) byRows.add(single, 1);
  for (let key = low; key <= high; key++) if (hitAt[key]! > 0) forEachCount(rowsAt[key]!, hitAt[key]!, (values, n) => byRows.add(values, n));
  rowsAt.fill(0, low, high + 1);
  hitAt.fill(0, low, high + 1);
  return byRows.list();
}

/** Under this many rows of a group expected per value, each value it hits is taken as one row (more keys: never smaller). */
const RARE = 0.01;

/** The first of the shares (ascending) at least `share`. */
function firstAtLeast(shares: Shares, share: number): number {
  let lo = 0;
  let hi = shares.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (shares[mid]!.share < share) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Steps of λ per unit of its logarithm: 50 puts those within 2% together. */
const LAMBDA_STEPS = 50;
/**
 * Keys for λ from e^-40 to e^40, the rows and the hit values at each, reused by every call: λ is
 * at least RARE and at most the table's rows, which a double holds below e^37.
 */
const LAMBDA_KEYS = 80 * LAMBDA_STEPS;
const rowsAt = new Float64Array(LAMBDA_KEYS);
const hitAt = new Float64Array(LAMBDA_KEYS);

type Groups = { values: number; rows: number }[];

/** Groups of the same row count as one: buckets and spreads repeat the same few counts. */
class GroupsByRows {
  private readonly values = new Map<number, number>();
  add(values: number, rows: number): void {
    this.values.set(rows, (this.values.get(rows) ?? 0) + values);
  }
  list(): Groups {
    return [...this.values].map(([rows, values]) => ({ values, rows }));
  }
}

/** The groups of a column's values by row count, kept per column: its candidates ask again with the same rows. */
const columnGroupsSeen = new WeakMap<ColumnSize, Map<string, Groups>>();

function columnGroups(c: ColumnSize, rows: number, tuples: number): Groups {
  let seen = columnGroupsSeen.get(c);
  if (!seen) columnGroupsSeen.set(c, (seen = new Map()));
  const key = `${rows}|${tuples}`;
  let groups = seen.get(key);
  if (!groups) seen.set(key, (groups = readColumnGroups(c, rows, tuples)));
  return groups;
}

/** The values of one column in `rows` of its non-NULL rows. */
function readColumnGroups(c: ColumnSize, rows: number, tuples: number): Groups {
  const groups = new GroupsByRows();
  // The most common values' frequencies are shares of the whole table; these rows may be fewer.
  const scale = rows / Math.max(tuples * (1 - c.nullFrac), 1);
  let rest = rows;
  let distinct = Math.min(c.distinct, rows);
  for (const f of c.mcvFreqs ?? []) {
    const n = Math.min(f * tuples * scale, rest);
    if (n < 1) continue;
    groups.add(1, n);
    rest -= n;
    distinct -= 1;
  }
  if (rest >= 1) {
    distinct = Math.min(Math.max(distinct, 1), rest);
    for (const b of buckets(c.bounds ?? [], rest, distinct)) forEachCount(b.rows, b.distinct, (values, n) => groups.add(values, n));
  }
  return groups.list();
}

/** Leaf tuples for `values` keys of `rows` rows each: posting lists of at most MAX_POSTING bytes. */
function addPostings(values: number, rows: number, kt: number, add: AddTuples): void {
  let most = Math.floor((MAX_POSTING - kt) / TID);
  while (most > 1 && kt + ceil8(TID * most) > MAX_POSTING) most--;
  if (rows < 2 || most < 2) return add(values * rows, kt + LINE_POINTER, 0);
  const full = Math.floor(rows / most);
  const rest = Math.round(rows - full * most);
  if (full > 0) add(values * full, kt + ceil8(TID * most) + LINE_POINTER, ceil8(TID * most));
  if (rest === 1) add(values, kt + LINE_POINTER, 0);
  else if (rest > 1) add(values, kt + ceil8(TID * rest) + LINE_POINTER, ceil8(TID * rest));
}

/**
 * Tuples of `size` bytes a page keeps in CREATE INDEX: it takes tuples while one more fits and
 * its free space (plus the last tuple's posting list) is at least `free`, then hands its last
 * tuple to the next page and keeps a high key in its place.
 */
function perPage(size: number, posting: number, free: number, leaf: boolean): number {
  const fits = Math.floor((PAGE_ROOM - (leaf ? 8 : 0) - size) / size) + 1;
  const fill = Math.max(2, Math.floor((PAGE_ROOM + posting - free) / size) + 1);
  return Math.max(1, Math.min(fits, fill) - 1);
}

/**
 * Average pivot tuple above the leaves: suffix truncation keeps the key columns needed to tell the
 * last tuple of a leaf from the first of the next, and a heap pointer when all of them are equal.
 * That first tuple of the next leaf is the one that did not fit on the last: wider than the average.
 */
function pivotBytes(keys: ColumnSize[], tuples: number): number {
  let bytes = 0;
  let told = 0;
  for (let j = 1; j <= keys.length; j++) {
    const differ = Math.min(1, distinctCombinations(keys.slice(0, j), tuples) / Math.max(tuples, 1));
    const allPresent = keys.slice(0, j).map(() => true);
    bytes += (differ - told) * pageEndTupleBytes(keys.slice(0, j), allPresent);
    told = differ;
  }
  return (
    bytes +
    (1 - told) *
      (pageEndTupleBytes(
        keys,
        keys.map(() => true),
      ) +
        8)
  );
}

/**
 * Levels above the leaves of a B-tree of `pages` pages (what _bt_getrootheight reports), from
 * the width of its pivot tuples: suffix truncation leaves them mostly the first key column.
 * Internal pages are filled to 70% by CREATE INDEX.
 */
export function estimateBtreeHeight(pages: number, firstKeyWidth: number): number {
  const leaves = Math.max(pages - 1, 1);
  const fanout = Math.max(2, Math.floor(((PAGE - 24 - 16) * 0.7) / (ceil8(8 + Math.max(firstKeyWidth, 1)) + 4)));
  let height = 0;
  for (let n = leaves; n > 1; n = Math.ceil(n / fanout)) height++;
  return height;
}
