// A real OpenID provider for tests (oidc-provider), on a free loopback port over plain http: it
// signs ID tokens with RS256, requires PKCE of its client, serves email, email_verified, name and
// groups from the accounts it was given, and signs people in through its standard development
// pages (a form with `login` and `password`, then a consent form), which the API tests below drive
// with fetch and the browser tests drive in Chromium. Also: signInWithFetch, the whole sign-in of
// one person to a querytrail server, as a browser would make it.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
// @ts-expect-error: oidc-provider ships no type declarations (and @types/oidc-provider is not installed)
import { Provider } from 'oidc-provider';

export interface TestAccount {
  email: string;
  name?: string;
  groups?: string[];
  /** Sent as email_verified; true when omitted. */
  emailVerified?: boolean;
}

export interface OidcProviderOptions {
  clientId?: string;
  clientSecret?: string;
  redirectUris: string[];
  accounts: TestAccount[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/** What of oidc-provider's account model is used: an account id (the email) and its claims. */
interface Account {
  accountId: string;
  claims(): Promise<Record<string, unknown>>;
}

/** A free port on loopback, for a server whose address must be known before it starts (PUBLIC_URL, redirect URIs). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? 'querytrail-test';
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const accounts = new Map(options.accounts.map((a) => [a.email, a]));

  // listening first: the issuer names the port, and the provider is made with its issuer
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signingKey = {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: 'test-rs256',
    alg: 'RS256',
    use: 'sig',
  };
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // a confidential client need not use PKCE by default; this one must, so a client that skips it fails here
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    features: { devInteractions: { enabled: true } },
    // lifetimes set (rather than the defaults) so the provider does not print a notice for each
    ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    // the development login form accepts any login: the account is the login typed, if it is one of ours
    findAccount: (_ctx: unknown, sub: string): Account | undefined => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          ...(account.name ? { name: account.name } : {}),
          ...(account.groups ? { groups: account.groups } : {}),
        }),
      };
    },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Cookies as a browser keeps them, one jar per origin (paths and expiry dates beyond "deleted" are not needed here). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string | undefined {
    const jar = this.byOrigin.get(new URL(url).origin);
    if (!jar || jar.size === 0) return undefined;
    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  store(url: string, response: Response) {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()));
      if (gone || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }

  set(url: string, name: string, value: string) {
    const origin = new URL(url).origin;
    if (!this.byOrigin.has(origin)) this.byOrigin.set(origin, new Map());
    this.byOrigin.get(origin)!.set(name, value);
  }
}

/** One request as a browser makes it: the jar's cookies sent, its Set-Cookie kept, redirects not followed. */
export async function browse(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const cookie = jar.header(url);
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  jar.store(url, response);
  return response;
}

/** The provider's development pages hold one form: where it posts and which prompt it answers. */
function formOf(html: string): { action: string; prompt: string } | undefined {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
  return action && prompt ? { action: action.replace(/&amp;/g, '&'), prompt } : undefined;
}

/**
 * From GET /auth/login to the provider's redirect back: follows redirects, signs in as `email` on
 * the login form (any password), accepts the consent form. Answers the callback URL the browser
 * would be sent to, not yet requested, so that a test may use it as it likes (twice, altered...).
 */
export async function authorizeWithFetch(
  serverUrl: string,
  email: string,
  options: { jar?: CookieJar; returnTo?: string } = {},
): Promise<{ callbackUrl: string; jar: CookieJar }> {
  const jar = options.jar ?? new CookieJar();
  const callbackPrefix = `${serverUrl}/auth/callback`;
  let url = `${serverUrl}/auth/login${options.returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(options.returnTo)}`}`;
  let init: Parameters<typeof browse>[2] = {};
  let logins = 0;
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(callbackPrefix)) return { callbackUrl: url, jar };
    const response = await browse(jar, url, init);
    init = {};
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location')!, url).href;
      continue;
    }
    const html = await response.text();
    const form = response.status === 200 ? formOf(html) : undefined;
    if (!form) throw new Error(`Sign-in stopped at ${url}: ${response.status} ${html.slice(0, 500)}`);
    // the development login form comes back when the login typed is no account of the provider's
    if (form.prompt === 'login' && ++logins > 1) throw new Error(`The test provider has no account ${email}`);
    url = new URL(form.action, url).href;
    init = { method: 'POST', form: form.prompt === 'login' ? { prompt: 'login', login: email, password: 'any password' } : { prompt: form.prompt } };
  }
  throw new Error(`Sign-in of ${email} did not come back to ${callbackPrefix}`);
}

/** The querytrail session cookie's name on a server without https (PUBLIC_URL http://...). */
export const SESSION_COOKIE = 'querytrail_session';

/**
 * A person's whole sign-in with plain fetch, as a browser would make it: answers the querytrail
 * session cookie (name=value, ready for a Cookie header) and the CSRF token GET /api/me gives.
 */
export async function signInWithFetch(
  serverUrl: string,
  provider: Pick<TestOidcProvider, 'issuer'>,
  email: string,
  options: { jar?: CookieJar; returnTo?: string } = {},
): Promise<{ cookie: string; csrfToken: string; jar: CookieJar }> {
  const { callbackUrl, jar } = await authorizeWithFetch(serverUrl, email, options);
  const back = await browse(jar, callbackUrl);
  if (back.status !== 302) throw new Error(`Sign-in of ${email} at ${provider.issuer} refused: ${back.status} ${await back.text()}`);
  const session = jar.get(serverUrl, SESSION_COOKIE);
  if (!session) throw new Error(`Sign-in of ${email} set no ${SESSION_COOKIE} cookie`);
  const cookie = `${SESSION_COOKIE}=${session}`;
  const me = await fetch(`${serverUrl}/api/me`, { headers: { cookie } });
  if (me.status !== 200) throw new Error(`GET /api/me after sign-in answered ${me.status}: ${await me.text()}`);
  const { csrfToken } = (await me.json()) as { csrfToken: string };
  return { cookie, csrfToken, jar };
}
