// Calls and mean time of one query over time, drawn by uPlot (canvas, ~50 KB, loaded with the first
// chart). The figures the chart shows are also in its caption, for readers that see no canvas.
import { useEffect, useRef } from 'react';
import type { HistoryPoint } from '../../../shared/history';
import 'uplot/dist/uPlot.min.css';
import './history.css';

/** Whether this browser can draw (a canvas context and media queries; jsdom has neither). */
function canDraw(): boolean {
  if (typeof window.matchMedia !== 'function') return false;
  try {
    return document.createElement('canvas').getContext('2d') !== null;
  } catch {
    return false;
  }
}

export function HistoryChart({ points, label }: { points: HistoryPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element || points.length === 0 || !canDraw()) return;
    let chart: { destroy(): void; setSize(size: { width: number; height: number }): void } | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled) return;
      const width = () => Math.max(320, element.clientWidth);
      const data: [number[], number[], number[]] = [
        points.map((p) => Date.parse(p.at) / 1000),
        points.map((p) => p.calls),
        points.map((p) => p.meanTimeMs),
      ];
      chart = new UPlot(
        {
          width: width(),
          height: 240,
          series: [
            {},
            { label: 'Calls', scale: 'calls', stroke: '#2563eb', fill: 'rgba(37, 99, 235, 0.08)', width: 1.5 },
            { label: 'Mean (ms)', scale: 'ms', stroke: '#d97706', width: 1.5, value: (_u, v) => (v == null ? '–' : `${v.toFixed(2)} ms`) },
          ],
          axes: [{}, { scale: 'calls', label: 'calls' }, { scale: 'ms', side: 1, label: 'mean ms', grid: { show: false } }],
          scales: { x: { time: true } },
        },
        data,
        element,
      );
      observer = new ResizeObserver(() => chart?.setSize({ width: width(), height: 240 }));
      observer.observe(element);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [points]);

  return <div ref={box} className="history-chart" role="img" aria-label={label} />;
}
