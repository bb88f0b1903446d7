// The job queue itself (server/queue/), on both stores: a job runs once whatever the number of
// workers taking jobs, a key holds one job at a time, and a job that throws is retried with backoff
// and then failed, with its reason handed to `onFailed`. On PostgreSQL the two queues are two
// pg-boss instances with their own pools on one database, as two server processes have them.
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../server/db/store';
import { openQueue, type RunningQueue } from '../../server/queue/index';
import { readConfig } from '../../server/config';
import { startPostgres, type PostgresServer } from '../support/postgres';

const settings = { ...readConfig({}).jobs, heartbeatSeconds: 10, retryDelaySeconds: 1, pollSeconds: 1 };

let postgres: PostgresServer | undefined;
const opened: { store: Store; queue: RunningQueue }[] = [];
afterAll(async () => {
  for (const { store, queue } of opened.reverse()) {
    await queue.stop();
    await store.close();
  }
  await postgres?.stop();
});

/** One queue per "process": on PostgreSQL each on its own store (pool) on one database. */
async function queues(backend: 'pglite' | 'postgres', count: number): Promise<RunningQueue[]> {
  let url: string | undefined;
  if (backend === 'postgres') {
    postgres ??= await startPostgres({ statStatements: false });
    url = await postgres.createDatabase(`qt_queue_${opened.length}`);
  }
  const result: RunningQueue[] = [];
  for (let i = 0; i < count; i++) {
    // PGlite is one process's store: a second worker there is a second queue on the same instance
    const store = backend === 'pglite' && i > 0 ? opened.at(-1)!.store : await openStore({ databaseUrl: url });
    const queue = await openQueue(store, settings);
    opened.push({ store: backend === 'pglite' && i > 0 ? { ...store, close: async () => undefined } : store, queue });
    result.push(queue);
  }
  return result;
}

describe.each(['postgres', 'pglite'] as const)('the job queue (%s)', (backend) => {
  it('runs every job exactly once across two workers, and holds one job per key', async () => {
    const [a, b] = await queues(backend, 2);
    const ran: { worker: string; n: number }[] = [];
    const ids = await Promise.all(Array.from({ length: 30 }, (_, n) => (n % 2 ? a! : b!).send('count', { n }, { singletonKey: `job-${n}` })));
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    // a key already queued (no worker has taken it yet): no second job
    expect(await a!.send('count', { n: 99 }, { singletonKey: 'job-0' })).toBeNull();
    for (const [worker, queue] of [
      ['a', a!],
      ['b', b!],
    ] as const) {
      await queue.work<{ n: number }>(
        'count',
        async ({ n }) => {
          ran.push({ worker, n });
          await new Promise((resolve) => setTimeout(resolve, 20));
        },
        { concurrency: 3 },
      );
    }
    expect(await Promise.all(ids.map((id) => a!.settled('count', id!)))).toEqual(ids.map(() => 'completed'));
    expect(ran.map((r) => r.n).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    // once done, the key is free again
    const again = await b!.send('count', { n: 0 }, { singletonKey: 'job-0' });
    expect(again).toEqual(expect.any(String));
    await a!.settled('count', again!);
    expect(ran.filter((r) => r.n === 0)).toHaveLength(2);
  }, 120_000);

  it('retries a job that throws, with backoff, then fails it and reports why', async () => {
    const [queue] = await queues(backend, 1);
    const attempts: number[] = [];
    const failed: { data: { what: string }; reason: string }[] = [];
    await queue!.work<{ what: string }>(
      'flaky',
      async (_data, job) => {
        attempts.push(job.attempt);
        throw new Error(`production unreachable (attempt ${job.attempt})`);
      },
      { onFailed: async (data, reason) => void failed.push({ data, reason }) },
    );
    const id = await queue!.send('flaky', { what: 'sync' }, { retryLimit: 2, retryDelaySeconds: 1, retryBackoff: true });
    expect(await queue!.settled('flaky', id!)).toBe('failed');
    expect(attempts).toEqual([1, 2, 3]);
    expect(failed).toEqual([{ data: { what: 'sync' }, reason: 'Failed after 3 attempts: production unreachable (attempt 3)' }]);
  }, 120_000);
});
