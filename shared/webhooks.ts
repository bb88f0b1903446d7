// Wire shapes of an environment's webhooks and their delivery log. A webhook URL is a secret like a
// connection string (a Slack incoming webhook URL is its own credential): it goes in once and only a
// masked form (scheme, host and "…") ever comes out; the signing secret comes out once, at creation.
import { z } from 'zod';
import { isoDate } from './dates';
import { pathParam } from './environments';
import { idSchema, isPlainLine } from './validation';

export const WEBHOOK_EVENTS = ['ci.verdict.failed', 'production.query.new', 'production.query.regressed', 'analysis.recommendation.new'] as const;
export const webhookEventSchema = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
/** Sent only by the test button/endpoint; never subscribed to. */
export const TEST_EVENT = 'webhook.test';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const MAX_URL_LENGTH = 2048;

/** http(s) with a host, no user name or password, one line. Which addresses may be reached is the server's rule (config). */
export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, 'URL is required')
  .max(MAX_URL_LENGTH, `URL must be at most ${MAX_URL_LENGTH} characters`)
  .refine(isPlainLine, 'URL must be one line without control characters')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'URL must be an absolute http:// or https:// URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'URL must start with http:// or https://' });
    else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'URL must name a host' });
    else if (url.username || url.password)
      ctx.addIssue({ code: 'custom', message: 'URL must not hold a user name or password: the signature authenticates querytrail' });
  });

export const webhookSecretSchema = z
  .string()
  .min(16, 'Secret must be at least 16 characters')
  .max(256, 'Secret must be at most 256 characters')
  .refine(isPlainLine, 'Secret must be one line without control characters');

export const createWebhookInput = z.object({
  id: pathParam(idSchema),
  url: webhookUrlSchema,
  events: z
    .array(webhookEventSchema)
    .min(1, 'Choose at least one event')
    .refine((events) => new Set(events).size === events.length, 'Each event at most once'),
  secret: webhookSecretSchema.optional().meta({ description: 'The HMAC-SHA256 signing key; one is generated when left out' }),
});
export const webhookRefInput = z.object({ id: pathParam(idSchema), webhookId: pathParam(idSchema) });

export const webhookSummary = z.object({
  id: z.string(),
  maskedUrl: z.string().meta({ description: 'Scheme and host; the path, which is the secret part, shown as …', example: 'https://hooks.slack.com/services/…' }),
  format: z.enum(['json', 'slack']).meta({ description: 'slack: a Slack incoming webhook (hooks.slack.com), sent { text }' }),
  events: z.array(webhookEventSchema),
  createdAt: isoDate,
});
export type WebhookSummary = z.infer<typeof webhookSummary>;

export const createdWebhook = webhookSummary.extend({
  secret: z.string().meta({ description: 'The signing secret: shown this once, never again' }),
});

export const webhookDelivery = z.object({
  id: z.string(),
  webhookId: z.string(),
  maskedUrl: z.string(),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  responseExcerpt: z.string().nullable().meta({ description: "The first 200 characters of the receiver's last answer" }),
  createdAt: isoDate,
  lastAttemptAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const listDeliveriesInput = z.object({
  id: pathParam(idSchema),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});
