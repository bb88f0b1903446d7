// Personal access tokens (a person's, with scopes and an expiry) and CI tokens (an environment's,
// only to post its runs and read their verdicts). The token is shown once, when made; the store
// keeps the SHA-256 of its secret part (server/auth/secret-values.ts). Revoking is immediate: every
// request looks its token up (server/auth/authenticate.ts).
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { TokenScope, TokenSummary } from '../../shared/auth';
import { apiTokens, users } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { newId } from '../ids';
import { formatToken, hashSecret, randomSecret } from '../auth/secret-values';
import { requireEnvironment } from './environments';

const summaryColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  kind: apiTokens.kind,
  scopes: apiTokens.scopes,
  owner: users.email,
  environmentId: apiTokens.environmentId,
  createdBy: apiTokens.createdBy,
  createdAt: apiTokens.createdAt,
  expiresAt: apiTokens.expiresAt,
  lastUsedAt: apiTokens.lastUsedAt,
  revokedAt: apiTokens.revokedAt,
};
type SummaryRow = { [K in keyof typeof summaryColumns]: unknown } & {
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const toSummary = (row: SummaryRow): TokenSummary => ({
  id: row.id as string,
  name: row.name as string,
  kind: row.kind as 'personal' | 'ci',
  scopes: row.scopes as string[],
  owner: (row.owner as string | null) ?? null,
  environmentId: (row.environmentId as string | null) ?? null,
  createdBy: row.createdBy as string,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export async function createPersonalToken(
  db: Db,
  owner: { userId: string; email: string },
  input: { name: string; scopes: TokenScope[]; expiresInDays?: number },
): Promise<{ id: string; token: string }> {
  const id = newId('tok');
  const secret = randomSecret();
  await db.insert(apiTokens).values({
    id,
    kind: 'personal',
    name: input.name,
    userId: owner.userId,
    scopes: [...new Set(input.scopes)].sort(),
    secretHash: hashSecret(secret),
    createdBy: owner.email,
    expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
  });
  return { id, token: formatToken('personal', id, secret) };
}

/** A person's own tokens; every personal token for an admin (`userId` null). Newest first. */
export async function listPersonalTokens(db: Db, userId: string | null): Promise<TokenSummary[]> {
  const rows = await db
    .select(summaryColumns)
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.kind, 'personal'), userId ? eq(apiTokens.userId, userId) : undefined))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
  return rows.map((r) => toSummary(r as SummaryRow));
}

/** Revokes a personal token: the person's own (`userId`), or any one for an admin (null). Unknown or another's: 404. */
export async function revokePersonalToken(db: Db, id: string, userId: string | null): Promise<void> {
  const revoked = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, id), eq(apiTokens.kind, 'personal'), isNull(apiTokens.revokedAt), userId ? eq(apiTokens.userId, userId) : undefined))
    .returning({ id: apiTokens.id });
  if (revoked.length === 0) await alreadyRevokedOrMissing(db, id, and(eq(apiTokens.kind, 'personal'), userId ? eq(apiTokens.userId, userId) : undefined));
}

export async function createCiToken(db: Db, environmentId: string, name: string, createdBy: string): Promise<{ id: string; token: string }> {
  const id = newId('tok');
  const secret = randomSecret();
  await db.transaction(async (tx) => {
    await requireEnvironment(tx, environmentId);
    await tx.insert(apiTokens).values({ id, kind: 'ci', name, environmentId, scopes: ['ci'], secretHash: hashSecret(secret), createdBy });
  });
  return { id, token: formatToken('ci', id, secret) };
}

export async function listCiTokens(db: Db, environmentId: string): Promise<TokenSummary[]> {
  await requireEnvironment(db, environmentId);
  const rows = await db
    .select(summaryColumns)
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.kind, 'ci'), eq(apiTokens.environmentId, environmentId)))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
  return rows.map((r) => toSummary(r as SummaryRow));
}

export async function revokeCiToken(db: Db, environmentId: string, id: string): Promise<void> {
  const revoked = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, id), eq(apiTokens.kind, 'ci'), eq(apiTokens.environmentId, environmentId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  if (revoked.length === 0) {
    await requireEnvironment(db, environmentId);
    await alreadyRevokedOrMissing(db, id, and(eq(apiTokens.kind, 'ci'), eq(apiTokens.environmentId, environmentId)));
  }
}

/** Revoking twice is done, not an error; a token that is not the caller's to see is 404. */
async function alreadyRevokedOrMissing(db: Db, id: string, scope: ReturnType<typeof and>) {
  const [row] = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(and(eq(apiTokens.id, id), scope));
  if (!row) throw notFound(`Token ${id}`);
}
