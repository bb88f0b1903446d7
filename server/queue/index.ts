// The one durable job queue every background task runs on (verdict analyses, Analyze, production
// snapshots, history, webhook deliveries): pg-boss, on the store's own database. A job is a row in
// the `pgboss` schema, so it survives a restart and is taken by exactly one worker of any server
// process (SELECT ... FOR UPDATE SKIP LOCKED). A running job's worker writes a heartbeat; a job
// whose heartbeat stops (its process was killed) is retried by whichever process polls next, and
// after its last attempt is failed, and its `onFailed` says so where the user reads it.
//
// One code path on both stores: on PostgreSQL pg-boss keeps its own small pool on DATABASE_URL; on
// PGlite it shares the one PGlite instance (pg-boss's own `fromPglite` adapter: LISTEN/NOTIFY
// in-process, multi-statement DDL through exec()), which only this process holds (db/folder-lock.ts).
// On PostgreSQL a running job's heartbeat is also kept by a thread of its own (heartbeat.ts), so a
// server whose event loop is busy is not taken for dead.
import { randomUUID } from 'node:crypto';
import { PgBoss, fromPglite, type JobWithMetadata } from 'pg-boss';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from '../config';
import { keepHeartbeats } from './heartbeat';

export interface SendOptions {
  singletonKey?: string;
  startAfterSeconds?: number;
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
}

export interface WorkOptions<T> {
  concurrency?: number;
  /**
   * Called when a job of this name has failed for good (its last attempt threw, or its worker
   * stopped heartbeating on every attempt), by whichever process notices, with a reason worded for
   * the user: where the task keeps a status row, this is where it says "failed" instead of "running".
   */
  onFailed?: (data: T, reason: string) => Promise<void>;
}

export interface JobQueue {
  /** Enqueue; null when `singletonKey` already has a job queued or running. Durable (in the store). */
  send(name: string, data: Record<string, unknown>, options?: SendOptions): Promise<string | null>;
  /** Runs `handler` for jobs of `name` in this process; every server process registers the same handlers at start. A throw = retry (per the job's retry options), then failed. */
  work<T extends Record<string, unknown>>(
    name: string,
    handler: (data: T, job: { id: string; attempt: number }) => Promise<void>,
    options?: WorkOptions<T>,
  ): Promise<void>;
}

export interface RunningQueue extends JobQueue {
  /** Resolves once the job has completed or failed for good, by whichever process ran it. */
  settled(name: string, id: string): Promise<'completed' | 'failed' | 'cancelled' | 'gone'>;
  /** Stops taking jobs; the ones running here are left to heartbeat out and be retried elsewhere. */
  stop(): Promise<void>;
}

/** Where failed jobs go to be reported: pg-boss copies a job there after its last attempt. */
const failedQueue = (name: string) => `${name}.failed`;

/** Long enough for the largest Analyze; a dead worker is found by its heartbeat long before. */
const EXPIRE_SECONDS = 4 * 60 * 60;

/** pg-boss's tables and functions live in this schema of the store's database. */
const SCHEMA = 'pgboss';

/**
 * Creates the queue's schema on a PGlite no queue has run on, as the first openQueue's start would,
 * and nothing else (no worker, no timer): the store's template cluster has it made already
 * (db/pglite-template.ts), so a new DATA_DIR's first start does not spend a second on it.
 */
export async function installQueueSchema(pglite: PGlite): Promise<void> {
  const boss = new PgBoss({
    db: fromPglite(pglite),
    backend: 'pglite',
    schema: SCHEMA,
    useListenNotify: false,
    schedule: false,
    supervise: false,
    registerInstance: false,
  });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.stop({ graceful: false, close: false });
}

/** What the queue runs on: the store's own connection (db/store.ts), named here so the queue needs no store. */
export type QueueConnection = { databaseUrl: string } | { pglite: PGlite };

