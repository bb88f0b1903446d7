// An environment's webhooks: added (URL and signing secret sealed like a connection string),
// listed (masked), removed, tested; and the delivery log.
import { and, asc, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { toIsoDate } from '../../shared/dates';
import { TEST_EVENT, type createWebhookInput, type WebhookDelivery, type WebhookEvent, type WebhookSummary } from '../../shared/webhooks';
import { environments, webhookDeliveries, webhooks } from '../db/schema';
import type { Db } from '../db/store';
import { badRequest, notFound } from '../errors';
import { newId } from '../ids';
import type { Services } from '../services-type';
import { refusedHost } from './addresses';
import { generateSecret, isSlackUrl, maskWebhookUrl, type WebhookPayload } from './body';
import { attemptDelivery } from './deliver';
import { notFoundInEnvironment, requireEnvironment } from '../domain/environments';

type WebhookRow = typeof webhooks.$inferSelect;

const toSummary = (row: Pick<WebhookRow, 'id' | 'maskedUrl' | 'format' | 'events' | 'createdAt'>): WebhookSummary => ({
  id: row.id,
  maskedUrl: row.maskedUrl,
  format: row.format,
  events: row.events as WebhookEvent[],
  createdAt: row.createdAt.toISOString(),
});

/** 201 with the signing secret, the only time it is returned. */
export async function addWebhook(services: Services, input: z.infer<typeof createWebhookInput>): Promise<WebhookSummary & { secret: string }> {
  const url = new URL(input.url);
  const refused = refusedHost(url.hostname, services.config.webhookAllowPrivate);
  if (refused) throw badRequest(`Invalid input: url: ${refused}`, [{ path: 'url', message: refused }]);
  const secret = input.secret ?? generateSecret();
  const id = newId('wh');
  const { secrets, store } = services;
  const [row] = await store.db.transaction(async (tx) => {
    await requireEnvironment(tx, input.id);
    return tx
      .insert(webhooks)
      .values({
        id,
        environmentId: input.id,
        urlEncrypted: secrets.encrypt(url.href),
        maskedUrl: maskWebhookUrl(url),
        format: isSlackUrl(url) ? 'slack' : 'json',
        secretEncrypted: secrets.encrypt(secret),
        // in the order of WEBHOOK_EVENTS, whatever order they came in
        events: [...input.events].sort(),
      })
      .returning();
  });
  return { ...toSummary(row!), secret };
}

export async function listWebhooks(db: Db, environmentId: string): Promise<WebhookSummary[]> {
  await requireEnvironment(db, environmentId);
  const rows = await db
    .select({ id: webhooks.id, maskedUrl: webhooks.maskedUrl, format: webhooks.format, events: webhooks.events, createdAt: webhooks.createdAt })
    .from(webhooks)
    .where(eq(webhooks.environmentId, environmentId))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return rows.map(toSummary);
}

/** Its deliveries go with it (pending ones are not sent). */
export async function removeWebhook(db: Db, environmentId: string, webhookId: string): Promise<void> {
  const deleted = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.environmentId, environmentId)))
    .returning({ id: webhooks.id });
  if (deleted.length === 0) await notFoundInEnvironment(db, environmentId, notFound(`Webhook ${webhookId}`));
}

const deliveryColumns = {
  id: webhookDeliveries.id,
  webhookId: webhookDeliveries.webhookId,
  maskedUrl: webhooks.maskedUrl,
  event: webhookDeliveries.event,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  responseStatus: webhookDeliveries.responseStatus,
  lastError: webhookDeliveries.lastError,
  responseExcerpt: webhookDeliveries.responseExcerpt,
  createdAt: webhookDeliveries.createdAt,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  deliveredAt: webhookDeliveries.deliveredAt,
};
type DeliveryRow = Omit<WebhookDelivery, 'createdAt' | 'lastAttemptAt' | 'deliveredAt'> & {
  createdAt: Date;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
};

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  ...row,
  createdAt: toIsoDate(row.createdAt),
  lastAttemptAt: row.lastAttemptAt ? toIsoDate(row.lastAttemptAt) : null,
  deliveredAt: row.deliveredAt ? toIsoDate(row.deliveredAt) : null,
});

/** The latest deliveries of the environment's webhooks, newest first. */
export async function listDeliveries(db: Db, environmentId: string, limit: number): Promise<WebhookDelivery[]> {
  await requireEnvironment(db, environmentId);
  const rows = await db
    .select(deliveryColumns)
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(eq(webhookDeliveries.environmentId, environmentId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  return rows.map(toDelivery);
}

/** The payload of an event for one environment, as stored and signed. */
export function payloadOf(environment: WebhookPayload['environment'], event: WebhookPayload['event'], data: Record<string, unknown>): string {
  const payload: WebhookPayload = { event, environment, occurredAt: new Date().toISOString(), data };
  return JSON.stringify(payload);
}

/**
 * Sends a `webhook.test` event now, once, without retries, and answers how it went (it is in the
 * delivery log too): the button's answer is the receiver's.
 */
export async function testWebhook(services: Services, environmentId: string, webhookId: string): Promise<WebhookDelivery> {
  const { db } = services.store;
  const [hook] = await db
    .select({ id: webhooks.id, env: { id: environments.id, name: environments.name, slug: environments.slug } })
    .from(webhooks)
    .innerJoin(environments, eq(environments.id, webhooks.environmentId))
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.environmentId, environmentId)));
  if (!hook) return notFoundInEnvironment(db, environmentId, notFound(`Webhook ${webhookId}`));
  const id = newId('whd');
  await db.insert(webhookDeliveries).values({
    id,
    webhookId,
    environmentId,
    event: TEST_EVENT,
    body: payloadOf(hook.env, TEST_EVENT, { message: 'A test delivery from querytrail' }),
  });
  await attemptDelivery(services, id, { finalAttempt: true });
  const [row] = await db
    .select(deliveryColumns)
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(eq(webhookDeliveries.id, id));
  return toDelivery(row!);
}
