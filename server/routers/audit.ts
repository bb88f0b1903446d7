// The audit log: who changed what, when, from where.
import type { TRPCRouterRecord } from '@trpc/server';
import { auditEntrySchema, auditInput } from '../../shared/auth';
import { readAudit } from '../audit/read';
import { listOutput, procedure } from '../trpc';
import { rowsWithTotal } from './paging';

const TAG = ['Audit'];

export const auditRouter = {
  list: procedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/audit',
        tags: TAG,
        summary: "The audit log, newest first: admins read all of it, owners their environments' entries",
        description: 'The total number of matching entries is in the X-Total-Count header.',
      },
    })
    .input(auditInput)
    .output(listOutput(auditEntrySchema))
    .query(async ({ ctx, input }) => rowsWithTotal(ctx, await readAudit(ctx.store.db, { ...input, environments: ctx.visibleEnvironments('owner') }))),
} satisfies TRPCRouterRecord;
