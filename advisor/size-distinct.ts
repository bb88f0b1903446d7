// How the rows that are not among a column's most common values share their values, which decides
// how much B-tree deduplication saves when values repeat only a few times each. pg_stats gives the
// count of distinct values as ANALYZE estimated it from its sample (the Duj1 estimator of Haas and
// Stokes), which falls short on values drawn at random with few rows each (measured: 40,492 for
// 47,472, 12,767 for 18,905). Fewer distinct values mean more deduplication and a smaller index,
// so the count is first taken back to the one that, drawn at random, would have made ANALYZE
// report what it did.

/** The non-common rows in histogram buckets of equal rows, with the distinct values each range can hold (scaled to `distinct`). */
export function buckets(bounds: number[], rows: number, distinct: number): { rows: number; distinct: number }[] {
  if (bounds.length < 3) return [{ rows, distinct }];
  const each = rows / (bounds.length - 1);
  const room = bounds.slice(1).map((hi, i) => Math.max(1, Math.min(hi - bounds[i]!, each)));
  const scale = Math.min(1, distinct / room.reduce((s, r) => s + r, 0));
  return room.map((r) => ({ rows: each, distinct: Math.max(1, r * scale) }));
}

/** Many rows a value: the spread no longer changes the posting lists much. */
const EVEN_ABOVE = 50;

/** Values drawn at random: how many appear once, twice, ... when `distinct` values share `rows` rows. */
export function randomCounts(rows: number, distinct: number): { values: number; rows: number }[] {
  const mean = rows / distinct;
  if (mean <= 1) return [{ values: rows, rows: 1 }];
  if (mean >= EVEN_ABOVE) return [{ values: distinct, rows: mean }];
  const lambda = truncatedPoissonLambda(mean);
  const out: { values: number; rows: number }[] = [];
  let p = Math.exp(-lambda) / (1 - Math.exp(-lambda));
  for (let c = 1; c <= Math.ceil(mean + 8 * Math.sqrt(mean) + 8); c++) {
    p *= lambda / c;
    if (p * distinct > 1e-6) out.push({ values: p * distinct, rows: c });
  }
  return out;
}

/** λ of the zero-truncated Poisson distribution whose mean is `mean`: λ / (1 - e^-λ) = mean. */
function truncatedPoissonLambda(mean: number): number {
  let lo = 0;
  let hi = mean;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (mid / (1 - Math.exp(-mid)) < mean) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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
  // Buckets of equal ranges have equal counts: each spread is worked out once.
  const spreads = new Map<string, { values: number; rows: number }[]>();
  const spread = (b: { rows: number; distinct: number }) => {
    const key = `${b.rows}|${b.distinct}`;
    if (!spreads.has(key)) spreads.set(key, randomCounts(b.rows, b.distinct));
    return spreads.get(key)!;
  };
  const reported = (restTrue: number) => {
    let seen = s.mcvFreqs.length;
    let once = 0;
    for (const b of buckets(s.bounds, rest, restTrue)) {
      for (const g of spread(b)) {
        seen += g.values * (1 - (1 - q) ** g.rows);
        once += g.values * g.rows * q * (1 - q) ** (g.rows - 1);
      }
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