export async function openQueue(store: { connection: QueueConnection }, settings: Config['jobs']): Promise<RunningQueue> {
  const connection = store.connection;
  // The monitor pass is what finds a stopped heartbeat: twice per heartbeat interval.
  const passSeconds = Math.max(1, Math.floor(settings.heartbeatSeconds / 2));
  const boss = new PgBoss({
    ...('pglite' in connection
      ? { db: fromPglite(connection.pglite), backend: 'pglite' as const }
      : { connectionString: connection.databaseUrl, max: 4, application_name: 'querytrail-jobs' }),
    schema: SCHEMA,
    useListenNotify: true,
    schedule: false,
    registerInstance: false,
    superviseIntervalSeconds: passSeconds,
    monitorIntervalSeconds: passSeconds,
  });
  // pg-boss reports what goes wrong in its own timers (a lost connection, a slow query) as events;
  // unheard, an 'error' event would end the process.
  boss.on('error', (error: Error) => console.error(`[jobs] ${error.message}`));
  await boss.start();
  const heartbeats =
    'pglite' in connection
      ? undefined
      : keepHeartbeats({ connectionString: connection.databaseUrl, schema: SCHEMA, heartbeatSeconds: settings.heartbeatSeconds });

  // Queues are made once, by the first process that needs them, and kept: creating one that exists
  // changes nothing (pg-boss inserts ON CONFLICT DO NOTHING) but takes pg-boss's lock and a round of
  // queries twice per kind of job at every start, so the ones there already are read in one query.
  const existing = new Set((await boss.getQueues().catch(() => [])).map((queue) => queue.name));
  const created = new Map<string, Promise<void>>();
  const queueOptions = {
    policy: 'exclusive',
    notify: true,
    heartbeatSeconds: settings.heartbeatSeconds,
    expireInSeconds: EXPIRE_SECONDS,
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
  } as const;
  // createQueue is idempotent and taken under pg-boss's advisory lock, so every process may call it.
  const ensure = (name: string): Promise<void> => {
    let made = created.get(name);
    if (!made && existing.has(name) && existing.has(failedQueue(name))) made = Promise.resolve();
    if (!made) {
      made = boss
        .createQueue(failedQueue(name), { ...queueOptions, retryLimit: settings.retryLimit })
        .then(() => boss.createQueue(name, { ...queueOptions, deadLetter: failedQueue(name) }));
      made.catch(() => created.delete(name));
      created.set(name, made);
    }
    return made;
  };

  return {
    async send(name, data, options = {}) {
      await ensure(name);
      return boss.send(name, data, {
        // 'exclusive' allows one queued-or-active job per key; a job sent without one is its own
        singletonKey: options.singletonKey ?? randomUUID(),
        startAfter: options.startAfterSeconds,
        retryLimit: options.retryLimit ?? settings.retryLimit,
        retryDelay: options.retryDelaySeconds ?? settings.retryDelaySeconds,
        retryBackoff: options.retryBackoff ?? true,
      });
    },

    async work<T extends Record<string, unknown>>(
      name: string,
      handler: (data: T, job: { id: string; attempt: number }) => Promise<void>,
      options: WorkOptions<T> = {},
    ) {
      await ensure(name);
      // NOTIFY wakes a worker only for a job ready at once: a retry or a startAfter job becomes ready
      // later, silently, and pg-boss's default NOTIFY-time poll (30 s) would hold it that long
      const poll = {
        pollingIntervalSeconds: settings.pollSeconds,
        notifyPollingIntervalSeconds: settings.pollSeconds,
        localConcurrency: options.concurrency ?? 1,
      };
      await boss.work<T>(name, poll, async ([job]) => {
        if (!job) return;
        heartbeats?.hold(name, job.id, job.retryCount);
        try {
          await handler(job.data, { id: job.id, attempt: job.retryCount + 1 });
        } finally {
          heartbeats?.release(job.id);
        }
      });
      // every failure is logged (so its copy here is consumed); a task with a status of its own also records it there
      await boss.work<T>(failedQueue(name), { ...poll, localConcurrency: 1, includeMetadata: true }, async ([job]) => {
        if (!job) return;
        const failed = job as unknown as JobWithMetadata<T>; // includeMetadata: the typed overload does not follow the option
        // the error itself is not logged: a handler's message may name what it was reaching (a webhook URL)
        console.error(`[jobs] ${name} job ${failed.sourceId ?? job.id} failed after ${(failed.sourceRetryCount ?? 0) + 1} attempt(s)`);
        await options.onFailed?.(job.data, failureReason(failed));
      });
    },

    async settled(name, id) {
      for (;;) {
        const [job] = await boss.findJobs(name, { id });
        if (!job) return 'gone';
        if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') {
          // a failed job is reported once its `onFailed` has run, so a waiter reads the final word
          if (job.state === 'failed' && job.deadLetter && job.singletonKey) await reported(boss, failedQueue(name), job.singletonKey, id);
          return job.state;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },

    async stop() {
      // running jobs are not waited for: their rows stay active, their heartbeats stop, and another
      // process (or this one, restarted) retries them
      await boss.stop({ graceful: false, close: true, timeout: 1000 }).catch(() => undefined);
      await heartbeats?.close();
    },
  };
}

/** Waits until the failed job's copy in the dead letter queue has been handled (or never will be). */
async function reported(boss: PgBoss, deadLetter: string, key: string, sourceId: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const copies = (await boss.findJobs(deadLetter, { key }).catch(() => [])).filter((copy) => copy.sourceId === sourceId);
    if (copies.length > 0 && copies.every((copy) => copy.state === 'completed' || copy.state === 'failed')) return;
    if (copies.length === 0 && tries > 50) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last attempt's error, worded for the user. */
function failureReason(job: JobWithMetadata<unknown>): string {
  const output = job.sourceOutput as { message?: string; value?: { message?: string } } | null;
  const message = output?.message ?? output?.value?.message ?? 'unknown error';
  const attempts = (job.sourceRetryCount ?? 0) + 1;
  const tried = attempts === 1 ? 'its one attempt' : `${attempts} attempts`;
  if (/heartbeat|timed out/.test(message)) return `Interrupted: the server running it stopped, on ${tried}; start it again`;
  return `Failed after ${tried}: ${message}`;
}
