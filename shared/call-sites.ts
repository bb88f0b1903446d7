// Where a query comes from in the application: the tags ORMs and frameworks put in a comment of
// the statement's text, read once at ingestion. The conventions read:
//   sqlcommenter (Django, SQLAlchemy, Knex, Sequelize, Spring, Prisma's plugin, Rails 7 with
//     `:sqlcommenter` format):          /*controller='users',route='%2Fapi%2Fusers',framework='django%3A4.2'*/
//     keys and values URL-encoded, values single-quoted (a quote inside escaped as \').
//   marginalia and Rails 7 query log tags in their legacy format:
//                                      /*application:Shop,controller:users,action:show*/
//   W3C trace context:                 traceparent='00-<trace>-<span>-01' (as a sqlcommenter tag)
// `file` ('app/models/user.rb:42'), `source_location` (Rails 7.1, 'app/models/user.rb:42:in ...'),
// `code.filepath` / `code.lineno` (OpenTelemetry) and `line` give the file and line.
//
// The text is hostile input (a CI database's pg_stat_statements, a production's): every step is
// bounded. Only the first MAX_SCAN characters are scanned, at most MAX_COMMENTS comments read, a
// comment longer than MAX_COMMENT characters or nested in another is skipped, and a call site keeps
// at most MAX_TAGS tags of bounded keys and values, without control characters. The tags never
// reach the fingerprint: libpg_query drops comments before hashing.
import { z } from 'zod';

export const CALL_SITE_LIMITS = {
  /** Characters of a statement's text looked at: comments come first or last, and long texts are cut. */
  maxScan: 64 * 1024,
  maxComments: 8,
  maxComment: 4096,
  maxTags: 16,
  maxKey: 64,
  maxValue: 512,
  /** Call sites kept per query of a run (texts of one fingerprint may carry different tags). */
  perRunQuery: 5,
  /** Call sites kept per catalog entry, newest first. */
  perCatalogQuery: 10,
} as const;

export const callSiteSchema = z.object({
  file: z.string().optional().meta({ description: "Source file that issued the query, e.g. 'app/models/order.rb'" }),
  line: z.number().int().optional(),
  controller: z.string().optional(),
  action: z.string().optional(),
  route: z.string().optional(),
  framework: z.string().optional(),
  tags: z.record(z.string(), z.string()).meta({ description: "Every tag of the query's comment, decoded (traceparent included)" }),
});
export type CallSite = z.infer<typeof callSiteSchema>;

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const clean = (text: string, max: number) => text.replace(CONTROL, '').trim().slice(0, max);

/** URL-decoding that never throws: a malformed escape leaves the text as it is. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The top-level comments of the text, skipping quoted strings; nested ones are dropped whole. */
export function commentsOf(text: string): string[] {
  const end = Math.min(text.length, CALL_SITE_LIMITS.maxScan);
  const comments: string[] = [];
  let i = 0;
  while (i < end && comments.length < CALL_SITE_LIMITS.maxComments) {
    const c = text[i];
    if (c === "'" || c === '"') {
      // a literal or quoted identifier: a '/*' inside is not a comment ('' and "" escape themselves)
      const close = text.indexOf(c, i + 1);
      if (close < 0 || close >= end) break;
      i = close + 1;
      continue;
    }
    if (c === '-' && text[i + 1] === '-') {
      const newline = text.indexOf('\n', i);
      if (newline < 0) break;
      i = newline + 1;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      // PostgreSQL's comments nest: find the matching close, in one pass
      let depth = 1;
      let j = i + 2;
      let nested = false;
      while (j < end && depth > 0) {
        if (text[j] === '/' && text[j + 1] === '*') {
          depth++;
          nested = true;
          j += 2;
        } else if (text[j] === '*' && text[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      if (depth > 0) break;
      const body = text.slice(i + 2, j - 2);
      if (!nested && body.length <= CALL_SITE_LIMITS.maxComment) comments.push(body);
      i = j;
      continue;
    }
    i++;
  }
  return comments;
}

/** key='value' pairs (sqlcommenter) or key:value pairs (marginalia); an empty map when neither reads. */
export function tagsOf(comment: string): Record<string, string> {
  const tags: Record<string, string> = {};
  let count = 0;
  const put = (rawKey: string, rawValue: string) => {
    if (count >= CALL_SITE_LIMITS.maxTags) return;
    const key = clean(decode(rawKey), CALL_SITE_LIMITS.maxKey);
    const value = clean(rawValue, CALL_SITE_LIMITS.maxValue);
    if (!key || !/^[\w.:-]+$/.test(key) || key in tags || !value) return;
    tags[key] = value;
    count++;
  };
  const text = comment.trim();
  if (/^[\w.%-]+\s*=\s*'/.test(text)) {
    // sqlcommenter: key='value', values may hold \' and commas
    const pair = /([\w.%-]+)\s*=\s*'((?:[^'\\]|\\.)*)'\s*(?:,|$)/gy;
    let match: RegExpExecArray | null;
    while ((match = pair.exec(text)) !== null && count < CALL_SITE_LIMITS.maxTags) {
      put(match[1]!, decode(match[2]!.replace(/\\(.)/g, '$1')));
      pair.lastIndex = Math.max(pair.lastIndex, match.index + 1);
      while (text[pair.lastIndex] === ' ') pair.lastIndex++;
    }
    return tags;
  }
  // marginalia: key:value,key:value (a value may hold ':' itself, as in source_location)
  if (/^[\w.-]+:[^,]/.test(text)) {
    for (const part of text.split(',').slice(0, CALL_SITE_LIMITS.maxTags * 2)) {
      const colon = part.indexOf(':');
      if (colon > 0) put(part.slice(0, colon), part.slice(colon + 1));
    }
  }
  return tags;
}

