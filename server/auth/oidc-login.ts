// Sign-in through an OpenID provider with openid-client: discovery (once per process), the
// authorization request (state, nonce and a PKCE verifier, all random per attempt) and, when the
// provider sends the person back, the code exchanged and the ID token checked. Attempts are kept in
// the store (sign_in_attempts) rather than in memory, so that any server of a shared store can
// finish one another server started; the state is kept there only as its SHA-256. The browser that
// started the attempt holds the state in a cookie too (server/auth/sign-in-routes.ts), and only that
// browser may finish it: a sign-in link made by someone else cannot sign a person into their account.
import * as client from 'openid-client';
import { eq, lt, sql } from 'drizzle-orm';
import type { AuthConfig } from '../config';
import { signInAttempts } from '../db/schema';
import type { Db } from '../db/store';
import { hashSecret, sameSecret } from './secret-values';
import { isPlainLine } from '../../shared/validation';

type OidcConfig = NonNullable<AuthConfig['oidc']>;

/** An attempt older than this is refused: people type a password, they do not take a coffee break on the provider's page. */
const ATTEMPT_MAX_SECONDS = 600;

/** Sign-in cannot go on; `status` and `code` are what the person's browser is answered. */
export class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 502,
    readonly code: 'validation_failed' | 'unauthorized' | 'forbidden' | 'upstream_unavailable',
    message: string,
  ) {
    super(message);
  }
}

// The provider's metadata and keys are read once per process; a failed discovery is not kept, so
// the next sign-in tries again.
const discovered = new Map<string, Promise<client.Configuration>>();

function providerConfiguration(oidc: OidcConfig): Promise<client.Configuration> {
  const key = JSON.stringify([oidc.issuer, oidc.clientId, oidc.clientSecret]);
  let found = discovered.get(key);
  if (!found) {
    found = discover(oidc);
    discovered.set(key, found);
    found.catch(() => discovered.delete(key));
  }
  return found;
}

async function discover(oidc: OidcConfig): Promise<client.Configuration> {
  const issuer = new URL(oidc.issuer);
  // config.ts admits http only on loopback (a provider run beside the server, as in tests)
  const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
  try {
    // client_secret_basic is what the spec assumes when a provider names no method; post otherwise
    const probe = await client.discovery(issuer, oidc.clientId, undefined, client.None(), { execute });
    const methods = probe.serverMetadata().token_endpoint_auth_methods_supported;
    const auth = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(oidc.clientSecret) : client.ClientSecretPost(oidc.clientSecret);
    const configuration = new client.Configuration(probe.serverMetadata(), oidc.clientId, oidc.clientSecret, auth);
    for (const run of execute) run(configuration);
    return configuration;
  } catch (error) {
    throw new SignInRefused(
      502,
      'upstream_unavailable',
      `The identity provider ${oidc.issuer} could not be reached or did not answer as an OpenID provider: ${(error as Error).message}`,
    );
  }
}

/** Only a path of this server: "/x?y" yes; "//evil.example", "/\evil.example", "https://..." no (they would leave the site). */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/';
  // back to /auth/login would start over, and the provider, remembering the person, would send them back: a loop
  if (/^\/auth(\/|$)/i.test(value)) return '/';
  return /^\/(?![/\\])[^\\\s]*$/.test(value) && isPlainLine(value) ? value : '/';
}

export const redirectUri = (auth: AuthConfig) => `${auth.publicUrl}/auth/callback`;

