// How the rows that are not among a column's most common values share their values, and the
// distinct count ANALYZE reported taken back to the one behind it. Pure arithmetic; sizing.test.ts
// measures what it does to built index sizes.
import { describe, expect, it } from 'vitest';
import { buckets, correctedDistinct, randomCounts } from './size-distinct.js';

const sum = (groups: { values: number; rows: number }[], f: (g: { values: number; rows: number }) => number) => groups.reduce((s, g) => s + f(g), 0);

describe('values drawn at random', () => {
  it('keep the rows and the values they were given', () => {
    const groups = randomCounts(150_000, 47_472);
    expect(sum(groups, (g) => g.values * g.rows)).toBeCloseTo(150_000, -2);
    expect(sum(groups, (g) => g.values)).toBeCloseTo(47_472, -2);
  });

  it('put some values in one row only, which deduplication cannot shrink', () => {
    const once = randomCounts(150_000, 47_472).find((g) => g.rows === 1)!;
    // counted on the test data of sizing.test.ts: 7,400 values held one row
    expect(once.values).toBeGreaterThan(5_000);
    expect(once.values).toBeLessThan(10_000);
  });

  it('are taken as even when values hold many rows, or one row each', () => {
    expect(randomCounts(1_000_000, 5)).toEqual([{ values: 5, rows: 200_000 }]);
    expect(randomCounts(1_000, 1_000)).toEqual([{ values: 1_000, rows: 1 }]);
  });
});

describe('histogram buckets', () => {
  it('give a narrow range fewer values than a wide one, all of them adding up', () => {
    const parts = buckets([0, 10, 1_000, 100_000], 3_000, 1_500);
    expect(parts[0]!.distinct).toBeLessThan(parts[2]!.distinct);
    expect(
      sum(
        parts.map((p) => ({ values: p.distinct, rows: p.rows })),
        (g) => g.values,
      ),
    ).toBeLessThanOrEqual(1_500 + 1e-6);
  });
});

describe("ANALYZE's distinct count", () => {
  const inputs = { rows: 150_000, sampleRows: 30_000, nullFrac: 0, mcvFreqs: [], bounds: [] };

  it('is raised where the sample saw values drawn at random a few times each (40,492 reported, 47,472 counted)', () => {
    const corrected = correctedDistinct({ ...inputs, distinct: 40_492 });
    expect(corrected).toBeGreaterThan(45_000);
    expect(corrected).toBeLessThan(52_000);
  });

  it('is kept when ANALYZE read every row, or when values repeat many times', () => {
    expect(correctedDistinct({ ...inputs, sampleRows: 300_000, distinct: 40_492 })).toBe(40_492);
    expect(correctedDistinct({ ...inputs, distinct: 100 })).toBe(100);
  });
});
