// Sign-in with OpenID Connect, end to end: a real OpenID provider (test/support/oidc-provider.ts),
// the real server over HTTP, the browser's part played by fetch with a cookie jar. What a person
// notices: who they are after signing in, that a forged or replayed sign-in gets nowhere, that the
// domain and group restrictions hold, that signing out (here or everywhere) ends their sessions,
// that sessions expire, and that any server of a shared store knows them. On PGlite and on a real
// PostgreSQL server; the admin CLI at the end.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { eq, sql } from 'drizzle-orm';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, testConfig, type Backend, type TestServer } from '../../test/support/services';
import {
  authorizeWithFetch,
  browse,
  CookieJar,
  freePort,
  SESSION_COOKIE,
  signInWithFetch,
  startOidcProvider,
  type TestAccount,
  type TestOidcProvider,
} from '../../test/support/oidc-provider';
import { requestJson } from '../../test/support/api';
import { readConfig, type AuthConfig } from '../config';
import { openStore } from '../db/store';
import { lockFolder } from '../db/folder-lock';
import { auditLog, sessions, signInAttempts, users } from '../db/schema';
import { createSecrets } from '../secrets';
import { withJobs } from '../services';
import { clearSessionCookie, sessionCookieName, sessionIdOf, setSessionCookie } from './sessions';
import { safeReturnTo } from './oidc-login';

afterAll(stopTestPostgres);

const ACCOUNTS: TestAccount[] = [
  { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['querytrail-users'] },
  { email: 'bob@example.com', name: 'Bob Builder' },
  { email: 'nameless@example.com' },
  { email: 'eve@elsewhere.org', name: 'Eve' },
  { email: 'unverified@example.com', name: 'Unverified', emailVerified: false },
];

type OidcOptions = Partial<Pick<NonNullable<AuthConfig['oidc']>, 'allowedDomains' | 'allowedGroups'>>;

interface SignInStand {
  server: TestServer;
  provider: TestOidcProvider;
}

/** A provider and a server whose PUBLIC_URL is its own address (the redirect URI the provider knows). */
async function startStand(backend: Backend, oidc: OidcOptions = {}): Promise<SignInStand & { close(): Promise<void> }> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider({ redirectUris: [`${publicUrl}/auth/callback`], accounts: ACCOUNTS });
  const auth: AuthConfig = {
    ...readConfig({}).auth,
    publicUrl,
    adminEmails: ['ada@example.com'],
    oidc: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: [],
      allowedGroups: [],
      scopes: ['openid', 'email', 'profile', ...(oidc.allowedGroups?.length ? ['groups'] : [])],
      groupsClaim: 'groups',
      ...oidc,
    },
  };
  try {
    const server = await startTestServer(await openTestServices(backend, { auth }), { port });
    return { server, provider, close: () => server.close().finally(() => provider.close()) };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

/** A stand of its own (other restrictions than the shared one's), closed after the test. */
async function standForThisTest(backend: Backend, oidc: OidcOptions): Promise<SignInStand> {
  const stand = await startStand(backend, oidc);
  onTestFinished(() => stand.close());
  return stand;
}

const me = (server: TestServer, cookie: string) => requestJson(`${server.url}/api/me`, { headers: { cookie } });

/** POST /auth/logout as the SPA sends it: the page's Origin and the CSRF token. */
const signOut = (server: TestServer, session: { cookie: string; csrfToken: string }, json?: unknown, query = '') =>
  requestJson(`${server.url}/auth/logout${query}`, {
    method: 'POST',
    json,
    headers: { cookie: session.cookie, origin: server.url, 'x-csrf-token': session.csrfToken },
  });

const count = async (server: TestServer, table: typeof sessions | typeof users | typeof signInAttempts) =>
  Number((await server.services.store.db.select({ n: sql<number>`count(*)` }).from(table))[0]!.n);

const stateOf = (url: string) => new URL(url).searchParams.get('state')!;

/** The sign-in cookie that ties an attempt to the browser that started it (http PUBLIC_URL). */
const ATTEMPT_COOKIE = 'querytrail_sign_in';

/** The provider's redirect back, opened in the browser `jar` stands for: the answer, and the session cookie it set if any. */
async function callback(jar: CookieJar, url: string) {
  const response = await browse(jar, url);
  const text = await response.text();
  const session = response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const json = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, body: (json ? JSON.parse(text) : undefined) as any, session, location: response.headers.get('location') };
}

