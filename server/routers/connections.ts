// Database connections of an environment. The connection string is accepted, encrypted and never
// returned; reads show only its masked form.
import type { TRPCRouterRecord } from '@trpc/server';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { addConnectionInput, idOutput, removeConnectionInput } from '../../shared/environments';
import { maskConnectionString } from '../../shared/validation';
import { connections } from '../db/schema';
import { notFound } from '../errors';
import { newId } from '../ids';
import { publicProcedure } from '../trpc';
import { requireEnvironment } from './environments';

const TAG = ['Connections'];

export const connectionsRouter = {
  add: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/env/{id}/connections', tags: TAG, summary: 'Add a database connection' }, successStatus: 201 })
    .input(addConnectionInput)
    .output(idOutput)
    .mutation(async ({ ctx, input }) => {
      const id = newId('conn');
      await ctx.store.db.transaction(async (tx) => {
        await requireEnvironment(tx, input.id);
        await tx.insert(connections).values({
          id,
          environmentId: input.id,
          label: input.label,
          role: input.role,
          connectionStringEncrypted: ctx.secrets.encrypt(input.connectionString),
          maskedConnectionString: maskConnectionString(input.connectionString),
        });
      });
      return { id };
    }),

  remove: publicProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/connections/{connectionId}', tags: TAG, summary: 'Remove a database connection' },
      successStatus: 204,
    })
    .input(removeConnectionInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const deleted = await ctx.store.db
        .delete(connections)
        .where(and(eq(connections.id, input.connectionId), eq(connections.environmentId, input.id)))
        .returning({ id: connections.id });
      if (deleted.length === 0) {
        await requireEnvironment(ctx.store.db, input.id);
        throw notFound(`Connection ${input.connectionId}`);
      }
    }),
} satisfies TRPCRouterRecord;
