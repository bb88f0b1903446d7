// The typed tRPC client: every call to the environments API goes through it. The router's type is
// the SPA's one import from server/ (a type only, erased from the bundle; eslint.config.js allows
// nothing else).
import { createTRPCReact, httpBatchLink, type CreateTRPCReact } from '@trpc/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/routers/root';
import { sessionHeaders } from './lib/session';

export const trpc: CreateTRPCReact<AppRouter, unknown> = createTRPCReact<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** `fetchImpl`: component tests hand in one that carries their session's cookie. */
export function createTrpcClient(url = '/trpc', fetchImpl?: typeof fetch) {
  // the session's CSRF token rides on every request: the server refuses changes made with the cookie without it
  return trpc.createClient({ links: [httpBatchLink({ url, headers: sessionHeaders, fetch: fetchImpl })] });
}
