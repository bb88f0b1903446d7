// Every page knows who is signed in. No one (a 401): the sign-in page, whatever the address, so
// that signing in comes back to it. In single-user mode the server answers its local admin and the
// pages show as they always did.
//
// The pages render while the answer is on its way rather than behind a spinner: /api/me travels in
// the same tRPC batch as their first queries, so they learn who is asking with their data, and a
// single-user app shows its first page at once as it always did. Until then the pages know it is
// loading (useMeState) and show no control that needs a role; a signed-out browser's batch is
// refused whole, so nothing of a page shows before sign-in does.
import { useState, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { MeContext, useMeQuery } from '../../hooks/useMe';
import { SignInPage } from '../../pages/SignInPage';
import { ErrorState } from '../States';

export function SessionGate({ children }: { children: ReactNode }) {
  const me = useMeQuery();
  const location = useLocation();
  // a person seen in this tab who is now gone: the session ended, unless they just signed out
  const [hadSession, setHadSession] = useState(false);
  if (me.data && me.data.mode === 'team' && !hadSession) setHadSession(true);

  if (me.data === undefined && me.isError) {
    return (
      <div className="page page-narrow">
        <ErrorState title="querytrail could not start" error={me.error} onRetry={() => me.refetch()} />
      </div>
    );
  }
  if (me.data === null) {
    const signedOut = (location.state as { signedOut?: boolean } | null)?.signedOut === true;
    return <SignInPage notice={signedOut ? 'signed-out' : hadSession ? 'session-ended' : undefined} />;
  }
  return <MeContext.Provider value={me.data ?? 'loading'}>{children}</MeContext.Provider>;
}
