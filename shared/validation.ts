// The one zod layer for what users type: used by the server at its edge, the SPA in its forms and
// the analyzer for its request body, so a value accepted in one place is accepted everywhere.
import { z } from 'zod';
import { parseConnectionString } from './connection-string';

export const slugSchema = z
  .string()
  .min(1, 'Slug must not be empty')
  .max(64, 'Slug must be at most 64 characters')
  .regex(/^[a-z0-9-]+$/, 'Slug may contain only lowercase letters, digits and hyphens');

export const ROLES = ['production', 'staging', 'ci', 'other'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

// PostgreSQL text cannot hold NUL (SQLSTATE 22021), and a lone UTF-16 surrogate has no UTF-8 form:
// a driver either stores U+FFFD instead of what was sent or fails. Control characters have no place
// in a name, label or id; SQL text keeps them (tabs, newlines, anything inside a literal or a comment).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** true when the text has no control character and no lone surrogate: safe as one line of PostgreSQL text. */
export const isPlainLine = (value: string) => !CONTROL.test(value) && !LONE_SURROGATE.test(value);

/**
 * One line of text as people type it (a name, a label, a run id): trimmed, 1 to `max` characters,
 * no control characters, no lone surrogates. `what` names the field in messages ("Name").
 */
export function lineText(what: string, max: number) {
  return z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .refine((value) => !CONTROL.test(value), `${what} must not contain control characters`)
    .refine((value) => !LONE_SURROGATE.test(value), `${what} must be valid Unicode (it has a lone surrogate)`);
}

/** SQL or text searched in SQL: any characters PostgreSQL text can hold (no NUL, no lone surrogate). */
export function sqlText(what: string, max: number) {
  return z
    .string()
    .max(max, `${what} is longer than ${max} characters`)
    .refine((value) => !value.includes('\u0000'), `${what} must not contain NUL characters`)
    .refine((value) => !LONE_SURROGATE.test(value), `${what} must be valid Unicode (it has a lone surrogate)`);
}

/** The ids the server hands out (env_..., conn_..., run_...): so ".", "..", "%00" and the like are refused, never looked up. */
export const idSchema = z
  .string()
  .min(1, 'Id must not be empty')
  .max(100, 'Id must be at most 100 characters')
  .regex(/^[A-Za-z0-9_-]+$/, 'Id may contain only letters, digits, _ and -');

/** Column types bound what a number may be: integer is 32-bit, bigint 64-bit (kept to what JavaScript counts exactly). */
export const INT32_MAX = 2_147_483_647;

/**
 * A number that must arrive as a JSON number. The REST adapter (trpc-to-openapi) switches coercion
 * on, in place, for the top-level numbers of every procedure's input, because query strings carry
 * numbers as text; in a body that would take "7", true and [7] for 7, 1 and 7. It does not look
 * behind a pipe, so a body's number wrapped here stays strict (on both transports).
 */
export function jsonNumber<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => value, schema);
}

export const nameSchema = lineText('Name', 200);
export const labelSchema = lineText('Label', 200);

// GitHub's own rules: owners are alphanumerics and single hyphens (no leading hyphen, at most 39);
// repository names are alphanumerics, '.', '_' and '-' (at most 100), but not '.' or '..'.
const ORG = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

const isGithubRepo = (parts: string[]) => parts.length === 2 && ORG.test(parts[0]!) && REPO.test(parts[1]!) && parts[1] !== '.' && parts[1] !== '..';

// GitLab's rules (its path format): a project sits in a group, which may sit in up to 20 levels of
// subgroups; each path is letters, digits, '_', '-' and '.', not starting with '-', not ending in
// '.git' or '.atom', and a group's not ending in '.'. A full path is at most 255 characters here.
const GITLAB_SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;
const GITLAB_MAX_SEGMENTS = 21;
/** The longest repository identifier taken anywhere (a filter by repository included). */
export const REPO_MAX_LENGTH = 255;

function isGitlabPath(parts: string[], value: string): boolean {
  if (parts.length < 2 || parts.length > GITLAB_MAX_SEGMENTS || value.length > REPO_MAX_LENGTH) return false;
  return parts.every((part, index) => {
    if (!GITLAB_SEGMENT.test(part) || part === '.' || part === '..' || /\.(git|atom)$/i.test(part)) return false;
    return index === parts.length - 1 || !part.endsWith('.');
  });
}

/**
 * A CI repository: <org>/<repo> as GitHub writes it, unchanged, or a GitLab project's full path
 * with its groups (group/subgroup/project).
 */
export const repoSchema = z
  .string()
  .trim()
  .refine((value) => {
    const parts = value.split('/');
    return isGithubRepo(parts) || isGitlabPath(parts, value);
  }, 'Repository must be <org>/<repo> as GitHub writes it, for example acme/web-app, or a GitLab project path with its groups, for example acme/platform/web-app');

export interface ParsedConnectionString {
  host: string;
  port: number;
  database: string;
  user?: string;
}

/**
 * Checks a connection string against the allow-list of shared/connection-string.ts (never reading
 * a file it names); returns an error message instead of throwing.
 */
export function parsePostgresUrl(value: string): { ok: true; value: ParsedConnectionString } | { ok: false; message: string } {
  const parsed = parseConnectionString(value);
  if (!parsed.ok) return parsed;
  const { host, port, database, user } = parsed.value;
  return { ok: true, value: { host, port, database, user } };
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

/**
 * Deepest nesting accepted in a JSON request body. The API's deepest input is three levels
 * ({ queries: [ { ... } ] }); far deeper bodies overflow the stack of whatever walks them
 * recursively (the REST adapter serialises the body again), so they are refused before parsing.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * true when JSON text (UTF-8 bytes or a string) opens arrays or objects more than `max` deep.
 * Brackets inside strings do not count; the text is not validated otherwise (the parser does
 * that). UTF-8 continuation bytes are all >= 0x80, so the ASCII bytes looked at here are exactly
 * the characters they seem.
 */
export function jsonNestsDeeperThan(json: Uint8Array | string, max: number): boolean {
  const bytes = typeof json === 'string' ? new TextEncoder().encode(json) : json;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
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
