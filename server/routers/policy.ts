// An environment's CI verdict policy and acknowledged queries.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { envIdInput } from '../../shared/environments';
import { acknowledgeInput, acknowledgementSchema, getPolicyInput, policySchema, unacknowledgeInput, updatePolicyInput } from '../../shared/policy';
import { acknowledgeQuery, getPolicy, listAcknowledgements, unacknowledgeQuery, updatePolicy } from '../domain/policy';
import { listOutput, procedure } from '../trpc';
import { actorOf } from '../auth/principal';

const TAG = ['Policy'];

export const policyRouter = {
  get: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/policy', tags: TAG, summary: "Read the environment's CI verdict policy" } })
    .input(getPolicyInput)
    .output(policySchema)
    .query(({ ctx, input }) => getPolicy(ctx.store.db, input.id)),

  update: procedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/env/{id}/policy',
        tags: TAG,
        summary: 'Change the CI verdict policy',
        description: 'Fields left out keep their value; conditions are merged one by one; ignoredHashes, when given, replaces the list.',
      },
    })
    .input(updatePolicyInput)
    .output(policySchema)
    .mutation(({ ctx, input: { id, ...patch } }) => updatePolicy(ctx.store.db, id, patch)),

  acknowledge: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/queries/{hash}/acknowledge',
        tags: TAG,
        summary: "Acknowledge a query's findings",
        description:
          "Its findings stay listed but stop counting toward verdicts until its cost moves by more than the policy's percentage " +
          'from its cost now. 201 when new, 200 when an earlier acknowledgement was replaced.',
      },
      successStatus: 201,
    })
    .input(acknowledgeInput)
    .output(acknowledgementSchema)
    .mutation(async ({ ctx, input }) => {
      const { acknowledgement, created } = await acknowledgeQuery(ctx.store.db, input, actorOf(ctx.principal!).name);
      if (!created) ctx.response.status = 200;
      return acknowledgement;
    }),

  unacknowledge: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/queries/{hash}/acknowledge', tags: TAG, summary: 'Undo an acknowledgement' },
      successStatus: 204,
    })
    .input(unacknowledgeInput)
    .output(z.void())
    .mutation(({ ctx, input }) => unacknowledgeQuery(ctx.store.db, input)),

  acknowledgements: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/acknowledgements', tags: TAG, summary: 'List acknowledged queries, the latest first' } })
    .input(envIdInput)
    .output(listOutput(acknowledgementSchema))
    .query(({ ctx, input }) => listAcknowledgements(ctx.store.db, input.id)),
} satisfies TRPCRouterRecord;
