// Calls and mean time of one query over time, drawn by uPlot (client/lib/uplot.ts). The figures the
// chart shows are also in its caption, for readers that see no canvas.
import { useRef } from 'react';
import type { HistoryPoint } from '../../../shared/history';
import { useUPlot } from '../../lib/uplot';
import './history.css';

export function HistoryChart({ points, label }: { points: HistoryPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);

  useUPlot(
    box,
    240,
    () =>
      points.length === 0
        ? undefined
        : {
            options: {
              series: [
                {},
                { label: 'Calls', scale: 'calls', stroke: '#2563eb', fill: 'rgba(37, 99, 235, 0.08)', width: 1.5 },
                { label: 'Mean (ms)', scale: 'ms', stroke: '#d97706', width: 1.5, value: (_u, v) => (v == null ? '–' : `${v.toFixed(2)} ms`) },
              ],
              axes: [{}, { scale: 'calls', label: 'calls' }, { scale: 'ms', side: 1, label: 'mean ms', grid: { show: false } }],
              scales: { x: { time: true } },
            },
            data: [points.map((p) => Date.parse(p.at) / 1000), points.map((p) => p.calls), points.map((p) => p.meanTimeMs)],
          },
    [points],
  );

  return <div ref={box} className="history-chart" role="img" aria-label={label} />;
}
