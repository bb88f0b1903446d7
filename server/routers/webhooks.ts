// An environment's webhooks: the URL and signing secret go in, only a masked URL comes out (the
// secret once, at creation); the delivery log.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { envIdInput } from '../../shared/environments';
import { createdWebhook, createWebhookInput, listDeliveriesInput, webhookDelivery, webhookRefInput, webhookSummary } from '../../shared/webhooks';
import { listOutput, procedure } from '../trpc';
import { addWebhook, listDeliveries, listWebhooks, removeWebhook, testWebhook } from '../webhooks/webhooks';

const TAG = ['Webhooks'];

export const webhooksRouter = {
  add: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/webhooks',
        tags: TAG,
        summary: 'Add a webhook',
        description: 'The URL is stored encrypted and never returned; the signing secret (generated when left out) is returned this once.',
      },
      successStatus: 201,
    })
    .input(createWebhookInput)
    .output(createdWebhook)
    .mutation(({ ctx, input }) => addWebhook(ctx, input)),

  list: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/webhooks', tags: TAG, summary: "List the environment's webhooks, URLs masked" } })
    .input(envIdInput)
    .output(listOutput(webhookSummary))
    .query(({ ctx, input }) => listWebhooks(ctx.store.db, input.id)),

  remove: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/webhooks/{webhookId}', tags: TAG, summary: 'Remove a webhook and its delivery log' },
      successStatus: 204,
    })
    .input(webhookRefInput)
    .output(z.void())
    .mutation(({ ctx, input }) => removeWebhook(ctx.store.db, input.id, input.webhookId)),

  test: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/webhooks/{webhookId}/test',
        tags: TAG,
        summary: 'Send a test event now',
        description: 'One attempt, no retries; answers with the delivery (delivered or failed, the status the receiver answered).',
      },
    })
    .input(webhookRefInput)
    .output(webhookDelivery)
    .mutation(({ ctx, input }) => testWebhook(ctx, input.id, input.webhookId)),

  deliveries: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/env/{id}/webhooks/deliveries',
        tags: TAG,
        summary: "The latest deliveries of the environment's webhooks, newest first",
      },
    })
    .input(listDeliveriesInput)
    .output(listOutput(webhookDelivery))
    .query(({ ctx, input }) => listDeliveries(ctx.store.db, input.id, input.limit)),
} satisfies TRPCRouterRecord;
