// Who am I, and the instance's people (admins): GET /api/me, /api/users.
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { meSchema, setUserRoleInput, userSummary } from '../../shared/auth';
import { listUsers, setUserRole } from '../domain/people';
import { isTeamMode } from '../config';
import { unauthorized } from '../errors';
import { listOutput, procedure } from '../trpc';
import type { Context } from '../context';

const TAG = ['People'];

function me(ctx: Context): z.infer<typeof meSchema> {
  const p = ctx.principal;
  const mode = isTeamMode(ctx.config) ? 'team' : 'local';
  switch (p?.kind) {
    case 'local':
      return { email: 'local', name: 'Local user', role: 'admin', mode, memberships: {}, csrfToken: null, via: 'local' };
    case 'break-glass':
      return { email: 'API_TOKEN', name: 'Break-glass admin (API_TOKEN)', role: 'admin', mode, memberships: {}, csrfToken: null, via: 'api-token' };
    case 'person':
      return {
        email: p.email,
        name: p.name,
        role: p.role,
        mode,
        memberships: p.memberships,
        csrfToken: 'session' in p.via ? p.via.session.csrfToken : null,
        via: 'session' in p.via ? 'session' : 'token',
      };
    default:
      throw unauthorized();
  }
}

export const meRouter = {
  get: procedure
    .meta({ openapi: { method: 'GET', path: '/me', tags: TAG, summary: 'Who is signed in: email, name, role (401 when no one is)' } })
    .input(z.object({}).optional())
    .output(meSchema)
    .query(({ ctx }) => me(ctx)),

  users: procedure
    .meta({ openapi: { method: 'GET', path: '/users', tags: TAG, summary: 'Every person and their instance role (admins)' } })
    .input(z.object({}).optional())
    .output(listOutput(userSummary))
    .query(({ ctx }) => listUsers(ctx.store.db)),

  setUserRole: procedure
    .meta({ openapi: { method: 'PUT', path: '/users/{email}', tags: TAG, summary: "Set a person's instance role: admin or member (admins)" } })
    .input(setUserRoleInput)
    .output(z.object({ email: z.string(), role: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await setUserRole(ctx.store.db, input.email, input.role);
      return { email: input.email, role: input.role };
    }),
} satisfies TRPCRouterRecord;
