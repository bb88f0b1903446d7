// What every saving curve answered by an analysis must be, whichever endpoint answered it.
import { expect } from 'vitest';
import type { ChoiceStop, SavingPoint } from '../../shared/analysis';

/** Index counts 0..n, storage added up step by step, a cost that never rises, and a stop on the curve. */
export function expectSavingCurve(curve: SavingPoint[] | undefined, stop: ChoiceStop | null | undefined): void {
  expect(curve?.length).toBeGreaterThan(0);
  expect(curve!.map((p) => p.indexes)).toEqual(curve!.map((_, k) => k));
  expect(curve![0]).toMatchObject({ bytes: 0, createIndex: null });
  for (let k = 1; k < curve!.length; k++) {
    expect(curve![k]!.bytes).toBeGreaterThan(curve![k - 1]!.bytes);
    expect(curve![k]!.cost).toBeLessThanOrEqual(curve![k - 1]!.cost);
    expect(curve![k]!.createIndex).toMatch(/^CREATE INDEX ON /);
  }
  expect(stop!.indexes).toBeLessThanOrEqual(curve!.length - 1);
  expect(stop!.message).toMatch(/^Stopped /);
}
