// The workload's cost against the storage of the indexes chosen for it, one point per step of the
// choice: where the curve flattens, more indexes buy little. The chosen point is marked and the
// page says why the choice stopped there. The figures are also in a table, for readers that see no canvas.
import { useRef } from 'react';
import type { ChoiceStop, SavingPoint } from '../../../shared/analysis';
import { formatBytes, formatNumber } from '../../lib/time';
import { useUPlot, type ChartSpec } from '../../lib/uplot';

const MB = 1024 * 1024;
const HEIGHT = 220;

/** What uPlot draws: storage in MB, the workload's cost, and the chosen point alone as a second series. */
export function savingCurveData(curve: SavingPoint[], chosen: number): [number[], number[], (number | null)[]] {
  return [curve.map((p) => p.bytes / MB), curve.map((p) => p.cost), curve.map((p, k) => (k === chosen ? p.cost : null))];
}

const savedShare = (curve: SavingPoint[], p: SavingPoint) => {
  const base = curve[0]!.cost;
  return base > 0 ? `${(((base - p.cost) / base) * 100).toFixed(1)}%` : '–';
};

export function SavingCurve({ curve, stop }: { curve: SavingPoint[]; stop: ChoiceStop | null }) {
  const box = useRef<HTMLDivElement>(null);
  const chosen = stop?.indexes ?? curve.length - 1;

  useUPlot(
    box,
    HEIGHT,
    (): ChartSpec =>
      curve.length < 2
        ? undefined
        : {
            options: {
              series: [
                { label: 'Storage', value: (_u, v) => (v == null ? '–' : formatBytes(v * MB)) },
                { label: 'Workload cost', stroke: '#2563eb', width: 1.5, points: { show: true, size: 6 } },
                { label: 'Chosen', stroke: '#d97706', width: 0, points: { show: true, size: 12, width: 2, fill: '#d97706' } },
              ],
              axes: [{ label: 'index storage (MB)' }, { label: 'workload cost' }],
              scales: { x: { time: false } },
            },
            data: savingCurveData(curve, chosen),
          },
    [curve, chosen],
  );

  if (curve.length < 2) return null;
  return (
    <section className="saving-curve" aria-labelledby="saving-curve-heading">
      <h3 id="saving-curve-heading" className="analysis-subtitle">
        Saving curve
      </h3>
      <div
        ref={box}
        className="saving-curve-chart"
        role="img"
        aria-label={`Workload cost against index storage, ${curve.length - 1} steps, chosen: ${chosen}`}
      />
      {stop ? <p className="muted small">{stop.message}</p> : null}
      <details>
        <summary>Every step</summary>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Indexes</th>
              <th scope="col">Storage</th>
              <th scope="col">Workload cost</th>
              <th scope="col">Saved</th>
              <th scope="col">Index added</th>
            </tr>
          </thead>
          <tbody>
            {curve.map((p) => (
              <tr key={p.indexes} aria-current={p.indexes === chosen ? 'step' : undefined} className={p.indexes === chosen ? 'chosen' : undefined}>
                <td>
                  {p.indexes}
                  {p.indexes === chosen ? ' (chosen)' : ''}
                </td>
                <td>{formatBytes(p.bytes)}</td>
                <td>{formatNumber(p.cost)}</td>
                <td>{savedShare(curve, p)}</td>
                <td>
                  <code>{p.createIndex ?? '–'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
