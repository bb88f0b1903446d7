// Sending one stored delivery: the queue's job (jobs.ts) and the test button both come here. Each
// attempt is counted before it is made; a delivered one is never sent again, whoever asks.
import { and, eq, sql } from 'drizzle-orm';
import { webhookDeliveries, webhooks } from '../db/schema';
import type { Services } from '../services-type';
import { SecretUnreadableError } from '../secrets';
import { requestBody, signature } from './body';
import { sendWebhook } from './send';

/**
 * Attempts before a delivery is failed: the first and 7 retries, JOB_RETRY_DELAY_SECONDS apart and
 * doubling each time (with the default 10 s: 10 s, 20 s, ... 640 s, about 21 minutes in all).
 */
export const MAX_ATTEMPTS = 8;

/** Thrown when an attempt failed and another one should follow (the queue retries on a throw). */
export class RetryDelivery extends Error {}

export type AttemptOutcome = 'delivered' | 'failed' | 'retry' | 'skipped';

/**
 * One attempt at a delivery. `finalAttempt` (the test button) fails it on any error instead of
 * leaving it pending for a retry. Never throws for the receiver's failures: returns 'retry'.
 */
export async function attemptDelivery(services: Services, deliveryId: string, options: { finalAttempt?: boolean } = {}): Promise<AttemptOutcome> {
  const { db } = services.store;
  // Claimed by counting the attempt, only while pending: a delivered or failed one is left alone.
  const [claimed] = await db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, lastAttemptAt: new Date() })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')))
    .returning({ attempts: webhookDeliveries.attempts, body: webhookDeliveries.body, event: webhookDeliveries.event, webhookId: webhookDeliveries.webhookId });
  if (!claimed) return 'skipped';
  const [hook] = await db
    .select({ url: webhooks.urlEncrypted, secret: webhooks.secretEncrypted, format: webhooks.format })
    .from(webhooks)
    .where(eq(webhooks.id, claimed.webhookId));
  const final = options.finalAttempt || claimed.attempts >= MAX_ATTEMPTS;
  const record = async (outcome: { status?: number; excerpt?: string; error?: string; delivered: boolean; permanent: boolean }): Promise<AttemptOutcome> => {
    const status = outcome.delivered ? 'delivered' : outcome.permanent || final ? 'failed' : 'pending';
    await db
      .update(webhookDeliveries)
      .set({
        status,
        responseStatus: outcome.status ?? null,
        responseExcerpt: outcome.excerpt ?? null,
        lastError: outcome.delivered ? null : (outcome.error ?? 'failed'),
        deliveredAt: outcome.delivered ? new Date() : null,
      })
      .where(eq(webhookDeliveries.id, deliveryId));
    return status === 'pending' ? 'retry' : status;
  };
  if (!hook) return record({ error: 'the webhook was deleted', delivered: false, permanent: true });

  let url: URL;
  let secret: string;
  try {
    url = new URL(services.secrets.decrypt(hook.url));
    secret = services.secrets.decrypt(hook.secret);
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    return record({ error: `${error.message.replace('a stored secret', "the webhook's URL")}`, delivered: false, permanent: true });
  }
  const body = requestBody(claimed.body, hook.format === 'slack');
  const result = await sendWebhook(
    url,
    body,
    { 'x-querytrail-event': claimed.event, 'x-querytrail-delivery': deliveryId, 'x-querytrail-signature': signature(secret, body) },
    { allowPrivate: services.config.webhookAllowPrivate },
  );
  const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
  return record({ ...result, error: result.error && redact(result.error, url), delivered });
}

/** The queue's job: one attempt; a throw asks the queue for the next one (with backoff). */
export async function deliverWebhook(services: Services, deliveryId: string): Promise<void> {
  const outcome = await attemptDelivery(services, deliveryId);
  if (outcome === 'retry') throw new RetryDelivery(`webhook delivery ${deliveryId} failed; retrying`);
}

/** Network errors name host and port, not the path; should one ever quote the URL, its secret part goes. */
function redact(message: string, url: URL): string {
  const path = url.pathname + url.search;
  let out = message.split(url.href).join(`${url.protocol}//${url.host}/…`);
  if (path.length > 1) out = out.split(path).join('/…');
  return out;
}
