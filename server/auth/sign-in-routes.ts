// Sign-in through the identity provider, mounted at /auth after authentication (server/app.ts):
// GET /auth/login (to the provider), GET /auth/callback (back from it: the person's session
// starts), POST /auth/logout (this session, or with everywhere every session of the person) and
// GET /auth/config (what the SPA's sign-in page offers, readable by anyone). The protocol itself
// (discovery, state, nonce, PKCE, the code exchange) is server/auth/oidc-login.ts'; here are the
// browser's side of it (cookies, redirects) and who may sign in.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { isTeamMode, type AuthConfig } from '../config';
import { emailSchema, type signInOptionsSchema } from '../../shared/auth';
import { recordAudit } from '../audit/record';
import { upsertSignedInUser } from '../domain/people';
import { sendError } from '../../shared/errors';
import type { Services } from '../services-type';
import type { Authenticated } from './authenticate';
import type { Principal } from './principal';
import { hashSecret } from './secret-values';
import { clearSessionCookie, endEverySession, endSession, sessionIdOf, setSessionCookie, startSession } from './sessions';
import { beginSignIn, finishSignIn, SignInRefused, type SignedInClaims } from './oidc-login';

type OidcConfig = NonNullable<AuthConfig['oidc']>;

/**
 * The state of the sign-in this browser started, so that only this browser can finish it. Lax: the
 * provider's redirect back is a top-level navigation from its site, which Lax cookies go with.
 */
const attemptCookieName = (auth: AuthConfig) => (auth.publicUrl?.startsWith('https://') ? '__Host-querytrail_sign_in' : 'querytrail_sign_in');
const attemptCookieOptions = (auth: AuthConfig) => ({
  httpOnly: true,
  secure: auth.publicUrl?.startsWith('https://') ?? false,
  sameSite: 'lax' as const,
  path: '/',
});

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Who may sign in, by the claims the provider vouched for: an email (not one it says is unverified), OIDC_ALLOWED_DOMAINS, OIDC_ALLOWED_GROUPS. */
export function personOf(claims: SignedInClaims, oidc: OidcConfig): { email: string; name: string } {
  const email = emailSchema.safeParse(claims.email);
  if (!email.success)
    throw new SignInRefused(403, 'forbidden', 'The identity provider gave no email address for this account: querytrail knows people by email');
  if (claims.email_verified === false)
    throw new SignInRefused(403, 'forbidden', `The identity provider says ${email.data} is not verified: verify it there, then sign in again`);
  const domain = email.data.slice(email.data.lastIndexOf('@') + 1);
  if (oidc.allowedDomains.length && !oidc.allowedDomains.includes(domain)) {
    throw new SignInRefused(403, 'forbidden', `${email.data} may not sign in: only addresses at ${oidc.allowedDomains.join(', ')} may (OIDC_ALLOWED_DOMAINS)`);
  }
  if (oidc.allowedGroups.length) {
    const claimed = claims[oidc.groupsClaim];
    const groups = Array.isArray(claimed) ? claimed : typeof claimed === 'string' ? [claimed] : [];
    if (!groups.some((g) => oidc.allowedGroups.includes(String(g)))) {
      throw new SignInRefused(
        403,
        'forbidden',
        `${email.data} may not sign in: only members of ${oidc.allowedGroups.join(', ')} may (OIDC_ALLOWED_GROUPS, read from the "${oidc.groupsClaim}" claim)`,
      );
    }
  }
  const name = [claims.name, claims.preferred_username].find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim() ?? email.data;
  return { email: email.data, name: name.slice(0, 200) };
}

/** A browser's page load (not a script's request): it names HTML among what it accepts. */
const wantsPage = (req: Request) => /\btext\/html\b/.test(req.get('accept') ?? '');

/**
 * Runs an async handler; a SignInRefused becomes its answer (a person's browser is sent to the
 * sign-in page, which says why; a script gets the API's error body), anything else goes to the
 * app's last resort.
 */
