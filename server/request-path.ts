// The request path as sent, checked once before any route. Each layer below resolves paths its own
// way: the OpenAPI adapter re-parses the URL with `new URL()` (which resolves `..`, `%2e%2e` and
// backslashes), express.static decodes, tRPC keeps only the last segment. A path on which they
// could disagree with the checks made before them (the bearer token, the route chosen) is refused
// with 400 instead of being interpreted: after this check, the path every layer sees is the one
// that was checked.
import type { Issue } from '../shared/errors';

type SegmentCheck = { ok: true; value: string } | { ok: false; message: string };

/** C0 and C1 controls and DEL: never part of an id, a repo, a hash or a file name. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

const PERCENT_ESCAPE = /%[0-9a-f]{2}/i;

/** Decodes one raw path segment exactly once and refuses values no route should ever receive. */
export function decodeSegment(raw: string, options: { slash: boolean }): SegmentCheck {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return { ok: false, message: 'is not valid percent-encoded UTF-8' };
  }
  if (hasControlCharacter(value)) return { ok: false, message: 'contains a control character' };
  if (value.includes('\\')) return { ok: false, message: 'contains a backslash' };
  if (value.includes('/') && !options.slash) return { ok: false, message: 'contains an encoded slash' };
  if (value.split('/').some((part) => part === '.' || part === '..')) return { ok: false, message: 'is a dot segment (. or ..)' };
  // %252e decodes to %2e: a value still holding an escape was encoded twice, to get past a check
  if (PERCENT_ESCAPE.test(value)) return { ok: false, message: 'is percent-encoded twice' };
  return { ok: true, value };
}

/** The path of a request target (origin-form), without its query; undefined for any other form. */
export function pathOf(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  const end = target.indexOf('?');
  return end === -1 ? target : target.slice(0, end);
}

/**
 * Checks a request target: origin-form only (no `http://host/...`, no `*`), printable ASCII, no
 * fragment, no empty segment but a trailing slash, and every segment passes decodeSegment. Encoded
 * slashes are accepted only under /api/, where a path parameter may hold one (org%2Frepo).
 */
export function checkRequestPath(target: string): Issue | undefined {
  const path = pathOf(target);
  if (path === undefined) return { path: '(path)', message: 'The request target must be a path starting with /' };
  if (/[^\x21-\x7e]|[#\\]/.test(path)) return { path: '(path)', message: 'The path may contain only printable ASCII, without # or \\' };
  const segments = path.slice(1).split('/');
  const slash = path.startsWith('/api/');
  for (const [index, raw] of segments.entries()) {
    if (raw === '') {
      if (index === segments.length - 1) continue;
      return { path: '(path)', message: 'The path has an empty segment (//)' };
    }
    const check = decodeSegment(raw, { slash });
    if (!check.ok) return { path: '(path)', message: `Path segment ${JSON.stringify(raw.slice(0, 60))} ${check.message}` };
  }
  return undefined;
}