describe.each(BACKENDS)('sign-in with OpenID Connect on %s', (backend) => {
  // one provider and server for the tests that need no restriction of their own; each test starts
  // from an empty store of people, sessions, attempts and audit entries
  let shared: Awaited<ReturnType<typeof startStand>> | undefined;
  const stand = () => shared!;
  beforeAll(async () => {
    shared = await startStand(backend);
  });
  afterAll(() => shared?.close());
  beforeEach(async () => {
    const { db } = stand().server.services.store;
    for (const table of [sessions, users, signInAttempts, auditLog]) await db.delete(table);
  });

  it('signs a person in: an HttpOnly, SameSite=Lax cookie, /api/me names them, ADMIN_EMAILS decides admin', async () => {
    const { server, provider } = stand();
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'ada@example.com', { returnTo: '/env/abc?tab=queries' });
    const back = await browse(jar, callbackUrl);
    expect(back.status, await back.clone().text()).toBe(302);
    expect(back.headers.get('location')).toBe('/env/abc?tab=queries');
    const [setCookie] = back.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).toMatch(/; Path=\/(;|$)/);
    expect(setCookie).not.toMatch(/; Secure/i);
    expect(setCookie).not.toMatch(/; Domain=/i);
    const cookie = `${SESSION_COOKIE}=${jar.get(server.url, SESSION_COOKIE)}`;
    const ada = await me(server, cookie);
    expect(ada.status).toBe(200);
    expect(ada.body).toMatchObject({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'admin',
      mode: 'team',
      via: 'session',
      csrfToken: expect.any(String),
    });
    // the attempt is gone once used; the sign-in is in the audit log
    expect(await count(server, signInAttempts)).toBe(0);
    const [entry] = await server.services.store.db.select().from(auditLog).where(eq(auditLog.action, 'auth.sign-in'));
    expect(entry).toMatchObject({ actorKind: 'user', actor: 'ada@example.com', target: 'ada@example.com' });

    const bob = await signInWithFetch(server.url, provider, 'bob@example.com');
    expect((await me(server, bob.cookie)).body).toMatchObject({ email: 'bob@example.com', name: 'Bob Builder', role: 'member' });
    // no name from the provider: the email stands in
    const nameless = await signInWithFetch(server.url, provider, 'nameless@example.com');
    expect((await me(server, nameless.cookie)).body).toMatchObject({ email: 'nameless@example.com', name: 'nameless@example.com', role: 'member' });
  });

  it('sends a person back only to a page of this server', async () => {
    const { server } = stand();
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '/auth/login']) {
      const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com', { returnTo });
      const back = await browse(jar, callbackUrl);
      expect(back.status).toBe(302);
      expect(back.headers.get('location'), returnTo).toBe('/');
    }
  });

  it('gives a new session id at sign-in: a planted id is not promoted, and a previous session of the browser ends', async () => {
    const { server, provider } = stand();
    const jar = new CookieJar();
    const planted = randomBytes(32).toString('base64url');
    jar.set(server.url, SESSION_COOKIE, planted);
    const first = await signInWithFetch(server.url, provider, 'bob@example.com', { jar });
    expect(first.cookie).not.toBe(`${SESSION_COOKIE}=${planted}`);
    expect((await me(server, `${SESSION_COOKIE}=${planted}`)).status).toBe(401);
    expect((await me(server, first.cookie)).status).toBe(200);

    // signing in again in the same browser: a new id, and the one it had stops working
    const second = await signInWithFetch(server.url, provider, 'bob@example.com', { jar });
    expect(second.cookie).not.toBe(first.cookie);
    expect((await me(server, first.cookie)).status).toBe(401);
    expect((await me(server, second.cookie)).status).toBe(200);
    expect(await count(server, sessions)).toBe(1);
  });

  it('refuses a callback with a wrong state, and a replayed one, creating no session', async () => {
    const { server } = stand();
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com');
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', randomBytes(32).toString('base64url'));
    const wrong = await callback(jar, forged.href);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/state/i) });
    expect(wrong.session).toBeUndefined();
    // a state the browser agrees with but the store never issued
    const unknown = randomBytes(32).toString('base64url');
    forged.searchParams.set('state', unknown);
    jar.set(server.url, ATTEMPT_COOKIE, unknown);
    expect((await callback(jar, forged.href)).body.error.message).toMatch(/Unknown or already used sign-in state/);
    expect((await callback(jar, `${server.url}/auth/callback?code=abc`)).status).toBe(400);
    expect(await count(server, sessions)).toBe(0);

    // the genuine answer still works once, and only once
    jar.set(server.url, ATTEMPT_COOKIE, stateOf(callbackUrl));
    expect((await callback(jar, callbackUrl)).status).toBe(302);
    const replay = await callback(jar, callbackUrl);
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('validation_failed');
    expect(replay.session).toBeUndefined();
    jar.set(server.url, ATTEMPT_COOKIE, stateOf(callbackUrl));
    expect((await callback(jar, callbackUrl)).body.error.message).toMatch(/Unknown or already used sign-in state/);
    expect(await count(server, sessions)).toBe(1);

    // a person's browser (it accepts HTML) is sent to the sign-in page, which says why
    const page = await fetch(callbackUrl, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(302);
    const to = new URL(page.headers.get('location')!, server.url);
    expect(to.pathname).toBe('/sign-in');
    expect(to.searchParams.get('error')).toMatch(/sign-in/i);
    expect(await count(server, sessions)).toBe(1);
  });

  it('refuses a sign-in finished in another browser than the one that started it', async () => {
    const { server } = stand();
    // someone signs in as themselves up to the provider's answer, then gets another person to open it
    const { callbackUrl } = await authorizeWithFetch(server.url, 'eve@elsewhere.org');
    const victim = await callback(new CookieJar(), callbackUrl);
    expect(victim.status).toBe(400);
    expect(victim.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/this browser/) });
    expect(victim.session).toBeUndefined();
    expect(await count(server, sessions)).toBe(0);
  });

  it('refuses a replayed authorization code even with its attempt put back', async () => {
    const { server } = stand();
    const { db } = server.services.store;
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com');
    const [attempt] = await db.select().from(signInAttempts);
    expect((await callback(jar, callbackUrl)).status).toBe(302);
    await db.insert(signInAttempts).values(attempt!);
    jar.set(server.url, ATTEMPT_COOKIE, stateOf(callbackUrl));
    const replay = await callback(jar, callbackUrl);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/invalid_grant/) });
    expect(replay.session).toBeUndefined();
    expect(await count(server, sessions)).toBe(1);
  });

  it("refuses an ID token whose nonce is not the attempt's, and a sign-in the provider refused, creating no one", async () => {
    const { server, provider } = stand();
    const { db } = server.services.store;
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com');
    await db.update(signInAttempts).set({ nonce: 'not-the-nonce-the-provider-was-sent' });
    const refused = await callback(jar, callbackUrl);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/nonce/i) });
    expect(refused.session).toBeUndefined();

    // the provider sends back an error (the person cancelled): refused, the attempt used up
    const toProvider = await browse(jar, `${server.url}/auth/login`);
    const state = stateOf(toProvider.headers.get('location')!);
    const cancelled = await callback(
      jar,
      `${server.url}/auth/callback?error=access_denied&error_description=cancelled&state=${state}&iss=${encodeURIComponent(provider.issuer)}`,
    );
    expect(cancelled.status).toBe(401);
    expect(cancelled.body.error.message).toMatch(/access_denied/);
    expect(await count(server, sessions)).toBe(0);
    expect(await count(server, users)).toBe(0);
    expect(await count(server, signInAttempts)).toBe(0);
  });

  it("asks the provider for a code with PKCE (S256), state and nonce, for this server's redirect URI", async () => {
    const { server, provider } = stand();
    const toProvider = await fetch(`${server.url}/auth/login?returnTo=/x`, { redirect: 'manual' });
    expect(toProvider.status).toBe(302);
    const url = new URL(toProvider.headers.get('location')!);
    expect(url.origin).toBe(provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: `${server.url}/auth/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
    });
    // the browser keeps the state (to prove it is the one finishing), the store only its hash
    const [bound] = toProvider.headers.getSetCookie();
    expect(bound).toMatch(new RegExp(`^${ATTEMPT_COOKIE}=${url.searchParams.get('state')};.*HttpOnly.*SameSite=Lax`, 'i'));
    const [attempt] = await server.services.store.db.select().from(signInAttempts);
    expect(attempt!.stateHash).not.toBe(url.searchParams.get('state'));
    expect(attempt!.returnTo).toBe('/x');
  });

  it('refuses an expired attempt', async () => {
    const { server } = stand();
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com');
    await server.services.store.db.update(signInAttempts).set({ createdAt: sql`now() - interval '11 minutes'` });
    const late = await callback(jar, callbackUrl);
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/10 minutes/);
    expect(await count(server, sessions)).toBe(0);
  });

  it('keeps out addresses outside OIDC_ALLOWED_DOMAINS and unverified ones', async () => {
    const { server, provider } = await standForThisTest(backend, { allowedDomains: ['example.com'] });
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'eve@elsewhere.org');
    const eve = await callback(jar, callbackUrl);
    expect(eve.status).toBe(403);
    expect(eve.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/example\.com.*OIDC_ALLOWED_DOMAINS/) });
    expect(eve.session).toBeUndefined();

    const unverified = await authorizeWithFetch(server.url, 'unverified@example.com');
    const refused = await callback(unverified.jar, unverified.callbackUrl);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/not verified/);
    expect(await count(server, users)).toBe(0);

    await signInWithFetch(server.url, provider, 'bob@example.com');
    expect(await count(server, users)).toBe(1);
  });

  it('keeps out people outside OIDC_ALLOWED_GROUPS', async () => {
    const { server, provider } = await standForThisTest(backend, { allowedGroups: ['querytrail-users'] });
    const toProvider = await fetch(`${server.url}/auth/login`, { redirect: 'manual' });
    expect(new URL(toProvider.headers.get('location')!).searchParams.get('scope')).toBe('openid email profile groups');
    const { callbackUrl, jar } = await authorizeWithFetch(server.url, 'bob@example.com');
    const bob = await callback(jar, callbackUrl);
    expect(bob.status).toBe(403);
    expect(bob.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/querytrail-users.*OIDC_ALLOWED_GROUPS/) });
    expect(bob.session).toBeUndefined();

    const ada = await signInWithFetch(server.url, provider, 'ada@example.com');
    expect((await me(server, ada.cookie)).body.email).toBe('ada@example.com');
    expect(await count(server, sessions)).toBe(1);
  });

  it('signs out: the cookie stops working; everywhere ends the sessions of every browser', async () => {
    const { server, provider } = stand();
    const laptop = await signInWithFetch(server.url, provider, 'bob@example.com');
    const out = await signOut(server, laptop);
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`));
    expect((await me(server, laptop.cookie)).status).toBe(401);
    expect((await signOut(server, laptop)).status).toBe(401);

    const desk = await signInWithFetch(server.url, provider, 'bob@example.com');
    const phone = await signInWithFetch(server.url, provider, 'bob@example.com');
    const ada = await signInWithFetch(server.url, provider, 'ada@example.com');
    expect((await signOut(server, phone, { everywhere: true })).status).toBe(204);
    expect((await me(server, desk.cookie)).status).toBe(401);
    expect((await me(server, phone.cookie)).status).toBe(401);
    // someone else's session is not theirs to end
    expect((await me(server, ada.cookie)).status).toBe(200);
    const ada2 = await signInWithFetch(server.url, provider, 'ada@example.com');
    expect((await signOut(server, ada2, undefined, '?everywhere=1')).status).toBe(204);
    expect((await me(server, ada.cookie)).status).toBe(401);

    const actions = (await server.services.store.db.select({ action: auditLog.action }).from(auditLog)).map((r) => r.action);
    expect(actions).toContain('auth.sign-out');
    expect(actions.filter((a) => a === 'auth.sign-out-everywhere')).toHaveLength(2);
  });

  it('refuses a sign-out another site makes the browser send, and one without a session', async () => {
    const { server, provider } = stand();
    const bob = await signInWithFetch(server.url, provider, 'bob@example.com');
    const post = (headers: Record<string, string>) =>
      requestJson(`${server.url}/auth/logout`, { method: 'POST', json: { everywhere: true }, headers: { cookie: bob.cookie, ...headers } });
    const fromElsewhere = await post({ origin: 'https://evil.example', 'x-csrf-token': bob.csrfToken });
    expect(fromElsewhere.status).toBe(403);
    expect(fromElsewhere.body.error.code).toBe('origin_not_allowed');
    const noToken = await post({ origin: server.url });
    expect(noToken.status).toBe(403);
    const noOrigin = await post({ 'x-csrf-token': bob.csrfToken });
    expect(noOrigin.status).toBe(403);
    expect((await me(server, bob.cookie)).status).toBe(200);

    const nobody = await requestJson(`${server.url}/auth/logout`, { method: 'POST', headers: { origin: server.url } });
    expect(nobody.status).toBe(401);
    expect(nobody.body.error.code).toBe('unauthorized');
  });

  it('ends a session left idle past SESSION_IDLE_HOURS, and any past SESSION_MAX_DAYS', async () => {
    const { server, provider } = stand();
    const { db } = server.services.store;
    const { sessionIdleSeconds } = server.services.config.auth;
    const idle = await signInWithFetch(server.url, provider, 'bob@example.com');
    const old = await signInWithFetch(server.url, provider, 'ada@example.com');
    const bobId = (await db.select().from(users).where(eq(users.email, 'bob@example.com')))[0]!.id;
    const adaId = (await db.select().from(users).where(eq(users.email, 'ada@example.com')))[0]!.id;

    // still in use just inside the idle limit
    await db
      .update(sessions)
      .set({ lastSeenAt: sql`now() - make_interval(secs => ${sessionIdleSeconds - 60})` })
      .where(eq(sessions.userId, bobId));
    expect((await me(server, idle.cookie)).status).toBe(200);
    await db
      .update(sessions)
      .set({ lastSeenAt: sql`now() - make_interval(secs => ${sessionIdleSeconds + 60})` })
      .where(eq(sessions.userId, bobId));
    expect((await me(server, idle.cookie)).status).toBe(401);

    expect((await me(server, old.cookie)).status).toBe(200);
    await db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.userId, adaId));
    expect((await me(server, old.cookie)).status).toBe(401);
  });

  it('answers what the sign-in page offers, and 404 for sign-in where none is configured', async () => {
    const { server } = stand();
    expect((await requestJson(`${server.url}/auth/config`)).body).toEqual({ mode: 'team', oidc: true });

    const local = await startTestServer(await openTestServices(backend));
    onTestFinished(() => local.close());
    expect((await requestJson(`${local.url}/auth/config`)).body).toEqual({ mode: 'local', oidc: false });
    for (const path of ['/auth/login', '/auth/callback?state=x&code=y']) {
      const answer = await requestJson(`${local.url}${path}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/sign-in is not configured/i) });
    }

    // an identity provider that does not answer: said so, nothing started
    const gone = `http://127.0.0.1:${await freePort()}`;
    const oidc = { issuer: gone, clientId: 'x', clientSecret: 'y', allowedDomains: [], allowedGroups: [], scopes: ['openid'], groupsClaim: 'groups' };
    const stranded = await startTestServer(await openTestServices(backend, { auth: { ...server.services.config.auth, oidc } }));
    onTestFinished(() => stranded.close());
    const unreachable = await requestJson(`${stranded.url}/auth/login`);
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.error).toMatchObject({
      code: 'upstream_unavailable',
      message: expect.stringContaining(`The identity provider ${gone} could not be reached`),
    });
    expect(await count(stranded, signInAttempts)).toBe(0);
  });

  // only a PostgreSQL store is shared by several servers (one server holds a PGlite folder)
  const sharedStoreIt = backend === 'postgres' ? it : () => undefined;
  sharedStoreIt('keeps sessions on the shared store: signed in on one server, known and signed out on another', async () => {
    const { server: a, provider } = stand();
    // a second server of the same deployment: same store, same PUBLIC_URL (one address in front of both)
    const config = testConfig({ databaseUrl: a.services.config.databaseUrl, auth: a.services.config.auth });
    const b = await startTestServer(await withJobs(await openStore({ databaseUrl: config.databaseUrl }), createSecrets(randomBytes(32)), config));
    onTestFinished(() => b.close());

    // started on A, finished on B: the attempt is in the store, not in A's memory
    const { callbackUrl, jar } = await authorizeWithFetch(a.url, 'bob@example.com');
    // one address in front of both: the browser sends B the cookies it was given through A
    jar.set(b.url, ATTEMPT_COOKIE, jar.get(a.url, ATTEMPT_COOKIE)!);
    const onB = await browse(jar, callbackUrl.replace(a.url, b.url));
    expect(onB.status).toBe(302);
    const fromB = `${SESSION_COOKIE}=${jar.get(b.url, SESSION_COOKIE)}`;
    expect((await me(a, fromB)).body.email).toBe('bob@example.com');

    const session = await signInWithFetch(a.url, provider, 'ada@example.com');
    expect((await me(b, session.cookie)).body.email).toBe('ada@example.com');
    const out = await requestJson(`${b.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: a.url, 'x-csrf-token': session.csrfToken },
    });
    expect(out.status).toBe(204);
    expect((await me(a, session.cookie)).status).toBe(401);
    expect((await me(a, fromB)).status).toBe(200);
  });
});

describe('sign-in settings', () => {
  const base = { OIDC_ISSUER: 'https://idp.example.com/realms/acme/', OIDC_CLIENT_ID: 'qt', OIDC_CLIENT_SECRET: 's', PUBLIC_URL: 'https://qt.example.com/' };
  it('asks for groups only while they decide who signs in, unless OIDC_SCOPES says exactly what to ask for, and reads OIDC_GROUPS_CLAIM', () => {
    expect(readConfig(base).auth.oidc).toMatchObject({
      issuer: 'https://idp.example.com/realms/acme',
      scopes: ['openid', 'email', 'profile'],
      groupsClaim: 'groups',
    });
    expect(readConfig({ ...base, OIDC_ALLOWED_GROUPS: 'dev, ops' }).auth.oidc).toMatchObject({
      allowedGroups: ['dev', 'ops'],
      scopes: ['openid', 'email', 'profile', 'groups'],
    });
    expect(readConfig({ ...base, OIDC_ALLOWED_GROUPS: 'dev', OIDC_SCOPES: 'openid email', OIDC_GROUPS_CLAIM: 'roles' }).auth.oidc).toMatchObject({
      scopes: ['openid', 'email'],
      groupsClaim: 'roles',
    });
    expect(readConfig(base).auth.publicUrl).toBe('https://qt.example.com');
  });
  it('refuses settings that cannot work: no openid scope, an http issuer beyond loopback, no PUBLIC_URL or client', () => {
    expect(() => readConfig({ ...base, OIDC_SCOPES: 'email profile' })).toThrow(/OIDC_SCOPES must include openid/);
    expect(() => readConfig({ ...base, OIDC_ISSUER: 'http://idp.example.com' })).toThrow(/https/);
    expect(() => readConfig({ ...base, PUBLIC_URL: '' })).toThrow(/PUBLIC_URL/);
    expect(() => readConfig({ ...base, OIDC_CLIENT_SECRET: '' })).toThrow(/OIDC_CLIENT_SECRET/);
    expect(() => readConfig({ CI_OIDC_ISSUERS: 'http://token.example.com' })).toThrow(/CI_OIDC_ISSUERS/);
    expect(
      readConfig({ OIDC_ISSUER: 'http://127.0.0.1:9/x', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b', PUBLIC_URL: 'http://127.0.0.1:3000' }).auth.oidc?.issuer,
    ).toBe('http://127.0.0.1:9/x');
  });
});

describe('the session cookie behind https', () => {
  it('is __Host- prefixed, Secure, HttpOnly, SameSite=Lax, Path=/ and names no Domain', async () => {
    const auth: AuthConfig = { ...readConfig({}).auth, publicUrl: 'https://querytrail.example.com' };
    const app = express();
    app.get('/set', (_req, res) => {
      setSessionCookie(res, auth, 'x'.repeat(43));
      res.end();
    });
    app.get('/clear', (_req, res) => {
      clearSessionCookie(res, auth);
      res.end();
    });
    const http = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    onTestFinished(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const base = `http://127.0.0.1:${(http.address() as import('node:net').AddressInfo).port}`;
    const [set] = (await fetch(`${base}/set`)).headers.getSetCookie();
    expect(sessionCookieName(auth)).toBe('__Host-querytrail_session');
    expect(set).toMatch(/^__Host-querytrail_session=x{43};/);
    for (const attribute of [/; Secure/i, /; HttpOnly/i, /; SameSite=Lax/i, /; Path=\/(;|$)/]) expect(set).toMatch(attribute);
    expect(set).not.toMatch(/Domain=/i);
    const [cleared] = (await fetch(`${base}/clear`)).headers.getSetCookie();
    expect(cleared).toMatch(/^__Host-querytrail_session=;.*Secure/i);
    // the plain name is not read behind https: a sibling http page cannot set the session
    const req = (cookie: string) => ({ headers: { cookie } }) as unknown as import('express').Request;
    expect(sessionIdOf(req(`querytrail_session=${'x'.repeat(43)}`), auth)).toBeUndefined();
    expect(sessionIdOf(req(`__Host-querytrail_session=${'x'.repeat(43)}`), auth)).toBe('x'.repeat(43));
  });

  it('returnTo keeps only paths of this server', () => {
    expect(safeReturnTo('/env/a?tab=1#x')).toBe('/env/a?tab=1#x');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'evil', '', '/a b', '/a\nb', '/AUTH/login', undefined, ['/x']])
      expect(safeReturnTo(bad)).toBe('/');
  });
});

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm run admin -- ...` as the operator types it (the script line itself: node --import tsx server/admin.ts). */
async function admin(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'server/admin.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run admin', () => {
  it("grants and revokes admin in the store DATABASE_URL names, and records it as the CLI's", async () => {
    const services = await openTestServices('postgres');
    onTestFinished(async () => {
      await services.store.close();
      rmSync(services.config.dataDir, { recursive: true, force: true });
    });
    const env = { DATABASE_URL: services.config.databaseUrl! };
    const [granted, unknownCommand, notAnEmail] = await Promise.all([
      admin(env, 'grant', 'Ops@Example.com'),
      admin(env, 'bogus'),
      admin(env, 'grant', 'not-an-email'),
    ]);
    expect(granted).toMatchObject({ code: 0, stdout: expect.stringMatching(/ops@example\.com is now an admin/) });
    expect(unknownCommand).toMatchObject({ code: 2, stderr: expect.stringMatching(/Usage/) });
    expect(notAnEmail).toMatchObject({ code: 2, stderr: expect.stringMatching(/one email address/) });
    expect((await admin(env, 'list')).stdout).toMatch(/admin\s+ops@example\.com/);
    expect(await admin(env, 'revoke', 'ops@example.com')).toMatchObject({ code: 0, stdout: expect.stringMatching(/now a member[\s\S]*no admin is left/) });
    const entries = await services.store.db.select().from(auditLog);
    expect(entries.map((e) => [e.actorKind, e.action, e.target, e.before, e.after])).toEqual(
      expect.arrayContaining([
        ['cli', 'me.setUserRole', 'ops@example.com', null, { role: 'admin' }],
        ['cli', 'me.setUserRole', 'ops@example.com', { role: 'admin' }, { role: 'member' }],
      ]),
    );
    expect(entries[0]!.actor).toMatch(/^admin CLI \(.+@.+\)$/);
  });

  it('says plainly that a running server holds a PGlite DATA_DIR', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-admin-'));
    // held as a running server holds it (its lock file names this live process)
    const lock = lockFolder(dataDir, `DATA_DIR ${dataDir}`);
    onTestFinished(() => {
      lock.release();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const locked = await admin({ DATA_DIR: dataDir }, 'grant', 'ops@example.com');
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/PGlite, which only one process may open, and a running querytrail server holds it[\s\S]*Stop the server/);
  });
});
