// Schema filters of a database connection: which of its schemas querytrail reads. Shared by the
// server's edge, the SPA's connection form and the analyzer's request body.
//
// A pattern is a glob over the schema's name, as pg_dump's -n / -N take them: `*` is any run of
// characters (none included), `?` is one character, everything else stands for itself, case
// included (names are compared as PostgreSQL stores them, so `Tenant_*` does not match `tenant_1`).
// A schema is read when it matches an include pattern (or there are none) and no exclude pattern:
// exclude wins. PostgreSQL's own schemas are never read whatever the patterns say.
//
// The patterns reach PostgreSQL only as bound parameters, turned into LIKE patterns (likePatterns):
// no statement is built from them.
import { z } from 'zod';
import { isPlainLine } from './validation';

/** Patterns per list: enough for any hand-written list, few enough to match cheaply per schema. */
export const SCHEMA_PATTERNS_MAX = 100;
/** A schema name is at most 63 bytes (NAMEDATALEN - 1); so is a pattern that could match one. */
export const SCHEMA_PATTERN_MAX_BYTES = 63;

// Characters a regular expression is written with: someone writing `^tenant_.*$` meant a regex and
// would silently match nothing, so it is refused with the glob syntax in the message.
const REGEX_CHARACTERS = /[\\^$()[\]{}|+]/;

export const schemaPatternSchema = z
  .string()
  .trim()
  .min(1, 'A schema pattern must not be empty')
  .refine(
    (p) => new TextEncoder().encode(p).length <= SCHEMA_PATTERN_MAX_BYTES,
    `A schema pattern is at most ${SCHEMA_PATTERN_MAX_BYTES} bytes, like a schema name`,
  )
  .refine(isPlainLine, 'A schema pattern must not contain control characters')
  .refine(
    (p) => !REGEX_CHARACTERS.test(p),
    'Schema patterns are globs, not regular expressions: * matches any characters, ? one character (e.g. tenant_*); \\ ^ $ ( ) [ ] { } | + are not allowed',
  );

const patternList = (what: string) =>
  z
    .array(schemaPatternSchema)
    .max(SCHEMA_PATTERNS_MAX, `At most ${SCHEMA_PATTERNS_MAX} ${what} patterns`)
    .meta({ description: `Glob patterns (* any characters, ? one character, case-sensitive) of schemas to ${what}` });

export const includeSchemasSchema = patternList('include');
export const excludeSchemasSchema = patternList('exclude');

export interface SchemaFilters {
  /** Read only schemas matching one of these; empty or absent: every schema. */
  includeSchemas?: string[];
  /** Never read schemas matching one of these (wins over include). */
  excludeSchemas?: string[];
}

export const NO_SCHEMA_FILTERS: SchemaFilters = { includeSchemas: [], excludeSchemas: [] };

export const schemaFiltersSchema = z.object({
  includeSchemas: includeSchemasSchema.default([]),
  excludeSchemas: excludeSchemasSchema.default([]),
});

export function hasSchemaFilters(filters: SchemaFilters | undefined): filters is SchemaFilters {
  return !!filters && ((filters.includeSchemas?.length ?? 0) > 0 || (filters.excludeSchemas?.length ?? 0) > 0);
}

/** One glob as a LIKE pattern with LIKE's default escape (backslash). */
export function likePattern(glob: string): string {
  let like = '';
  for (const c of glob) {
    if (c === '*') like += '%';
    else if (c === '?') like += '_';
    else if (c === '%' || c === '_' || c === '\\') like += `\\${c}`;
    else like += c;
  }
  return like;
}

/**
 * The two bound parameters every filtered catalog statement takes: the include and exclude
 * patterns as LIKE patterns (text[]). See analyzer/catalog/filters.ts allowedSchema for the predicate.
 */
export function schemaFilterParams(filters: SchemaFilters | undefined): [string[], string[]] {
  return [(filters?.includeSchemas ?? []).map(likePattern), (filters?.excludeSchemas ?? []).map(likePattern)];
}

/**
 * SQL predicate on a pg_namespace alias: the filters allow the schema. `include` and `exclude` name
 * two bound text[] parameters ($1, $2...) holding schemaFilterParams: an empty include list allows
 * every schema, exclude wins. Operators are schema-qualified, as every catalog statement's are.
 */
export function allowedSchema(namespaceAlias: string, include: string, exclude: string): string {
  const name = `${namespaceAlias}.nspname::pg_catalog.text`;
  return `(pg_catalog.cardinality(${include}::pg_catalog.text[]) OPERATOR(pg_catalog.=) 0 OR ${name} OPERATOR(pg_catalog.~~) ANY (${include}::pg_catalog.text[])) AND NOT (${name} OPERATOR(pg_catalog.~~) ANY (${exclude}::pg_catalog.text[]))`;
}

function globRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'su');
}

/**
 * The same rule in JavaScript, for names that come from statement texts (history's attribution of
 * a pg_stat_statements entry to the schemas it names), never for reading a catalog.
 */
export function schemaMatcher(filters: SchemaFilters | undefined): (schema: string) => boolean {
  if (!hasSchemaFilters(filters)) return () => true;
  const include = (filters.includeSchemas ?? []).map(globRegExp);
  const exclude = (filters.excludeSchemas ?? []).map(globRegExp);
  return (schema) => (include.length === 0 || include.some((r) => r.test(schema))) && !exclude.some((r) => r.test(schema));
}

/**
 * SQL predicate on a pg_namespace alias: the schema is the user's, not PostgreSQL's own (nor
 * another session's temp or toast schema). Every catalog read agrees through it on what "the
 * database" is.
 */
export function userSchema(namespaceAlias: string): string {
  const n = namespaceAlias;
  return `${n}.nspname NOT IN ('pg_catalog', 'information_schema') AND ${n}.nspname OPERATOR(pg_catalog.!~~) 'pg\\_toast%' AND ${n}.nspname OPERATOR(pg_catalog.!~~) 'pg\\_temp\\_%'`;
}

/**
 * SQL predicate: the object (of catalog `catalog`) does not belong to an extension. CREATE
 * EXTENSION recreates those, so neither the analyzer nor the snapshot counts them as the user's.
 */
export function notFromExtension(catalog: string, oidExpression: string): string {
  return `NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend dep WHERE dep.classid = 'pg_catalog.${catalog}'::pg_catalog.regclass AND dep.objid = ${oidExpression} AND dep.deptype = 'e')`;
}
