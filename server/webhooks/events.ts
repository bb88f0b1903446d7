// Events that notify webhooks. emitEvent stores one delivery per webhook of the environment that
// subscribed to the event, then queues each one (jobs.ts sends it, retrying with backoff). The
// caller's own work never fails because of a notification: errors are logged, never thrown.
import { and, eq, sql } from 'drizzle-orm';
import type { WebhookEvent } from '../../shared/webhooks';
import { environments, webhookDeliveries, webhooks } from '../db/schema';
import { newId } from '../ids';
import type { Services } from '../services-type';
import { queueDelivery } from './jobs';
import { payloadOf } from './webhooks';

/**
 * Notifies the environment's webhooks of `event` with `data` (the payload's `data`: plain JSON, no
 * secrets). With `key` (what the event is about: a run id, an analysis id, a query hash), each
 * webhook is notified of one event and key once, however often it is emitted. Returns the ids of
 * the deliveries stored (none when no webhook subscribed, or all were notified already).
 */
export async function emitEvent(
  services: Services,
  environmentId: string,
  event: WebhookEvent,
  data: Record<string, unknown>,
  options: { key?: string } = {},
): Promise<string[]> {
  try {
    const { db } = services.store;
    const ids = await db.transaction(async (tx) => {
      const hooks = await tx
        .select({ id: webhooks.id, env: { id: environments.id, name: environments.name, slug: environments.slug } })
        .from(webhooks)
        .innerJoin(environments, eq(environments.id, webhooks.environmentId))
        .where(and(eq(webhooks.environmentId, environmentId), sql`${webhooks.events} @> ${JSON.stringify([event])}::jsonb`));
      if (hooks.length === 0) return [];
      // one body for all: every receiver gets the same occurredAt
      const body = payloadOf(hooks[0]!.env, event, data);
      const rows = hooks.map((hook) => ({ id: newId('whd'), webhookId: hook.id, environmentId, event, eventKey: options.key ?? null, body }));
      const inserted = await tx.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning({ id: webhookDeliveries.id });
      return inserted.map((row) => row.id);
    });
    for (const id of ids) await queueDelivery(services, id);
    return ids;
  } catch (error) {
    console.error(`[webhooks] event ${event} of environment ${environmentId} could not be queued: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}
