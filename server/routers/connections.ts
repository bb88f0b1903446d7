// Database connections of an environment; the connection string goes in and never comes out.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { addConnectionInput, idOutput, removeConnectionInput } from '../../shared/environments';
import { addConnection, removeConnection } from '../domain/connections';
import { procedure } from '../trpc';

const TAG = ['Connections'];

export const connectionsRouter = {
  add: procedure
    .meta({ openapi: { method: 'POST', path: '/env/{id}/connections', tags: TAG, summary: 'Add a database connection' }, successStatus: 201 })
    .input(addConnectionInput)
    .output(idOutput)
    .mutation(({ ctx, input }) => addConnection(ctx.store.db, ctx.secrets, input)),

  remove: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/connections/{connectionId}', tags: TAG, summary: 'Remove a database connection' },
      successStatus: 204,
    })
    .input(removeConnectionInput)
    .output(z.void())
    .mutation(({ ctx, input }) => removeConnection(ctx.store.db, input.id, input.connectionId)),
} satisfies TRPCRouterRecord;
