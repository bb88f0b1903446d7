// What a webhook receives: the JSON payload every delivery stores, the Slack text made from it for a
// Slack incoming webhook, and the HMAC-SHA256 signature over the exact bytes sent.
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookEvent } from '../../shared/webhooks';

export interface WebhookPayload {
  event: WebhookEvent | 'webhook.test';
  environment: { id: string; name: string; slug: string };
  occurredAt: string;
  data: Record<string, unknown>;
}

/** A Slack incoming webhook (https://hooks.slack.com/services/...) takes `{ text }`, not our payload. */
export function isSlackUrl(url: URL): boolean {
  return url.protocol === 'https:' && url.hostname.toLowerCase() === 'hooks.slack.com';
}

/** Scheme, host and port; the path and query (the secret part of most webhook URLs) as "…". */
export function maskWebhookUrl(url: URL): string {
  const hidden = url.pathname !== '/' || url.search !== '';
  const [first] = url.pathname.split('/').filter(Boolean);
  // Slack's /services/ and the like say what the URL is without saying its secret
  const shown = first && url.pathname.split('/').filter(Boolean).length > 1 && /^[a-z-]{1,20}$/.test(first) ? `/${first}/…` : hidden ? '/…' : '';
  return `${url.protocol}//${url.host}${shown}`;
}

export const generateSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** The X-Querytrail-Signature value: "sha256=" and the hex HMAC of the raw body. */
export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

/** One short Slack message per event, from the payload's data (fields the emitters put there). */
export function slackText(payload: WebhookPayload): string {
  const env = `*${payload.environment.name}*`;
  const d = payload.data;
  const link = text(d.url) ? ` <${text(d.url)}|details>` : '';
  switch (payload.event) {
    case 'ci.verdict.failed':
      return `:x: CI verdict *failed* in ${env}: ${text(d.repo) ?? 'a run'}${text(d.branch) ? ` on \`${text(d.branch)}\`` : ''}${(text(d.ciRunId) ?? text(d.runId)) ? ` (run ${text(d.ciRunId) ?? text(d.runId)})` : ''}.${text(d.summary) ? ` ${text(d.summary)}` : ''}${link}`;
    case 'production.query.new':
      return `:new: New query in production in ${env}${text(d.hash) ? ` (\`${text(d.hash)}\`)` : ''}${text(d.query) ? `:\n\`\`\`${clip(text(d.query)!)}\`\`\`` : '.'}${link}`;
    case 'production.query.regressed':
      return `:chart_with_upwards_trend: A production query regressed in ${env}${text(d.hash) ? ` (\`${text(d.hash)}\`)` : ''}${text(d.summary) ? `: ${text(d.summary)}` : '.'}${link}`;
    case 'analysis.recommendation.new':
      return `:bulb: Analyze in ${env} recommends ${Array.isArray(d.indexes) ? `${d.indexes.length} new index${d.indexes.length === 1 ? '' : 'es'}` : 'new indexes'}${
        Array.isArray(d.indexes)
          ? `:\n${d.indexes
              .slice(0, 5)
              .map((i) => `• \`${clip(text((i as { createIndex?: unknown }).createIndex) ?? '')}\``)
              .join('\n')}`
          : '.'
      }${link}`;
    case 'webhook.test':
      return `:wave: Test from querytrail for ${env}: this webhook works.`;
  }
}

const clip = (value: string, max = 500) => (value.length > max ? `${value.slice(0, max)}…` : value);

/** The bytes sent: our payload as stored, or the Slack text made from it. */
export function requestBody(storedBody: string, slack: boolean): string {
  if (!slack) return storedBody;
  return JSON.stringify({ text: slackText(JSON.parse(storedBody) as WebhookPayload) });
}
