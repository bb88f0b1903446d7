// The typed tRPC client: every call to the environments API goes through it. The router's type is
// the SPA's one import from server/ (a type only, erased from the bundle; eslint.config.js allows
// nothing else).
import { createTRPCReact, httpBatchLink, type CreateTRPCReact } from '@trpc/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/routers/root';

export const trpc: CreateTRPCReact<AppRouter, unknown> = createTRPCReact<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;

export function createTrpcClient(url = '/trpc') {
  return trpc.createClient({ links: [httpBatchLink({ url })] });
}
