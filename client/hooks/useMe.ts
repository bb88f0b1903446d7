// Who is signed in, asked once at app start (GET /api/me) and shared by every page: the person
// (their instance role and their role on each environment), or null when no one is. Signed-out is
// data, not an error, so that it shows sign-in and not "something went wrong".
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { envRoleAtLeast, type EnvRole } from '../../shared/auth';
import { isUnauthorized } from '../lib/errors';
import { envRoleOf, ME_KEY, setCsrfToken, type Me } from '../lib/session';
import { trpc } from '../trpc';

export function useMeQuery() {
  const utils = trpc.useUtils();
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async ({ signal }): Promise<Me | null> => {
      try {
        const me = await utils.client.me.get.query(undefined, { signal });
        // set before any page renders, so the first change a page sends already carries it
        setCsrfToken(me.csrfToken);
        return me;
      } catch (error) {
        if (!isUnauthorized(error)) throw error;
        setCsrfToken(null);
        return null;
      }
    },
    staleTime: 30_000,
  });
}

/**
 * The signed-in person, provided by the session gate around the pages
 * (client/components/auth/SessionGate.tsx): 'loading' until /api/me answers; undefined outside the
 * gate (a component rendered alone, which then acts as the single-user app).
 */
export const MeContext = createContext<Me | 'loading' | undefined>(undefined);

/** The signed-in person, and whether who it is is still being asked. */
export function useMeState(): { me: Me | undefined; loading: boolean } {
  const value = useContext(MeContext);
  return value === 'loading' ? { me: undefined, loading: true } : { me: value, loading: false };
}

/** The signed-in person; undefined while loading and outside the gate. */
export const useMe = () => useMeState().me;

/**
 * The caller's role on an environment, and whether it reaches `needed`. Until who is asking is
 * known, no role: a control shows once it is known to be allowed, never before.
 */
export function useEnvAccess(envId: string | null | undefined) {
  const { me, loading } = useMeState();
  const role = loading ? undefined : envRoleOf(me, envId);
  return { role, can: (needed: EnvRole) => role !== undefined && envRoleAtLeast(role, needed) };
}
