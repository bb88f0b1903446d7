// The saving curve of the workload's choice and its knee. The greedy choice (workload.ts) adds one
// index a step; the curve is the workload's cost after each step against the storage chosen so far.
// Without a budget the choice stops at the knee: the first point where both the next step and the
// rest of the curve taken together save per byte less than KNEE_FRACTION of what the whole curve
// saves per byte. The next step alone would stop before a good step that follows a poor one (the
// greedy orders by saving, not by saving per byte); the rest alone, on a long tail of large indexes
// that save little, would stop before a small index that saves much.
import type { ChoiceStop, SavingPoint } from '../shared/analysis.js';

/** Below this share of the whole curve's saving per byte, the rest of the curve is not worth its storage. */
export const KNEE_FRACTION = 0.25;

const MB = 1024 * 1024;
const megabytes = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
const percent = (part: number, whole: number) => `${whole > 0 ? ((part / whole) * 100).toFixed(1) : '0.0'}%`;

/** One point per step, from no index: storage added up, the workload's cost after the step. */
export function curveOf(base: number, steps: { index: string; bytes: number; cost: number }[]): SavingPoint[] {
  const curve: SavingPoint[] = [{ indexes: 0, bytes: 0, cost: base, createIndex: null }];
  let bytes = 0;
  for (const [k, s] of steps.entries()) {
    bytes += s.bytes;
    curve.push({ indexes: k + 1, bytes, cost: s.cost, createIndex: s.index });
  }
  return curve;
}

/** The knee's index count on the curve (see the top of this file); the last point when nothing later is poor value. */
export function kneeOf(curve: SavingPoint[]): number {
  const last = curve[curve.length - 1]!;
  const first = curve[0]!;
  const perByte = (from: SavingPoint, to: SavingPoint) => (from.cost - to.cost) / Math.max(to.bytes - from.bytes, 1);
  const floor = KNEE_FRACTION * perByte(first, last);
  for (let k = 1; k < curve.length - 1; k++) {
    const p = curve[k]!;
    if (perByte(p, curve[k + 1]!) < floor && perByte(p, last) < floor) return k;
  }
  return curve.length - 1;
}

/** Where the choice stopped: at the knee when one is given and the curve goes on past it, else at what ended the curve. */
export function stopOf(curve: SavingPoint[], knee: number | undefined, blocked: 'maxIndexes' | 'maxBytes' | undefined): ChoiceStop {
  const last = curve[curve.length - 1]!;
  const base = curve[0]!.cost;
  const end = curve.length - 1;
  if (knee !== undefined && knee < end) {
    const at = curve[knee]!;
    return {
      code: 'knee',
      indexes: knee,
      message:
        `Stopped at ${knee} of ${end} indexes (${megabytes(at.bytes)}, ${percent(base - at.cost, base)} of the workload's cost saved): ` +
        `the other ${end - knee} would save ${percent(at.cost - last.cost, base)} more for ${megabytes(last.bytes - at.bytes)} more, ` +
        `under a quarter of the curve's saving per byte, as is the next one alone. Set maxBytes or maxIndexes to choose another point.`,
    };
  }
  const saved = `${percent(base - last.cost, base)} of the workload's cost saved with ${megabytes(last.bytes)}`;
  if (blocked === 'maxIndexes') return { code: 'maxIndexes', indexes: end, message: `Stopped at the budget of ${end} indexes: ${saved}.` };
  if (blocked === 'maxBytes')
    return { code: 'maxBytes', indexes: end, message: `Stopped at the byte budget: the next index that would save does not fit. ${end} indexes, ${saved}.` };
  return { code: 'noFurtherSaving', indexes: end, message: `Stopped after ${end} indexes: no other candidate lowers a query's cost enough. ${saved}.` };
}
