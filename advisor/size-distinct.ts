// How the rows that are not among a column's most common values share their values, which decides
// how much B-tree deduplication saves when values repeat only a few times each. pg_stats gives the
// count of distinct values as ANALYZE estimated it from its sample (the Duj1 estimator of Haas and
// Stokes), which falls short on values drawn at random with few rows each (measured: 40,492 for
// 47,472, 12,767 for 18,905). Fewer distinct values mean more deduplication and a smaller index,
// so the count is first taken back to the one that, drawn at random, would have made ANALYZE
// report what it did.
// The later key columns of an index split each first-column value's rows by their own values: a
// column's values are given here as classes of equally common ones (valueShares).
import type { ColumnSize } from './sizing-tuple.js';

/**
 * How far a bucket's rows may be from an equal share: ANALYZE draws its bounds from about 300
 * sampled rows a bucket (300 × the statistics target rows, as many buckets as the target), so a
 * bucket's share of the table is known to about 1/√300 (6%); twice that is taken.
 */
const BUCKET_SLACK = 2 / Math.sqrt(300);

/**
 * The non-common rows in histogram buckets of equal rows, with the distinct values each range can
 * hold (scaled to `distinct`). A range narrower than its rows by no more than the sampling error
 * is not taken to repeat values: it may simply hold fewer rows (a unique column's buckets do).
 */
export function buckets(bounds: number[], rows: number, distinct: number): { rows: number; distinct: number }[] {
  if (bounds.length < 3) return [{ rows, distinct }];
  const each = rows / (bounds.length - 1);
  const room = bounds.slice(1).map((hi, i) => Math.max(1, Math.min((hi - bounds[i]!) * (1 + BUCKET_SLACK), each)));
  const scale = Math.min(1, distinct / room.reduce((s, r) => s + r, 0));
  return room.map((r) => ({ rows: each, distinct: Math.max(1, r * scale) }));
}

/** Many rows a value: the spread no longer changes the posting lists much. */
const EVEN_ABOVE = 50;

type Groups = { values: number; rows: number }[];

/** Values drawn at random: how many appear once, twice, ... when `distinct` values share `rows` rows. */
export function randomCounts(rows: number, distinct: number): Groups {
  const out: Groups = [];
  forEachCount(rows, distinct, (values, n) => out.push({ values, rows: n }));
  return out;
}

/** randomCounts without building the list: `visit(values, rows)` for each row count. */
export function forEachCount(rows: number, distinct: number, visit: (values: number, rows: number) => void): void {
  const mean = rows / distinct;
  if (mean <= 1) return visit(rows, 1);
  // Whole rows, so that groups of one row count can be merged.
  if (mean >= EVEN_ABOVE) return visit(rows / Math.round(mean), Math.round(mean));
  for (const g of spreadOf(mean)) visit(g.values * distinct, g.rows);
}

// Spreads and λs by their mean to 3 significant digits: a schema's thousands of candidates ask
// for the same few again and again.
const spreads = new Map<string, Groups>();
const lambdas = new Map<string, number>();
const MEMO_LIMIT = 10_000;
const memoKey = (mean: number) => mean.toPrecision(3);

function memo<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= MEMO_LIMIT) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

/** The zero-truncated Poisson spread of one value's rows, as shares of the values. */
function spreadOf(mean: number): Groups {
  return memo(spreads, memoKey(mean), () => {
    const lambda = truncatedPoissonLambda(mean);
    const out: Groups = [];
    let p = Math.exp(-lambda) / -Math.expm1(-lambda);
    for (let c = 1; c <= Math.ceil(mean + 8 * Math.sqrt(mean) + 8); c++) {
      p *= lambda / c;
      if (p > 1e-9) out.push({ values: p, rows: c });
    }
    return out;
  });
}

/** λ of the zero-truncated Poisson distribution whose mean is `mean` (> 1): λ / (1 - e^-λ) = mean, by Newton's method. */
function truncatedPoissonLambda(mean: number): number {
  return memo(lambdas, memoKey(mean), () => {
    let lambda = mean <= 2 ? 2 * (mean - 1) : mean;
    for (let i = 0; i < 50; i++) {
      const e = Math.exp(-lambda);
      const f = lambda / (1 - e) - mean;
      const df = (1 - e - lambda * e) / ((1 - e) * (1 - e));
      const next = Math.max(lambda - f / df, 1e-9);
      if (Math.abs(next - lambda) < 1e-12 * mean) return next;
      lambda = next;
    }
    return lambda;
  });
}

/**
 * What a sample of a share `q` of the rows sees of values holding `mean` rows each, drawn at
 * random: the share of values it sees, and the share it sees exactly once.
 */
function sampled(mean: number, q: number): { seen: number; once: number } {
  if (mean <= 1) return { seen: q, once: q };
  if (mean >= EVEN_ABOVE) return { seen: 1 - (1 - q) ** mean, once: mean * q * (1 - q) ** (mean - 1) };
  // Closed forms of the sums over the zero-truncated Poisson spread.
  const lambda = truncatedPoissonLambda(mean);
  const kept = -Math.expm1(-lambda);
  return { seen: -Math.expm1(-lambda * q) / kept, once: (lambda * q * Math.exp(-lambda * q)) / kept };
}

