// The planned refinement of a byte budget's choice: what a synthetic planner says two indexes do
// together, which no query's trials tried, found by filling the room left and by swaps.
import { describe, expect, it } from 'vitest';
import { refineByPlans } from './planned-refinement.js';

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
});
