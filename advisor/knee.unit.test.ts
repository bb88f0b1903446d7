// The knee of the saving curve: where both the next step and the rest of the curve are poor value.
import { describe, expect, it } from 'vitest';
import type { SavingPoint } from '../shared/analysis.js';
import { kneeOf } from './knee.js';

const curve = (points: [cost: number, bytes: number][]): SavingPoint[] =>
  points.map(([cost, bytes], indexes) => ({ indexes, bytes, cost, createIndex: indexes ? `CREATE INDEX ON t (c${indexes})` : null }));

describe('the knee of the saving curve', () => {
  it('keeps a small index that saves much after the big ones, before a long tail that saves little', () => {
    expect(
      kneeOf(
        curve([
          [100, 0],
          [50, 10],
          [20, 20],
          [10, 22],
          [9, 200],
          [8, 400],
        ]),
      ),
    ).toBe(3);
  });

  it('goes on past a poor step when a good one follows it', () => {
    expect(
      kneeOf(
        curve([
          [100, 0],
          [50, 10],
          [49, 100],
          [10, 110],
          [9, 300],
        ]),
      ),
    ).toBe(3);
  });

  it('keeps every index when no later part of the curve is poor value', () => {
    expect(
      kneeOf(
        curve([
          [100, 0],
          [60, 10],
          [30, 20],
          [10, 30],
        ]),
      ),
    ).toBe(3);
    expect(kneeOf(curve([[100, 0]]))).toBe(0);
  });
});
