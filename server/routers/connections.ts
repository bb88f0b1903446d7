// Database connections of an environment; the connection string goes in and never comes out.
// Their schema filters (which schemas querytrail reads through them) are shown and changed.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { addConnectionInput, connectionSummary, idOutput, removeConnectionInput, updateConnectionInput } from '../../shared/environments';
import { addConnection, removeConnection, updateConnection } from '../domain/connections';
import { procedure } from '../trpc';

const TAG = ['Connections'];

export const connectionsRouter = {
  add: procedure
    .meta({ openapi: { method: 'POST', path: '/env/{id}/connections', tags: TAG, summary: 'Add a database connection' }, successStatus: 201 })
    .input(addConnectionInput)
    .output(idOutput)
    .mutation(({ ctx, input }) => addConnection(ctx.store.db, ctx.secrets, input)),

  update: procedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/env/{id}/connections/{connectionId}',
        tags: TAG,
        summary: "Change a connection's schema filters",
        description:
          'includeSchemas and excludeSchemas are lists of glob patterns (* any characters, ? one character, case-sensitive); a list left out keeps its value.',
      },
    })
    .input(updateConnectionInput)
    .output(connectionSummary)
    .mutation(({ ctx, input }) => updateConnection(ctx.store.db, input)),

  remove: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/connections/{connectionId}', tags: TAG, summary: 'Remove a database connection' },
      successStatus: 204,
    })
    .input(removeConnectionInput)
    .output(z.void())
    .mutation(({ ctx, input }) => removeConnection(ctx.store.db, input.id, input.connectionId)),
} satisfies TRPCRouterRecord;
