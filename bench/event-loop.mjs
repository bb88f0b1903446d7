// Preloaded into a benchmarked server (node --import ./bench/event-loop.mjs): measures how long its
// event loop stalls. On SIGUSR2 it writes what it saw since the last signal to $EVENT_LOOP_FILE
// (JSON, milliseconds, with a sequence number) and starts afresh.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.EVENT_LOOP_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let sequence = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    const seen = { sequence: ++sequence, maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean) };
    histogram.reset();
    writeFileSync(file, JSON.stringify(seen));
  });
}
