// How the rows that are not among a column's most common values share their values, and the
// distinct count ANALYZE reported taken back to the one behind it. Pure arithmetic; sizing.test.ts
// measures what it does to built index sizes.
import { describe, expect, it } from 'vitest';
import { buckets, combinedShares, correctedDistinct, randomCounts, valueShares } from './size-distinct.js';

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

  it('take a range a little narrower than its rows as holding fewer rows, not repeats: the bounds come from a sample', () => {
    // a unique column: 1,500 rows a bucket on average, one range of 1,392 values by the sample
    const unique = buckets([0, 1_392, 3_000, 4_500], 4_500, 4_500);
    expect(unique[0]!.distinct).toBe(1_500);
    // a range far narrower than its rows does repeat its values
    expect(buckets([0, 10, 3_000, 4_500], 4_500, 4_500)[0]!.distinct).toBeLessThan(20);
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

describe("a column's values by their shares", () => {
  const INT4 = { len: 4, align: 4, dedup: true };
  const skewed = { avgWidth: 4, nullFrac: 0.2, distinct: 1_000, layout: INT4, mcvFreqs: [0.4, 0.2, 0.1, 0.0001] };
  const shares = (list: { share: number; values: number }[]) => ({
    rows: list.reduce((s, c) => s + c.share * c.values, 0),
    values: list.reduce((s, c) => s + c.values, 0),
  });

  it('keep every non-NULL row and every distinct value, the common ones apart from the rest', () => {
    const list = valueShares(skewed, 100_000);
    expect(shares(list).rows).toBeCloseTo(1, 9);
    expect(shares(list).values).toBeCloseTo(1_000, 6);
    // 0.4 of the 0.8 non-NULL rows: a value of its own, not averaged with the tail
    expect(list.find((c) => c.values === 1 && Math.abs(c.share - 0.5) < 1e-9)).toBeDefined();
    expect(list.map((c) => c.share)).toEqual([...list.map((c) => c.share)].sort((a, b) => a - b));
  });

  it('multiply for several columns, their combinations keeping every row', () => {
    const both = combinedShares([skewed, { ...skewed, nullFrac: 0, distinct: 50 }], 100_000);
    expect(shares(both).rows).toBeCloseTo(1, 9);
    expect(shares(both).values).toBeCloseTo(50_000, 3);
    expect(both.length).toBeLessThan(100);
  });
});
