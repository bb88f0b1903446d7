// The one zod layer for what users type: used by the server at its edge, the SPA in its forms and
// the analyzer for its request body, so a value accepted in one place is accepted everywhere.
import { z } from 'zod';
import { parse as parseConnectionString } from 'pg-connection-string';

export const slugSchema = z
  .string()
  .min(1, 'Slug must not be empty')
  .max(64, 'Slug must be at most 64 characters')
  .regex(/^[a-z0-9-]+$/, 'Slug may contain only lowercase letters, digits and hyphens');

export const ROLES = ['production', 'staging', 'ci', 'other'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const nameSchema = z.string().trim().min(1, 'Name must not be empty').max(200, 'Name must be at most 200 characters');
export const labelSchema = z.string().trim().min(1, 'Label must not be empty').max(200, 'Label must be at most 200 characters');

// GitHub's own rules: owners are alphanumerics and single hyphens (no leading hyphen, at most 39);
// repository names are alphanumerics, '.', '_' and '-' (at most 100), but not '.' or '..'.
const ORG = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
export const repoSchema = z
  .string()
  .trim()
  .refine((value) => {
    const parts = value.split('/');
    if (parts.length !== 2) return false;
    const [org, repo] = parts as [string, string];
    return ORG.test(org) && REPO.test(repo) && repo !== '.' && repo !== '..';
  }, 'Repository must be <org>/<repo> as GitHub writes it, for example acme/web-app');

export interface ParsedConnectionString {
  host: string;
  port: number;
  database: string;
  user?: string;
}

/** Parses with pg's own parser; returns an error message instead of throwing. */
export function parsePostgresUrl(value: string): { ok: true; value: ParsedConnectionString } | { ok: false; message: string } {
  if (!/^postgres(ql)?:\/\//i.test(value)) {
    return { ok: false, message: 'Connection string must start with postgres:// or postgresql://' };
  }
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    parsed = parseConnectionString(value);
  } catch (error) {
    return { ok: false, message: `Connection string could not be parsed: ${(error as Error).message}` };
  }
  if (!parsed.host) return { ok: false, message: 'Connection string must name a host' };
  if (!parsed.database) return { ok: false, message: 'Connection string must name a database' };
  const port = parsed.port ? Number(parsed.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, message: 'Connection string has an invalid port' };
  return { ok: true, value: { host: parsed.host, port, database: parsed.database, user: parsed.user ?? undefined } };
}

export const connectionStringSchema = z
  .string()
  .trim()
  .min(1, 'Connection string must not be empty')
  .max(4096, 'Connection string is too long')
  .superRefine((value, ctx) => {
    const result = parsePostgresUrl(value);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: result.message });
  });

/** The connection string with its password replaced by ****, for display. */
export function maskConnectionString(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '****';
    for (const key of [...url.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) url.searchParams.set(key, '****');
    }
    return url.toString();
  } catch {
    return value.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:****@');
  }
}

/** Suggests a slug from a name: "My App (prod)" -> "my-app-prod". */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/g, '');
}