/** Starts a sign-in: stores the attempt and answers the provider's URL to send the browser to, and the state the browser keeps. */
export async function beginSignIn(db: Db, auth: AuthConfig, oidc: OidcConfig, returnTo: unknown): Promise<{ url: URL; state: string }> {
  const configuration = await providerConfiguration(oidc);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  // a good moment to drop attempts nobody finished
  await db.delete(signInAttempts).where(lt(signInAttempts.createdAt, sql`now() - make_interval(secs => ${ATTEMPT_MAX_SECONDS})`));
  await db.insert(signInAttempts).values({ stateHash: hashSecret(state), nonce, codeVerifier, returnTo: safeReturnTo(returnTo) });
  // OIDC_SCOPES, or by default groups only when they decide who may sign in: some providers refuse a scope they do not know
  const scope = oidc.scopes.join(' ');
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri(auth),
    scope,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url, state };
}

/** What the provider vouched for, from the ID token, completed from userinfo when the token lacks it. */
export interface SignedInClaims {
  [claim: string]: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  preferred_username?: unknown;
  groups?: unknown;
}

/**
 * Finishes a sign-in from the provider's redirect (`query` is the callback's query string;
 * `browserState` the state the browser kept when it started): the attempt is taken out of the
 * store in the statement that finds it (so a state works once), the code exchanged with its PKCE
 * verifier, and the ID token checked (signature, issuer, audience, expiry, nonce). Throws
 * SignInRefused for anything wrong.
 */
export async function finishSignIn(
  db: Db,
  auth: AuthConfig,
  oidc: OidcConfig,
  query: string,
  browserState: string | undefined,
): Promise<{ claims: SignedInClaims; returnTo: string }> {
  const params = new URLSearchParams(query);
  const state = params.get('state');
  if (!state) throw new SignInRefused(400, 'validation_failed', 'Sign-in answer without a state: start again from the sign-in page');
  if (!browserState || !sameSecret(state, browserState)) {
    throw new SignInRefused(
      400,
      'validation_failed',
      'This sign-in state is not the one this browser started with (or it was started in another browser or tab): start again from the sign-in page',
    );
  }
  const [attempt] = await db
    .delete(signInAttempts)
    .where(eq(signInAttempts.stateHash, hashSecret(state)))
    .returning({
      nonce: signInAttempts.nonce,
      codeVerifier: signInAttempts.codeVerifier,
      returnTo: signInAttempts.returnTo,
      fresh: sql<boolean>`${signInAttempts.createdAt} > now() - make_interval(secs => ${ATTEMPT_MAX_SECONDS})`,
    });
  if (!attempt) throw new SignInRefused(400, 'validation_failed', 'Unknown or already used sign-in state: start again from the sign-in page');
  if (!attempt.fresh) throw new SignInRefused(400, 'validation_failed', 'This sign-in was started more than 10 minutes ago: start again from the sign-in page');

  const configuration = await providerConfiguration(oidc);
  // the redirect URI sent to the token endpoint must be the registered one, whatever Host the request came with
  const currentUrl = new URL(redirectUri(auth));
  currentUrl.search = params.toString();
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedState: state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw new SignInRefused(401, 'unauthorized', `Sign-in refused: ${describe(error)}`);
  }
  const idClaims = tokens.claims()!;
  let claims: SignedInClaims = idClaims;
  // many providers put only `sub` in the ID token when an access token comes with it; the rest is at userinfo
  if (
    (idClaims.email === undefined || (oidc.allowedGroups.length && idClaims[oidc.groupsClaim] === undefined)) &&
    configuration.serverMetadata().userinfo_endpoint
  ) {
    try {
      const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      claims = { ...userinfo, ...idClaims };
    } catch (error) {
      throw new SignInRefused(401, 'unauthorized', `Sign-in refused: the identity provider's userinfo could not be read (${describe(error)})`);
    }
  }
  return { claims, returnTo: safeReturnTo(attempt.returnTo) };
}

/** openid-client's errors, said plainly: the provider's own error and description when it gave one. */
function describe(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) {
    return `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  }
  // openid-client wraps the check that failed (which claim, which value) as the cause
  const cause = (error as Error).cause;
  return `${(error as Error).message}${cause instanceof Error && cause.message !== (error as Error).message ? `: ${cause.message}` : ''}`;
}
