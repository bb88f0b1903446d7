// The planned refinement of a byte budget's choice: what a synthetic planner says two indexes do
// together, which no query's trials tried, found by filling the room left and by swaps.
import { describe, expect, it } from 'vitest';
import { extensionsAmong, refineByPlans } from './planned-refinement.js';

/** A planner where `dim` pays only beside `fact` (a join into the fact table's index), and `b` and `c` save more together than apart. */
const planned = async (set: string[]) => {
  const has = (i: string) => set.includes(i);
  let cost = 100;
  if (has('fact')) cost -= has('dim') ? 60 : 40;
  if (has('x')) cost -= 1;
  if (has('a')) cost -= 50;
  if (has('b')) cost -= 20;
  if (has('c')) cost -= 20;
  if (has('b') && has('c')) cost -= 30;
  return cost;
};

describe('the planned refinement within a byte budget', () => {
  const swappable = new Map(Object.entries({ a: 100, b: 50, c: 50 }));
  it('fills the room left with an index that only pays beside one already chosen', async () => {
    const pool = new Map(Object.entries({ fact: 80, dim: 2, x: 5 }));
    const { indexes } = await refineByPlans(['fact'], { pool, maxBytes: 90, cost: planned });
    expect(indexes).toEqual(['fact', 'dim', 'x']);
    expect(await planned(indexes)).toBe(39);
    expect((await refineByPlans(['fact'], { pool, maxBytes: 90, maxIndexes: 2, cost: planned })).indexes).toEqual(['fact', 'dim']);
  });

  it('swaps a chosen index for two that save more together, in the room it frees', async () => {
    const { indexes } = await refineByPlans(['a'], { pool: swappable, maxBytes: 100, cost: planned });
    expect(indexes.sort()).toEqual(['b', 'c']);
  });

  it('keeps within its bound of planned costs, and never ends costlier than it started', async () => {
    const { indexes, evaluations } = await refineByPlans(['a'], { pool: swappable, maxBytes: 100, cost: planned, maxEvaluations: 2 });
    expect(evaluations).toBe(2);
    expect(indexes).toEqual(['a']);
  });

  it('widens a chosen index into one that extends it, for the bytes the added columns take', async () => {
    // `k` serves one query; `k+d` serves it and a second, which `d` alone serves less well; `e` is small and saves a little.
    const widened = async (set: string[]) => {
      const has = (i: string) => set.includes(i);
      return 100 - (has('k') || has('k+d') ? 40 : 0) - (has('k+d') ? 30 : has('d') ? 5 : 0) - (has('e') ? 10 : 0);
    };
    const pool = new Map(Object.entries({ k: 60, 'k+d': 90, d: 30, e: 35 }));
    const extensions = new Map([['k', ['k+d']]]);
    const { indexes } = await refineByPlans(['k'], { pool, extensions, maxBytes: 100, cost: widened });
    expect(indexes).toEqual(['k+d']);
    expect(await widened(indexes)).toBe(30);
    // Without the step, no swap reaches it: dropping `k` leaves no room for `k+d` beside `e`.
    const plain = await refineByPlans(['k'], { pool, maxBytes: 100, cost: widened });
    expect(await widened(plain.indexes)).toBe(50);
  });

  it('finds the indexes that extend one: its keys first, its columns kept, same table and predicate', () => {
    const index = (createIndex: string, columns: string[], more: Partial<{ include: string[]; predicate: string; table: string; method: string }> = {}) => ({
      createIndex,
      table: more.table ?? 's.t',
      method: more.method ?? 'btree',
      columns,
      include: more.include ?? [],
      predicate: more.predicate ?? null,
    });
    const found = extensionsAmong([
      index('a', ['a']),
      index('a,b', ['a', 'b']),
      index('b,a', ['b', 'a']),
      index('a inc c', ['a'], { include: ['c'] }),
      index('a,c', ['a', 'c']),
      index('a,b other', ['a', 'b'], { table: 's.u' }),
      index('a,b partial', ['a', 'b'], { predicate: 'x IS NULL' }),
      index('a,b gin', ['a', 'b'], { method: 'gin' }),
    ]);
    expect(found.get('a')).toEqual(['a,b', 'a,c']);
    expect(found.get('a inc c')).toEqual(['a,c']);
    expect(found.has('b,a')).toBe(false);
  });
});
