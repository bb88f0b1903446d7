// Where the querytrail server is, for the requests that are not tRPC calls (/auth/config, sign-out).
// In the browser that is the page's own origin; component tests point it at a server of their own
// and may hand in the fetch that carries their session.
import { createContext, useContext } from 'react';

export interface ServerAccess {
  /** The server's address without a trailing slash ('' for the page's own origin). */
  base: string;
  fetch: typeof fetch;
}

export const ServerContext = createContext<ServerAccess>({ base: '', fetch: (...args) => fetch(...args) });

export const useServer = () => useContext(ServerContext);

/** The server's address from its tRPC endpoint: '/trpc' → '', 'http://host:1/trpc' → 'http://host:1'. */
export const serverBaseOf = (trpcUrl: string) => trpcUrl.replace(/\/trpc\/?$/, '');
