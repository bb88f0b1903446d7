// Personal access tokens (/api/tokens) and an environment's CI tokens (/api/env/{id}/ci-tokens).
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { ciTokenRefInput, createCiTokenInput, createdTokenSchema, createTokenInput, tokenIdInput, tokenSummary } from '../../shared/auth';
import { envIdInput } from '../../shared/environments';
import { actorOf, isAdmin } from '../auth/principal';
import { createCiToken, createPersonalToken, listCiTokens, listPersonalTokens, revokeCiToken, revokePersonalToken } from '../domain/tokens';
import { forbidden } from '../errors';
import { listOutput, procedure } from '../trpc';
import type { Context } from '../context';

const TAG = ['Tokens'];

/** The person a personal-token call is about; admins' lists and revocations reach everyone's (null). */
function tokenOwner(ctx: Context): { userId: string; email: string } | null {
  const p = ctx.principal;
  if (p?.kind === 'person') return { userId: p.userId, email: p.email };
  if (p && isAdmin(p)) return null;
  throw forbidden('Only a person has personal tokens');
}

export const tokensRouter = {
  create: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/tokens',
        tags: TAG,
        summary: 'Make a personal access token (shown this once)',
        description: 'The token acts as you, limited to its scopes: read (GET and tRPC queries) and write (changes).',
      },
      successStatus: 201,
    })
    .input(createTokenInput)
    .output(createdTokenSchema)
    .mutation(({ ctx, input }) => {
      const owner = tokenOwner(ctx);
      if (!owner) throw forbidden('Sign in to make a personal token: the API_TOKEN acts as no person');
      return createPersonalToken(ctx.store.db, owner, input);
    }),

  list: procedure
    .meta({ openapi: { method: 'GET', path: '/tokens', tags: TAG, summary: "Your personal tokens (admins: everyone's), never the tokens themselves" } })
    .input(z.object({}).optional())
    .output(listOutput(tokenSummary))
    .query(({ ctx }) => {
      const p = ctx.principal;
      return listPersonalTokens(ctx.store.db, p && isAdmin(p) ? null : tokenOwner(ctx)!.userId);
    }),

  revoke: procedure
    .meta({ openapi: { method: 'DELETE', path: '/tokens/{id}', tags: TAG, summary: 'Revoke a personal token: it stops working at once' }, successStatus: 204 })
    .input(tokenIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => {
      const p = ctx.principal;
      return revokePersonalToken(ctx.store.db, input.id, p && isAdmin(p) ? null : tokenOwner(ctx)!.userId);
    }),
} satisfies TRPCRouterRecord;

export const ciTokensRouter = {
  create: procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/env/{id}/ci-tokens',
        tags: TAG,
        summary: 'Make a CI token for the environment (shown this once)',
        description: "Its only power: post runs of the environment's linked repositories (POST /api/ci/runs) and read those runs and their verdicts.",
      },
      successStatus: 201,
    })
    .input(createCiTokenInput)
    .output(createdTokenSchema)
    .mutation(({ ctx, input }) => createCiToken(ctx.store.db, input.id, input.name, actorOf(ctx.principal!).name)),

  list: procedure
    .meta({ openapi: { method: 'GET', path: '/env/{id}/ci-tokens', tags: TAG, summary: "The environment's CI tokens, never the tokens themselves" } })
    .input(envIdInput)
    .output(listOutput(tokenSummary))
    .query(({ ctx, input }) => listCiTokens(ctx.store.db, input.id)),

  revoke: procedure
    .meta({
      openapi: { method: 'DELETE', path: '/env/{id}/ci-tokens/{tokenId}', tags: TAG, summary: 'Revoke a CI token: it stops working at once' },
      successStatus: 204,
    })
    .input(ciTokenRefInput)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeCiToken(ctx.store.db, input.id, input.tokenId)),
} satisfies TRPCRouterRecord;
