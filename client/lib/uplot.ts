// One uPlot chart in an element: loaded with the first chart (canvas, ~50 KB), sized to the
// element's width and kept so, destroyed with the component. Nothing is drawn where no canvas is.
import { useEffect, type DependencyList, type RefObject } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Whether this browser can draw (a canvas context and media queries; jsdom has neither). */
function canDraw(): boolean {
  if (typeof window.matchMedia !== 'function') return false;
  try {
    return document.createElement('canvas').getContext('2d') !== null;
  } catch {
    return false;
  }
}

/** The chart's options without its size, and its data; undefined draws nothing. */
export type ChartSpec = { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData } | undefined;

export function useUPlot(box: RefObject<HTMLDivElement | null>, height: number, spec: () => ChartSpec, deps: DependencyList): void {
  useEffect(() => {
    const element = box.current;
    const chartSpec = spec();
    if (!element || !chartSpec || !canDraw()) return;
    let chart: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled) return;
      const width = () => Math.max(320, element.clientWidth);
      chart = new UPlot({ ...chartSpec.options, width: width(), height }, chartSpec.data, element);
      observer = new ResizeObserver(() => chart?.setSize({ width: width(), height }));
      observer.observe(element);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller's deps are what the spec reads
  }, deps);
}