const handle =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).catch((error: unknown) => {
      if (!(error instanceof SignInRefused)) return next(error);
      if (wantsPage(req) && !res.headersSent) return res.redirect(302, `/sign-in?error=${encodeURIComponent(error.message)}`);
      sendError(res, { status: error.status, code: error.code, message: error.message });
    });
  };

export function createSignInRouter(services: Services) {
  const { store } = services;
  const router = express.Router();
  // read at each request, not captured: the configuration object is the one the server holds
  const auth = () => services.config.auth;

  const requireOidc = (res: Response): OidcConfig | undefined => {
    const { oidc } = auth();
    if (!oidc) sendError(res, { status: 404, code: 'not_found', message: 'Sign-in is not configured on this server (no OIDC_ISSUER)' });
    return oidc;
  };

  router.get('/config', (_req, res) => {
    const options: z.infer<typeof signInOptionsSchema> = { mode: isTeamMode(services.config) ? 'team' : 'local', oidc: Boolean(auth().oidc) };
    res.setHeader('Cache-Control', 'no-store');
    res.json(options);
  });

  router.get(
    '/login',
    handle(async (req, res) => {
      const oidc = requireOidc(res);
      if (!oidc) return;
      const { url, state } = await beginSignIn(store.db, auth(), oidc, req.query.returnTo);
      res.cookie(attemptCookieName(auth()), state, { ...attemptCookieOptions(auth()), maxAge: 600_000 });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, url.href);
    }),
  );

  router.get(
    '/callback',
    handle(async (req, res) => {
      const oidc = requireOidc(res);
      if (!oidc) return;
      res.setHeader('Cache-Control', 'no-store');
      // one use, whatever the outcome
      const browserState = cookieValue(req, attemptCookieName(auth()));
      if (browserState !== undefined) res.clearCookie(attemptCookieName(auth()), attemptCookieOptions(auth()));
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const { claims, returnTo } = await finishSignIn(store.db, auth(), oidc, query, browserState);
      const person = personOf(claims, oidc);
      const user = await upsertSignedInUser(store.db, person, auth().adminEmails);
      // whatever session this browser had (or an id planted in it) ends here: sign-in always makes a new one
      const previous = sessionIdOf(req, auth());
      if (previous) await endSession(store.db, hashSecret(previous));
      const session = await startSession(store.db, auth(), user.id);
      const principal: Principal = {
        kind: 'person',
        userId: user.id,
        email: person.email,
        name: person.name,
        role: user.role,
        memberships: {},
        via: { session: { idHash: hashSecret(session.id), csrfToken: session.csrfToken } },
      };
      await recordAudit(store.db, { principal, sourceAddress: req.socket.remoteAddress, action: 'auth.sign-in', target: person.email });
      setSessionCookie(res, auth(), session.id);
      res.redirect(302, returnTo);
    }),
  );

  // CSRF: authenticate() has already refused a cookie-riding POST from another site
  router.post(
    '/logout',
    express.json({ limit: '1kb' }),
    handle(async (req, res) => {
      const principal = (res.locals as Authenticated).principal;
      if (principal?.kind !== 'person' || !('session' in principal.via)) {
        if (sessionIdOf(req, auth())) clearSessionCookie(res, auth());
        return sendError(res, { status: 401, code: 'unauthorized', message: 'Not signed in: there is no session to end' });
      }
      const body: unknown = req.body;
      const everywhere =
        req.query.everywhere === '1' ||
        req.query.everywhere === 'true' ||
        (typeof body === 'object' && body !== null && (body as { everywhere?: unknown }).everywhere === true);
      if (everywhere) await endEverySession(store.db, principal.userId);
      else await endSession(store.db, principal.via.session.idHash);
      await recordAudit(store.db, {
        principal,
        sourceAddress: req.socket.remoteAddress,
        action: everywhere ? 'auth.sign-out-everywhere' : 'auth.sign-out',
        target: principal.email,
      });
      clearSessionCookie(res, auth());
      res.status(204).end();
    }),
  );

  return router;
}