const FILE_KEYS = ['file', 'filename', 'source_location', 'code.filepath', 'code_location'];
const LINE_KEYS = ['line', 'lineno', 'code.lineno'];

/** The call site a comment's tags describe; undefined when the comment holds no tag. */
export function callSiteOf(tags: Record<string, string>): CallSite | undefined {
  if (Object.keys(tags).length === 0) return undefined;
  const site: CallSite = { tags };
  const fileTag = FILE_KEYS.map((key) => tags[key]).find((value) => value !== undefined);
  if (fileTag !== undefined) {
    // 'app/models/user.rb:42' or Rails' 'app/models/user.rb:42:in `find`'
    const located = /^(.*?):(\d+)(?::in\b.*)?$/.exec(fileTag);
    site.file = located ? located[1] : fileTag;
    if (located) site.line = Number(located[2]);
  }
  const lineTag = LINE_KEYS.map((key) => tags[key]).find((value) => value !== undefined);
  if (site.line === undefined && lineTag !== undefined && /^\d{1,9}$/.test(lineTag)) site.line = Number(lineTag);
  for (const key of ['controller', 'action', 'route', 'framework'] as const) {
    if (tags[key] !== undefined) site[key] = tags[key];
  }
  return site;
}

const keyOf = (site: CallSite) => JSON.stringify(site);

/** The call sites of a statement's text, each once, at most CALL_SITE_LIMITS.perRunQuery. */
export function callSitesOf(text: string): CallSite[] {
  const sites = new Map<string, CallSite>();
  for (const comment of commentsOf(text)) {
    const site = callSiteOf(tagsOf(comment));
    if (site && sites.size < CALL_SITE_LIMITS.perRunQuery) sites.set(keyOf(site), site);
  }
  return [...sites.values()];
}

/** Call sites of several sightings, first ones first, each once, at most `max`. */
export function mergeCallSites(lists: readonly (readonly CallSite[])[], max: number = CALL_SITE_LIMITS.perRunQuery): CallSite[] {
  const sites = new Map<string, CallSite>();
  for (const list of lists) for (const site of list) if (sites.size < max && !sites.has(keyOf(site))) sites.set(keyOf(site), site);
  return [...sites.values()];
}

/** "app/models/order.rb:88, orders#index": how a call site reads in one line. */
export function describeCallSite(site: CallSite): string {
  const parts: string[] = [];
  if (site.file) parts.push(site.line === undefined ? site.file : `${site.file}:${site.line}`);
  if (site.controller && site.action) parts.push(`${site.controller}#${site.action}`);
  else if (site.controller) parts.push(site.controller);
  if (site.route) parts.push(site.route);
  if (parts.length === 0) {
    const [first] = Object.entries(site.tags);
    if (first) parts.push(`${first[0]}=${first[1]}`);
  }
  return parts.join(', ');
}

// ---------------------------------------------------------------- ignoring call sites by pattern

/**
 * A glob as a regular expression over a whole path: `**` any characters, `*` any but '/', `?` one
 * character but '/'; everything else literal. Linear: no nested quantifiers can arise.
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // 'a/**/b' also matches 'a/b'
      if (glob[i + 2] === '/') {
        source += '(?:[^]*/)?';
        i += 2;
      } else {
        source += '[^]*';
        i++;
      }
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * True when the query's call sites are all in ignored files: at least one call site names a file,
 * and every one that does matches a pattern. A query also called from application code is kept.
 */
export function callSitesIgnored(sites: readonly CallSite[], patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false;
  const files = sites.flatMap((site) => (site.file === undefined ? [] : [site.file]));
  if (files.length === 0) return false;
  const globs = patterns.map(globToRegExp);
  return files.every((file) => globs.some((glob) => glob.test(file)));
}
