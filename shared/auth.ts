// Wire shapes of people, roles, tokens, memberships and the audit log: shared by the router, the
// REST adapter (via the OpenAPI document) and the SPA.
import { z } from 'zod';
import { isoDate } from './dates';
import { idSchema, INT32_MAX, isPlainLine } from './validation';
import { pathParam } from './environments';

export const INSTANCE_ROLES = ['admin', 'member'] as const;
export const instanceRoleSchema = z.enum(INSTANCE_ROLES);
export type InstanceRole = z.infer<typeof instanceRoleSchema>;

/** An environment's roles, weakest first: each can do what the ones before it can. */
export const ENV_ROLES = ['viewer', 'editor', 'owner'] as const;
export const envRoleSchema = z.enum(ENV_ROLES);
export type EnvRole = z.infer<typeof envRoleSchema>;
export const envRoleAtLeast = (role: EnvRole, needed: EnvRole) => ENV_ROLES.indexOf(role) >= ENV_ROLES.indexOf(needed);

export const TOKEN_SCOPES = ['read', 'write'] as const;
export const tokenScopeSchema = z.enum(TOKEN_SCOPES);
export type TokenScope = z.infer<typeof tokenScopeSchema>;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'Email must be at most 254 characters')
  .regex(/^[^\s@/\\]+@[^\s@/\\]+$/, 'Must be an email address');

const tokenName = z
  .string()
  .trim()
  .min(1, 'Name must not be empty')
  .max(100, 'Name must be at most 100 characters')
  .refine(isPlainLine, 'Name must not contain control characters');

/** GET /api/me. */
export const meSchema = z.object({
  email: z.string(),
  name: z.string(),
  role: instanceRoleSchema,
  /** How the server runs: local (single user, no sign-in) or team (sign-in or tokens). */
  mode: z.enum(['local', 'team']),
  /** Environment id to the person's role there (admins may use every environment whatever it says). */
  memberships: z.record(z.string(), envRoleSchema),
  /** The value the SPA sends in X-CSRF-Token with every state-changing request; null outside a session. */
  csrfToken: z.string().nullable(),
  /** How the caller authenticated. */
  via: z.enum(['local', 'session', 'token', 'api-token']),
});
export type Me = z.infer<typeof meSchema>;

/** GET /auth/config: what the sign-in page offers (readable without signing in). */
export const signInOptionsSchema = z.object({ mode: z.enum(['local', 'team']), oidc: z.boolean() });

export const createTokenInput = z.object({
  name: tokenName,
  scopes: z.array(tokenScopeSchema).min(1, 'Give at least one scope').max(2),
  expiresInDays: z.number().int().min(1).max(3650).optional().meta({ description: 'Days until the token stops working; omitted means it never expires' }),
});
export const createdTokenSchema = z.object({
  id: z.string(),
  token: z.string().meta({ description: 'The token itself: shown this once, stored only as a hash' }),
});

export const tokenSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['personal', 'ci']),
  scopes: z.array(z.string()),
  owner: z.string().nullable().meta({ description: 'The person a personal token acts as (its email); null for a CI token' }),
  environmentId: z.string().nullable(),
  createdBy: z.string(),
  createdAt: isoDate,
  expiresAt: isoDate.nullable(),
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});
export type TokenSummary = z.infer<typeof tokenSummary>;

export const tokenIdInput = z.object({ id: pathParam(idSchema) });
export const createCiTokenInput = z.object({ id: pathParam(idSchema), name: tokenName });
export const ciTokenRefInput = z.object({ id: pathParam(idSchema), tokenId: pathParam(idSchema) });

export const memberSchema = z.object({
  email: z.string(),
  name: z.string().nullable().meta({ description: 'From the identity provider, once the person has signed in' }),
  role: envRoleSchema,
  createdAt: isoDate,
});
export type Member = z.infer<typeof memberSchema>;
export const setMemberInput = z.object({ id: pathParam(idSchema), email: pathParam(emailSchema), role: envRoleSchema });
export const memberRefInput = z.object({ id: pathParam(idSchema), email: pathParam(emailSchema) });

export const setUserRoleInput = z.object({ email: pathParam(emailSchema), role: instanceRoleSchema });
export const userSummary = z.object({ email: z.string(), name: z.string(), role: instanceRoleSchema, createdAt: isoDate, lastSignInAt: isoDate.nullable() });

export const auditEntrySchema = z.object({
  id: z.string(),
  at: isoDate,
  actorKind: z.string(),
  actor: z.string(),
  sourceAddress: z.string().nullable(),
  action: z.string(),
  environmentId: z.string().nullable(),
  target: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditInput = z.object({
  environmentId: idSchema.optional().meta({ description: "Only this environment's entries (its owners may read them)" }),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(INT32_MAX).default(0),
});
