// The data layer every page shares: TanStack Query, the typed tRPC client and the last sync.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { isRefusal, isUnauthorized } from './lib/errors';
import { ME_KEY } from './lib/session';
import { ServerContext, serverBaseOf, type ServerAccess } from './server-context';
import { createTrpcClient, trpc } from './trpc';
import { SyncProvider } from './sync-context';

function createQueryClient() {
  // A 401 anywhere means the session ended (expired, or signed out in another tab): who is signed
  // in is asked again, and the app shows sign-in when no one is. The "me" query answers null for
  // a 401 rather than failing, so it never lands here.
  const sessionEnded = (error: unknown, key?: QueryKey) => {
    if (isUnauthorized(error) && key?.[0] !== ME_KEY[0]) void client.invalidateQueries({ queryKey: ME_KEY });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => sessionEnded(error, query.queryKey) }),
    mutationCache: new MutationCache({ onError: (error) => sessionEnded(error) }),
    defaultOptions: {
      // asking again does not change a 401, 403 or 404
      queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: (failures, error) => !isRefusal(error) && failures < 1 },
    },
  });
  return client;
}

/** `fetch`: component tests hand in one that carries their session's cookie; the browser sends its own. */
export function AppProviders({ children, trpcUrl = '/trpc', fetch }: { children: ReactNode; trpcUrl?: string; fetch?: typeof globalThis.fetch }) {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(() => createTrpcClient(trpcUrl, fetch));
  const [server] = useState<ServerAccess>(() => ({ base: serverBaseOf(trpcUrl), fetch: fetch ?? ((...args) => globalThis.fetch(...args)) }));
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <ServerContext.Provider value={server}>
          <SyncProvider>{children}</SyncProvider>
        </ServerContext.Provider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}
