// The data layer every page shares: TanStack Query, the typed tRPC client and the last sync.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { createTrpcClient, trpc } from './trpc';
import { SyncProvider } from './sync-context';

function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: 1 },
    },
  });
}

export function AppProviders({ children, trpcUrl = '/trpc' }: { children: ReactNode; trpcUrl?: string }) {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(() => createTrpcClient(trpcUrl));
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <SyncProvider>{children}</SyncProvider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}
