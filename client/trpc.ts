// The typed tRPC client: every call to the environments API goes through it.
import { createTRPCReact, httpBatchLink, type CreateTRPCReact } from '@trpc/react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/routers/root';

export const trpc: CreateTRPCReact<AppRouter, unknown> = createTRPCReact<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;

export function createTrpcClient(url = '/trpc') {
  return trpc.createClient({ links: [httpBatchLink({ url })] });
}
