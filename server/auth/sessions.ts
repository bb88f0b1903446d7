// Browser sessions, kept in the store so that any server of a shared PostgreSQL accepts them. The
// cookie holds a random id; the store holds its SHA-256, the person, a CSRF token and two expiries:
// idle (SESSION_IDLE_HOURS since last use) and absolute (SESSION_MAX_DAYS since sign-in).
import type { Request, Response } from 'express';
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { AuthConfig } from '../config';
import { sessions } from '../db/schema';
import type { Db } from '../db/store';
import { hashSecret, randomSecret } from './secret-values';

/** Behind https the cookie is `__Host-` prefixed: Secure, Path=/, no Domain, so no sibling host can set or read it. */
export const sessionCookieName = (auth: AuthConfig) => (isHttps(auth) ? '__Host-querytrail_session' : 'querytrail_session');
const isHttps = (auth: AuthConfig) => auth.publicUrl?.startsWith('https://') ?? false;

/** A new session for a person who just signed in: always a new id (an id set before sign-in is never promoted). */
export async function startSession(db: Db, auth: AuthConfig, userId: string): Promise<{ id: string; csrfToken: string }> {
  const id = randomSecret();
  const csrfToken = randomSecret();
  await db.insert(sessions).values({
    idHash: hashSecret(id),
    userId,
    csrfToken,
    expiresAt: new Date(Date.now() + auth.sessionMaxSeconds * 1000),
  });
  // sign-ins are rare: a good moment to drop what has expired for everyone
  await db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, sql`now()`), lt(sessions.lastSeenAt, sql`now() - make_interval(secs => ${auth.sessionIdleSeconds})`)));
  return { id, csrfToken };
}

export function setSessionCookie(res: Response, auth: AuthConfig, id: string) {
  res.cookie(sessionCookieName(auth), id, {
    httpOnly: true,
    secure: isHttps(auth),
    sameSite: 'lax',
    path: '/',
    maxAge: auth.sessionMaxSeconds * 1000,
  });
}

export function clearSessionCookie(res: Response, auth: AuthConfig) {
  res.clearCookie(sessionCookieName(auth), { httpOnly: true, secure: isHttps(auth), sameSite: 'lax', path: '/' });
}

/** The session id the request's cookie carries, if any. Parsed by hand: one cookie, no dependency. */
export function sessionIdOf(req: Request, auth: AuthConfig): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const name = sessionCookieName(auth);
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    if (part.slice(0, at).trim() !== name) continue;
    const value = part.slice(at + 1).trim();
    return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export async function endSession(db: Db, idHash: string) {
  await db.delete(sessions).where(eq(sessions.idHash, idHash));
}

/** Sign out everywhere: every session of the person. */
export async function endEverySession(db: Db, userId: string) {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

/** Use of a session moves its idle expiry; written at most once a minute, so reading pages costs no write. */
export async function touchSession(db: Db, idHash: string) {
  await db
    .update(sessions)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(sessions.idHash, idHash), lt(sessions.lastSeenAt, sql`now() - interval '1 minute'`)));
}
