// Random credentials and how they are kept: only a SHA-256 of the secret part is stored, and a
// presented secret is compared with it in constant time. The secrets are 256 random bits, so a
// plain hash (no salt, no slow KDF) is what protects them: nothing can be guessed from it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const randomSecret = () => randomBytes(32).toString('base64url');

export const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('base64url');

/** Same time whatever the inputs: both sides are hashed to equal length first. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = createHash('sha256').update(hashSecret(presented)).digest();
  const b = createHash('sha256').update(storedHash).digest();
  return timingSafeEqual(a, b);
}

/** A bearer value compared with a configured one (API_TOKEN), in constant time. */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest());
}

/**
 * Tokens read `qtp_<id>_<secret>` (personal) or `qtc_<id>_<secret>` (CI): the id finds the row
 * (so lookup never compares secrets in the database), the prefix says what it is to whoever finds
 * one in a log or a repository (secret scanners match on such prefixes).
 */
export const TOKEN_PREFIX = { personal: 'qtp_', ci: 'qtc_' } as const;
const TOKEN_SHAPE = /^qt([pc])_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export function formatToken(kind: keyof typeof TOKEN_PREFIX, id: string, secret: string): string {
  return `${TOKEN_PREFIX[kind]}${id.replace(/^tok_/, '')}_${secret}`;
}

export function parseToken(value: string): { kind: 'personal' | 'ci'; id: string; secret: string } | undefined {
  const match = TOKEN_SHAPE.exec(value);
  if (!match) return undefined;
  return { kind: match[1] === 'p' ? 'personal' : 'ci', id: `tok_${match[2]}`, secret: match[3]! };
}
