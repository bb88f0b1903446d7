// Production history on the job queue. Time is cut into slots of each environment's interval; the
// reading of slot k queues the one of slot k+1 (singletonKey names environment, interval and slot,
// so however many server processes queue it, it is queued once), and a planner job once a minute
// queues the next slot of every environment whose chain is missing (a new environment, a chain ended
// by a failure or by readings turned off and on again). Pruning runs once an hour the same way.
import { and, eq, exists, sql } from 'drizzle-orm';
import type { JobQueue } from '../queue/index';
import { connections, environments } from '../db/schema';
import type { Services } from '../services-type';
import { pruneHistory } from './retention';
import { takeHistoryReading } from './reading';

// The queue's name is stored with every job queued (and is pg-boss's queue row): stores hold jobs
// under this one, and a reading job renamed would leave them to no worker, so it keeps its spelling.
const READING = 'history.snapshot';
const PLAN = 'history.plan';
const PRUNE = 'history.prune';
const PLAN_EVERY_SECONDS = 60;
const PRUNE_EVERY_SECONDS = 3600;

/** The environment's interval in seconds (0: off); null when the environment is gone. */
export async function readingIntervalOf(services: Services, environmentId: string): Promise<number | null> {
  const [row] = await services.store.db.select({ seconds: environments.snapshotIntervalSeconds }).from(environments).where(eq(environments.id, environmentId));
  if (!row) return null;
  return row.seconds ?? services.config.snapshotIntervalSeconds;
}

/** Queues the job of the slot after the current one, unless it is queued already. */
function queueNextSlot(queue: JobQueue, name: string, key: string, everySeconds: number, data: Record<string, unknown>, now = Date.now()) {
  const slot = Math.floor(now / 1000 / everySeconds) + 1;
  const startAfterSeconds = Math.max(0, Math.ceil(slot * everySeconds - now / 1000));
  return queue.send(name, data, { singletonKey: `${key}:${slot}`, startAfterSeconds, retryLimit: 1 });
}

const queueReading = (queue: JobQueue, environmentId: string, intervalSeconds: number) =>
  queueNextSlot(queue, READING, `${READING}:${environmentId}:${intervalSeconds}`, intervalSeconds, { environmentId, intervalSeconds });

/** Every environment with a production connection and readings on gets its next slot queued. */
export async function planReadings(services: Services): Promise<number> {
  const { db } = services.store;
  const production = db
    .select({ one: sql`1` })
    .from(connections)
    .where(and(eq(connections.environmentId, environments.id), eq(connections.role, 'production')));
  const rows = await db.select({ id: environments.id, seconds: environments.snapshotIntervalSeconds }).from(environments).where(exists(production));
  let planned = 0;
  for (const row of rows) {
    const seconds = row.seconds ?? services.config.snapshotIntervalSeconds;
    if (seconds > 0 && (await queueReading(services.queue, row.id, seconds)) !== null) planned++;
  }
  return planned;
}

/** Registers the handlers and starts the planner; every server process calls it at start. */
export async function registerHistoryJobs(services: Services): Promise<void> {
  const { queue } = services;
  await queue.work<{ environmentId: string; intervalSeconds: number }>(READING, async ({ environmentId, intervalSeconds }) => {
    const current = await readingIntervalOf(services, environmentId);
    // the environment is gone, readings are off, or the interval changed (the planner starts its new chain)
    if (current === null || current === 0 || current !== intervalSeconds) return;
    await takeHistoryReading(services, environmentId);
    await queueReading(queue, environmentId, intervalSeconds);
  });
  await queue.work(PLAN, async () => {
    await planReadings(services);
    await queueNextSlot(queue, PLAN, PLAN, PLAN_EVERY_SECONDS, {});
  });
  await queue.work(PRUNE, async () => {
    await pruneHistory(services);
    await queueNextSlot(queue, PRUNE, PRUNE, PRUNE_EVERY_SECONDS, {});
  });
  // now, keyed by the current minute: servers starting together plan once
  await queue.send(PLAN, {}, { singletonKey: `${PLAN}:start:${Math.floor(Date.now() / 1000 / PLAN_EVERY_SECONDS)}`, retryLimit: 1 });
  await queueNextSlot(queue, PRUNE, PRUNE, PRUNE_EVERY_SECONDS, {});
}
