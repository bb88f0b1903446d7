// A process that runs one kind of job, `busy`, whose handler holds the event loop (a synchronous
// wait, as a large parse would) for BUSY_MS: for the queue's heartbeat test (job-heartbeat.test.ts).
// Prints "running <id> <attempt>" when a job starts and "done <id>" when it returns.
import { openStore } from '../../server/db/store';
import { openQueue } from '../../server/queue/index';

const store = await openStore({ databaseUrl: process.env.DATABASE_URL });
const queue = await openQueue(store, { heartbeatSeconds: 10, retryLimit: 2, retryDelaySeconds: 1, pollSeconds: 1 });
const busyMs = Number(process.env.BUSY_MS);
await queue.work('busy', async (_data, job) => {
  console.log(`running ${job.id} ${job.attempt}`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, busyMs);
  console.log(`done ${job.id}`);
});
console.log('ready');
