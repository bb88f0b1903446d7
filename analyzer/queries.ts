// Turns pg_stat_statements rows into the query catalog's entries: one per libpg_query fingerprint,
// so the same statement seen under several queryids (other roles, top-level or nested, literals
// pg_stat_statements did not normalize) becomes one entry with its figures merged.
import { parseSync } from 'libpg-query';
import type { QueryStats } from '../shared/analyzer-schema';
import { fingerprintOf, formatQuery, loadParser } from '../shared/sql-fingerprint';
import { listStatements } from './catalog/statements.sql';
import { mergeStatements, type StatementWithText } from './statement-merge';
import type { Gateway } from '../gateway/index';
import type { SchemaFilters } from '../shared/schema-filters';
import { relationsOf, type Relation } from './statement-relations';
import { statementSchemaFilter } from './statement-schemas';

/** What pg_stat_statements shows for another role's statement without pg_read_all_stats. */
const INSUFFICIENT_PRIVILEGE = '<insufficient privilege>';

const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

// A driver's session plumbing: nothing in it for a query plan to explain.
const SESSION_STATEMENTS = new Set(['TransactionStmt', 'VariableSetStmt', 'VariableShowStmt', 'DiscardStmt', 'DeallocateStmt']);

function isSystemRelation({ schema, name }: Relation): boolean {
  return schema !== undefined ? SYSTEM_SCHEMAS.has(schema) : name.startsWith('pg_');
}

type StatementKind = 'user' | 'systemCatalog' | 'session';

/**
 * Where a statement's first keyword starts: past whitespace, opening parentheses and comments
 * (nested block comments included, as PostgreSQL reads them). A plain loop: statement texts come
 * from pg_stat_statements, where any database user can leave one built to make a backtracking
 * regular expression take forever.
 */
function firstKeywordAt(query: string): number {
  let i = 0;
  while (i < query.length) {
    const c = query.charCodeAt(i);
    // space, \t, \n, \v, \f, \r and (
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x28) {
      i++;
    } else if (query.startsWith('--', i)) {
      const end = query.indexOf('\n', i + 2);
      if (end < 0) return query.length;
      i = end + 1;
    } else if (query.startsWith('/*', i)) {
      let depth = 1;
      i += 2;
      while (i < query.length && depth > 0) {
        if (query.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (query.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      }
    } else break;
  }
  return i;
}

// Parsing is costly (a sync may see thousands of long DDL statements), so only statements that
// could be anything but 'user' are parsed: a query naming a system catalog, or one starting with a
// session keyword. DDL that mentions pg_ (a pg_trgm opclass, pg_catalog.set_config) is not a query.
// Each pattern is anchored and has no nested or overlapping repetition: linear in the text's length.
const QUERY_KEYWORD = /^(?:select|with|table|values)\b/i;
const NAMES_SYSTEM = /\bpg_|information_schema/i;
const MAY_BE_SESSION = /^\s*(?:begin|start|commit|end|rollback|abort|savepoint|release|prepare\s+transaction|set|reset|show|discard|deallocate)\b/i;

function mayBeSystem(query: string): boolean {
  const rest = query.slice(firstKeywordAt(query));
  return QUERY_KEYWORD.test(rest) && NAMES_SYSTEM.test(rest);
}

/** Whether a statement belongs in the catalog: not one that reads only PostgreSQL's own catalogs. */
export function classifyStatement(query: string): StatementKind {
  if (!mayBeSystem(query) && !MAY_BE_SESSION.test(query)) return 'user';
  let tree: ReturnType<typeof parseSync>;
  try {
    tree = parseSync(query);
  } catch {
    return 'user'; // what the parser cannot read, the user still wants to see
  }
  const roots = (tree.stmts ?? []).map((s) => Object.keys(s.stmt ?? {})[0] ?? '');
  if (roots.length > 0 && roots.every((root) => SESSION_STATEMENTS.has(root))) return 'session';
  const relations = relationsOf(tree);
  if (relations.length > 0 && relations.every(isSystemRelation)) return 'systemCatalog';
  return 'user';
}

/** The statement's fingerprint, or null when the parser cannot read it. */
function hashOf(query: string): string | null {
  try {
    return fingerprintOf(query);
  } catch {
    return null;
  }
}

// Parsing, fingerprinting and formatting are pure functions of the text and the costly part of a
// sync (thousands of statements on a busy server), while the texts barely change between two syncs.
// Kept per process, bounded: the oldest entries go first.
const CACHE_LIMIT = 50_000;
const hashCache = new Map<string, string | null | typeof UNPARSEABLE>();
const formatCache = new Map<string, string>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

const UNPARSEABLE = Symbol('unparseable');

/**
 * The entry's fingerprint; null when the statement does not belong in the catalog, UNPARSEABLE when
 * the parser cannot read it (PostgreSQL 18 keeps `SAVEPOINT $1`, which is not valid SQL).
 */
function catalogHash(query: string): string | null | typeof UNPARSEABLE {
  const cached = hashCache.get(query);
  if (cached !== undefined) return cached;
  return remember(hashCache, query, classifyStatement(query) === 'user' ? (hashOf(query) ?? UNPARSEABLE) : null);
}

/** The catalog's fingerprint of a pg_stat_statements text; null when it is not a catalog query or does not parse. */
export function catalogHashOf(query: string): string | null {
  const hash = catalogHash(query);
  return hash === UNPARSEABLE ? null : hash;
}

async function formatted(query: string): Promise<string> {
  const cached = formatCache.get(query);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    text = await formatQuery(query);
  } catch {
    text = query; // it fingerprinted, so it parses; printing it is a nicety
  }
  return remember(formatCache, query, text);
}

export interface QueriesResult {
  queries: QueryStats[];
  insufficientPrivilege: number;
  /** Entries the parser could not read: left out and counted, never a failure of the whole read. */
  unparseable: number;
}

/**
 * The connected database's statements, most total time first, at most `limit` entries. Only the
 * entries kept are pretty-printed: deparsing is the costly step.
 */
export async function readQueries(db: Gateway, databaseOid: number, database: string, limit: number, filters?: SchemaFilters): Promise<QueriesResult> {
  const [rows, keep] = await Promise.all([listStatements(db, databaseOid, database), loadParser().then(() => statementSchemaFilter(db, filters))]);
  let insufficientPrivilege = 0;
  let unparseable = 0;
  const groups = new Map<string, StatementWithText[]>();
  for (const row of rows) {
    if (row.query === null || row.query === INSUFFICIENT_PRIVILEGE) {
      insufficientPrivilege++;
      continue;
    }
    const withText = row as StatementWithText;
    const hash = catalogHash(withText.query);
    if (hash === null) continue;
    if (keep && !keep(withText.query)) continue; // it names a schema the connection's filters leave out
    if (hash === UNPARSEABLE) {
      unparseable++;
      continue;
    }
    const group = groups.get(hash);
    if (group) group.push(withText);
    else groups.set(hash, [withText]);
  }
  const merged = [...groups].map(([hash, group]) => ({ hash, ...mergeStatements(group) }));
  merged.sort((a, b) => b.totalTimeMs - a.totalTimeMs || b.calls - a.calls);
  const queries: QueryStats[] = [];
  for (const entry of merged.slice(0, limit)) {
    const { hash, ...figures } = entry;
    queries.push({ hash, formattedQuery: await formatted(entry.query), ...figures });
  }
  return { queries, insufficientPrivilege, unparseable };
}
