// An environment's members and their roles: owner, editor, viewer.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { memberRefInput, memberSchema, setMemberInput } from '../../shared/auth';
import { envIdInput } from '../../shared/environments';
import { listMembers, removeMember, setMember } from '../domain/people';
import { listOutput, procedure } from '../trpc';

const TAG = ['Members'];

export const membersRouter = {
  list: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/members', tags: TAG, summary: "The environment's members and their roles" } })
    .input(envIdInput)
    .output(listOutput(memberSchema))
    .query(({ ctx, input }) => listMembers(ctx.store.db, input.id)),

  set: procedure
    .meta({
      openapi: { method: 'PUT', path: '/env/{id}/members/{email}', tags: TAG, summary: 'Give a person a role on the environment (owners)' },
    })
    .input(setMemberInput)
    .output(memberSchema)
    .mutation(({ ctx, input }) => setMember(ctx.store.db, input.id, input.email, input.role)),

  remove: procedure
    .meta({ openapi: { method: 'DELETE', path: '/env/{id}/members/{email}', tags: TAG, summary: 'Remove a member (owners)' }, successStatus: 204 })
    .input(memberRefInput)
    .output(z.void())
    .mutation(({ ctx, input }) => removeMember(ctx.store.db, input.id, input.email)),
} satisfies TRPCRouterRecord;
