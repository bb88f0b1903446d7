// Sign-in, shown at /sign-in and in place of any page while no one is signed in. Signing in is the
// identity provider's: the server starts it at /auth/login and brings the person back to the page
// they asked for. A team server without one (API_TOKEN only) takes tokens, not browsers.
import { useQuery } from '@tanstack/react-query';
import { useLocation, useSearchParams } from 'react-router-dom';
import { signInOptionsSchema } from '../../shared/auth';
import { Loading } from '../components/States';
import { messageOf } from '../lib/errors';
import { safeReturnPath, signInHref } from '../lib/session';
import { useServer } from '../server-context';

export type SignInNotice = 'signed-out' | 'session-ended';

const NOTICES: Record<SignInNotice, string> = {
  'signed-out': 'You are signed out.',
  'session-ended': 'Your session ended. Sign in again to carry on where you were.',
};

function useSignInOptions() {
  const { base, fetch } = useServer();
  return useQuery({
    queryKey: ['auth-config'],
    queryFn: async ({ signal }) => {
      const response = await fetch(`${base}/auth/config`, { signal, headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`The server did not say how to sign in (HTTP ${response.status}).`);
      return signInOptionsSchema.parse(await response.json());
    },
    staleTime: Infinity,
  });
}

/** Team mode without an identity provider: browsers cannot sign in, tokens still work. */
function TokensOnly() {
  return (
    <div className="callout callout-warning">
      <p className="callout-title">This server takes API tokens only.</p>
      <p>
        No identity provider is configured, so there is no sign-in for browsers. An admin must configure one (<code>OIDC_ISSUER</code>,{' '}
        <code>OIDC_CLIENT_ID</code>, <code>OIDC_CLIENT_SECRET</code> and <code>PUBLIC_URL</code>) for people to sign in here.
      </p>
      <p className="muted small">
        Scripts and CI keep working: they send <code>Authorization: Bearer &lt;token&gt;</code> to <code>/api</code>.
      </p>
    </div>
  );
}

export function SignInPage({ notice }: { notice?: SignInNotice }) {
  const { base } = useServer();
  const location = useLocation();
  const [params] = useSearchParams();
  const options = useSignInOptions();
  const atSignIn = location.pathname === '/sign-in';
  // at /sign-in, the page asked for before; anywhere else, this very page
  const returnTo = atSignIn ? safeReturnPath(params.get('returnTo')) : `${location.pathname}${location.search}${location.hash}`;
  // the server sends people back here with ?error= when the identity provider's answer was refused
  const refusal = atSignIn ? params.get('error') : null;

  return (
    <div className="page page-narrow sign-in">
      <section className="card sign-in-card" aria-labelledby="sign-in-heading">
        <h1 id="sign-in-heading">Sign in to querytrail</h1>
        <p className="lead">This querytrail server is shared by a team: sign in to see its environments, CI runs and query catalogs.</p>
        {notice ? (
          <p className="callout" role="status">
            {NOTICES[notice]}
          </p>
        ) : null}
        {refusal ? (
          <div className="callout callout-danger" role="alert">
            <p className="callout-title">Sign-in did not work</p>
            <p className="callout-message">{refusal}</p>
          </div>
        ) : null}
        {options.isPending ? (
          <Loading label="Reading the sign-in options…" />
        ) : options.data && !options.data.oidc ? (
          <TokensOnly />
        ) : (
          <>
            {/* a full page load, not a route: the identity provider's pages are another site */}
            <p className="form-actions sign-in-actions">
              <a className="button button-primary" href={signInHref(base, returnTo)}>
                Sign in with your identity provider
              </a>
            </p>
            {options.isError ? <p className="muted small">{messageOf(options.error)}</p> : null}
          </>
        )}
      </section>
    </div>
  );
}
