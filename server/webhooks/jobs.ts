// Webhook deliveries on the job queue: one job per delivery, retried with exponential backoff
// (deliver.ts counts the attempts and fails the delivery after the last one). The job's singleton
// key is the delivery id, so queueing a delivery twice (the sweep at start) never sends it twice
// at once; a delivered one is never sent again (deliver.ts).
import { and, eq, lt, sql } from 'drizzle-orm';
import { webhookDeliveries } from '../db/schema';
import type { Services } from '../services-type';
import { deliverWebhook, MAX_ATTEMPTS } from './deliver';

export const DELIVERY_JOB = 'webhook.deliver';

/** Queues one stored delivery (a second time while its job is queued or running: nothing happens). */
export async function queueDelivery(services: Services, deliveryId: string): Promise<void> {
  await services.queue.send(
    DELIVERY_JOB,
    { deliveryId },
    { singletonKey: deliveryId, retryLimit: MAX_ATTEMPTS - 1, retryDelaySeconds: services.config.jobs.retryDelaySeconds, retryBackoff: true },
  );
}

/**
 * Every server process registers the delivery worker at start, then queues the deliveries still
 * pending with attempts left (stored by a process that stopped before queueing them).
 */
export async function registerWebhookJobs(services: Services): Promise<void> {
  await services.queue.work<{ deliveryId: string }>(DELIVERY_JOB, ({ deliveryId }) => deliverWebhook(services, deliveryId), {
    concurrency: 4,
    // the job failed for good without deliver.ts closing the delivery (its worker died on the last attempt)
    onFailed: async ({ deliveryId }, reason) => {
      await services.store.db
        .update(webhookDeliveries)
        .set({ status: 'failed', lastError: sql`coalesce(${webhookDeliveries.lastError}, ${reason})` })
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')));
    },
  });
  const pending = await services.store.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.attempts, MAX_ATTEMPTS)));
  for (const { id } of pending) await queueDelivery(services, id);
}
