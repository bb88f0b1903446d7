// Fingerprinting and pretty-printing a CI run's queries is CPU work (libpg_query parses every text,
// the deparser formats it): thousands of them would hold the event loop, and so every other
// request, for seconds. A run with such work is prepared on a worker thread from a small pool
// (tinypool); a run whose queries all came fingerprinted and formatted (the ci-report command
// sends them so) needs none and is prepared in place, without the copy to a thread.
import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import type { CiQueryInput } from '../../shared/ci';
import { prepareQueries, type PreparedRun } from './prepare';

/** Below this many texts to parse, a thread's round trip costs more than it spares. */
const IN_PLACE_LIMIT = 20;

let pool: Tinypool | undefined;
let onThreads = 0;

/** Runs being prepared on a thread right now (the event loop is free meanwhile). */
export const runsPreparing = () => onThreads;

function threads(): Tinypool {
  pool ??= new Tinypool({
    filename: new URL('./prepare-worker.mjs', import.meta.url).href,
    minThreads: 0,
    // one core stays with the event loop (HTTP, the store)
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    // threads idle this long exit, so a quiet server (or a test) holds none
    idleTimeout: 30_000,
  });
  return pool;
}

/** prepareQueries (prepare.ts), off the event loop when the run has texts to parse or format. */
export async function prepareRun(queries: readonly CiQueryInput[]): Promise<PreparedRun> {
  const work = queries.reduce((n, q) => n + (q.hash === undefined || q.formattedQuery === undefined ? 1 : 0), 0);
  if (work < IN_PLACE_LIMIT) return prepareQueries(queries);
  onThreads++;
  try {
    return (await threads().run(queries)) as PreparedRun;
  } finally {
    onThreads--;
  }
}

/** Stops the threads (server shutdown). */
export async function closePreparePool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
