// GIN sizes, which the statistics pin down less than B-tree ones. A GIN index holds one entry per
// distinct key (an array's element; a jsonb document's keys and values under jsonb_ops) and, for
// each, the rows holding it as a compressed posting list: varbyte deltas between row addresses,
// under 4 bytes each unless rows holding the key lie over 1 GB of table apart. Measured on
// PostgreSQL 18: 1.7 to 4.8 bytes a row per shared key with the pages' fill, 55 to 58 bytes an
// entry for a key of one row (entry pages of a build are about half full).
// For arrays pg_stats gives the elements a row holds (elem_count_histogram) and the rows the most
// common elements are in (most_common_elem_freqs); every other element is taken as a key of one
// row, the costly case. For jsonb it gives nothing of the kind: a row is taken to hold as many
// keys and values as its width allows (a pair takes at least 10 bytes), its keys shared with
// other rows and its values distinct unless the documents themselves repeat.
// The estimate is meant as an upper bound (measured 1.1 to 1.2 times the built size for arrays,
// up to 6 for jsonb) and says so.
import type { ColumnSize } from './sizing-tuple.js';
import type { IndexShape, SizeEstimate } from './index-shape.js';

const PAGE_ROOM = 8192 - 24 - 8;
/** Bytes a row costs in the posting list of a shared key, page fill included (measured at most 4.8). */
const POSTING_BYTES = 4 / 0.75;
/** Array header of a one-dimensional array without NULLs: length, dimensions, flags, element type, bounds. */
const ARRAY_HEADER = 24;
const WHY = 'GIN: the keys a row holds and how well their posting lists compress are not all in the statistics; sized as an upper bound';

export function estimateGinSize(shape: IndexShape): SizeEstimate {
  const tuples = Math.max(shape.tuples, 0);
  let bytes = 0;
  for (const c of shape.keys.map((k) => shape.stat(k))) {
    const rows = tuples * (1 - c.nullFrac);
    const { perRow, sharedShare, keyWidth, distinctRows } = c.elemsPerRow !== undefined ? arrayKeys(c) : documentKeys(c);
    const items = rows * perRow;
    const distinctItems = Math.min(items * (1 - sharedShare), distinctRows === undefined ? Infinity : distinctRows * perRow);
    // An entry of one row: the key, its row inline, a line pointer, on a half-full page.
    const entry = 2 * (Math.ceil((8 + keyWidth + 8) / 8) * 8 + 4) + 4;
    bytes += distinctItems * entry + (items - distinctItems) * POSTING_BYTES;
  }
  return { pages: Math.max(2, Math.ceil(bytes / PAGE_ROOM) + 2), exact: false, why: WHY };
}

interface Keys {
  perRow: number;
  /** Share of the keys held by rows that hold a key held by others too. */
  sharedShare: number;
  keyWidth: number;
  /** Distinct documents, when they repeat: no more distinct keys than they hold. */
  distinctRows?: number;
}

function arrayKeys(c: ColumnSize): Keys {
  const perRow = Math.max(c.elemsPerRow ?? 1, 1e-9);
  // most_common_elem_freqs ends with the least and greatest frequency and that of NULL elements.
  const common = (c.elemFreqs ?? []).slice(0, -3).reduce((s, f) => s + f, 0);
  return { perRow, sharedShare: Math.min(1, common / perRow), keyWidth: Math.max(1, (c.avgWidth - ARRAY_HEADER) / perRow) };
}

function documentKeys(c: ColumnSize): Keys {
  const perRow = Math.max(1, (c.avgWidth - 8) / 5);
  return { perRow, sharedShare: 0.5, keyWidth: Math.max(1, (c.avgWidth - 8) / perRow), distinctRows: c.distinct };
}