export interface DistinctInputs {
  /** Rows of the table (reltuples) and of ANALYZE's sample (300 x the statistics target, at most the rows). */
  rows: number;
  sampleRows: number;
  /** Distinct non-NULL values as pg_stats says, its most common values' shares, and an integer histogram. */
  distinct: number;
  nullFrac: number;
  mcvFreqs: number[];
  bounds: number[];
}

/**
 * The distinct count that, with the non-common values drawn at random over the histogram's
 * buckets, makes ANALYZE's estimator give `distinct` on average: n·d / (n − f1 + f1·n/N), d the
 * values seen in the sample, f1 those seen once. Never less than `distinct`; the rows themselves
 * when the whole table was the sample.
 */
export function correctedDistinct(s: DistinctInputs): number {
  const rows = s.rows * (1 - s.nullFrac);
  const sample = Math.min(s.sampleRows, s.rows) * (1 - s.nullFrac);
  const common = s.mcvFreqs.reduce((t, f) => t + f * s.rows, 0);
  const rest = rows - common;
  const restDistinct = s.distinct - s.mcvFreqs.length;
  if (sample >= rows || rest < 1 || restDistinct < 1 || rest / restDistinct >= EVEN_ABOVE) return s.distinct;
  const q = sample / rows;
  const reported = (restTrue: number) => {
    let seen = s.mcvFreqs.length;
    let once = 0;
    for (const b of buckets(s.bounds, rest, restTrue)) {
      const r = sampled(b.rows / b.distinct, q);
      seen += b.distinct * r.seen;
      once += b.distinct * r.once;
    }
    return (sample * seen) / (sample - once + (once * sample) / rows);
  };
  let lo = restDistinct;
  let hi = rest;
  if (reported(lo) >= s.distinct) return s.distinct;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (reported(mid) < s.distinct) lo = mid;
    else hi = mid;
  }
  return hi + s.mcvFreqs.length;
}

/** `values` values that each hold a share `share` of the rows. */
export type Shares = { share: number; values: number }[];

/**
 * Shares (or row counts) less than this factor apart are taken as one class at their average.
 * Evening them out can only make more values appear among a group's rows (more combinations, a
 * larger index), and keeps the work to a few dozen classes a column.
 */
const STEP = Math.log(1.5);

/** The column's classes by the tuples of its table, kept per column: its candidates ask again. */
const sharesSeen = new WeakMap<ColumnSize, Map<number, Shares>>();

/**
 * How a column's non-NULL rows share its values: each most common value its own frequency, the
 * rest spread over the integer histogram's buckets by the values each range can hold, or evenly
 * over the other distinct values (even shares make the most combinations, the cautious reading).
 */
export function valueShares(c: ColumnSize, tuples: number): Shares {
  let seen = sharesSeen.get(c);
  if (!seen) sharesSeen.set(c, (seen = new Map()));
  let shares = seen.get(tuples);
  if (!shares) seen.set(tuples, (shares = readShares(c, tuples)));
  return shares;
}

function readShares(c: ColumnSize, tuples: number): Shares {
  const nonNull = Math.max(1 - c.nullFrac, 1e-9);
  const rows = Math.max(tuples * nonNull, 1);
  const out: Shares = [];
  let rest = 1;
  for (const f of c.mcvFreqs ?? []) {
    const share = Math.min(f / nonNull, rest);
    if (share <= 0) continue;
    out.push({ share, values: 1 });
    rest -= share;
  }
  const others = Math.max(c.distinct - out.length, 1);
  if (rest > 1e-9) for (const b of buckets(c.bounds ?? [], rest * rows, others)) out.push({ share: b.rows / rows / b.distinct, values: b.distinct });
  return classes(out);
}

/** The classes of the combinations of several columns' values, the columns taken as independent. */
export function combinedShares(columns: ColumnSize[], tuples: number): Shares {
  let out: Shares = [{ share: 1, values: 1 }];
  for (const c of columns) {
    const next: Shares = [];
    for (const a of out) for (const b of valueShares(c, tuples)) next.push({ share: a.share * b.share, values: a.values * b.values });
    out = classes(next);
  }
  return out;
}

/** Shares within STEP of each other as one class, the rarest first. */
const classes = (shares: Shares): Shares =>
  evenOut(
    shares,
    (s) => s.share,
    (share, values) => ({ share, values }),
  ).sort((a, b) => a.share - b.share);

/** Groups of rows within STEP of each other's row count as one, of their average rows. */
export const groupClasses = (groups: Groups): Groups =>
  evenOut(
    groups,
    (g) => g.rows,
    (rows, values) => ({ values, rows }),
  );

/** Items whose size is within STEP of each other merged, at their average size weighted by their values. */
function evenOut<T extends { values: number }>(items: T[], size: (t: T) => number, make: (size: number, values: number) => T): T[] {
  const byStep = new Map<number, { mass: number; values: number }>();
  for (const t of items) {
    const step = Math.floor(Math.log(size(t)) / STEP);
    const c = byStep.get(step) ?? { mass: 0, values: 0 };
    c.mass += size(t) * t.values;
    c.values += t.values;
    byStep.set(step, c);
  }
  return [...byStep.values()].map((c) => make(c.mass / c.values, c.values));
}
