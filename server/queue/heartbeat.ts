// A job's heartbeat that does not wait for the event loop. pg-boss refreshes a running job's
// heartbeat from a timer on the event loop: a server whose loop is held for longer than the
// heartbeat (a large snapshot parsed, a machine with other work) looks dead to the other servers,
// and one of them runs the job a second time. So, on a PostgreSQL store, a worker thread with a
// connection of its own (heartbeat-worker.mjs) also refreshes the heartbeats of the jobs this
// process runs, from the moment a handler starts until it returns. It goes on whatever the main
// thread does and ends with the process, so a killed server's job is still taken over by another.
// pg-boss's own heartbeat goes on beside it (the two write the same column).
// With PGlite there is one process (db/folder-lock.ts) and the store lives on its event loop: no
// other server could take the job, and the thread could not reach the database.
import { Worker } from 'node:worker_threads';

export interface HeartbeatKeeper {
  /** From now until `release`, the job's heartbeat is kept (the attempt `retryCount`, as pg-boss fetched it). */
  hold(name: string, id: string, retryCount: number): void;
  release(id: string): void;
  close(): Promise<void>;
}

export function keepHeartbeats(options: { connectionString: string; schema: string; heartbeatSeconds: number }): HeartbeatKeeper {
  const worker = new Worker(new URL('./heartbeat-worker.mjs', import.meta.url), {
    workerData: {
      connectionString: options.connectionString,
      schema: options.schema,
      // three beats per heartbeat: one delayed by a busy database still lands in time
      intervalMs: Math.max(1000, Math.floor((options.heartbeatSeconds * 1000) / 3)),
    },
  });
  // the process ends when its work does, whatever this thread is waiting for
  worker.unref();
  let alive = true;
  worker.on('message', (message: { type: string; message?: string }) => {
    if (message.type === 'error') console.error(`[jobs] heartbeat thread: ${message.message}`);
  });
  worker.on('error', (error) => console.error(`[jobs] heartbeat thread stopped: ${error.message}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(() => (alive = false));
  const post = (message: Record<string, unknown>) => {
    if (alive) worker.postMessage(message);
  };
  return {
    hold: (name, id, retryCount) => post({ type: 'hold', name, id, retryCount }),
    release: (id) => post({ type: 'release', id }),
    async close() {
      post({ type: 'close' });
      // a statement in flight ends first; a stuck one is not waited for
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([exited, timeout]);
      if (alive) await worker.terminate();
    },
  };
}
