// From how a query uses each table (usage.ts) to the indexes worth trying on it. The shadow
// planner, not this file, decides which candidate wins, so generation errs on the side of trying
// more: every single column, then composites, covering and partial variants.
import type { TableMap, TableName } from './table-map.js';
import { quoteIdent } from './sql-text.js';
import type { TableUsage } from './usage.js';

export interface IndexCandidate extends TableName {
  am: 'btree' | 'gin';
  keys: string[];
  /** Key columns stored descending: a sort with mixed directions needs them (absent: all ascending). */
  desc?: string[];
  include: string[];
  predicate: string | null;
  /** Columns the predicate fixes to one value (`status = 'refunded'`): the index serves that value only. */
  fixes?: string[];
}

export interface CandidateOptions {
  /** Most key columns in a B-tree candidate; 1 gives the single-column advisor. Default 3. */
  maxColumns?: number;
  partial?: boolean;
  include?: boolean;
  gin?: boolean;
}

/** Most columns a covering candidate adds as INCLUDE: beyond that the index grows toward a copy of the table. */
const MAX_INCLUDE = 4;

/** Two candidates with the same key are the same index. */
export const candidateKey = (c: IndexCandidate) =>
  `${c.schema}.${c.table}|${c.am}|${c.keys.map((k) => (c.desc?.includes(k) ? `${k} DESC` : k)).join(',')}|${c.include.join(',')}|${c.predicate ?? ''}`;

/** What follows CREATE INDEX ... ON: the table, the method, the columns and the predicate, as SQL. */
export function candidateTarget(c: IndexCandidate): string {
  return (
    `${quoteIdent(c.schema)}.${quoteIdent(c.table)}${c.am === 'btree' ? '' : ` USING ${c.am}`} (${c.keys.map((k) => `${quoteIdent(k)}${c.desc?.includes(k) ? ' DESC' : ''}`).join(', ')})` +
    (c.include.length ? ` INCLUDE (${c.include.map(quoteIdent).join(', ')})` : '') +
    (c.predicate ? ` WHERE ${c.predicate}` : '')
  );
}

/** Candidate indexes for one query's table usages; duplicates removed, existing coverage not yet checked. */
export function candidatesFor(usages: TableUsage[], tables: TableMap, options: CandidateOptions = {}): IndexCandidate[] {
  const maxColumns = options.maxColumns ?? 3;
  const out = new Map<string, IndexCandidate>();
  for (const usage of usages) {
    for (const c of tableCandidates(usage, tables, options, maxColumns)) {
      // A column twice (twice a key, or a key and an INCLUDE) adds nothing to an index.
      if (c.keys.length === 0 || new Set([...c.keys, ...c.include]).size !== c.keys.length + c.include.length) continue;
      if (c.am === 'btree' && c.keys.length > maxColumns) continue;
      out.set(candidateKey(c), c);
    }
  }
  return [...out.values()];
}

/** The columns of one table reference, sorted by the part they can play in an index. */
interface KeyColumns {
  /** Equality columns, most distinct (most selective) first. */
  eq: string[];
  joins: string[];
  /** What may follow the equality columns: one range column, or the ORDER BY or GROUP BY columns. */
  tails: string[][];
}

function keyColumns(usage: TableUsage, tables: TableMap): KeyColumns {
  const table = { schema: usage.schema, table: usage.table };
  const plain = usage.uses.filter((x) => !x.inOr);
  const columns = (kind: string) => [...new Set(plain.filter((x) => x.kind === kind).map((x) => x.column))];
  const eq = columns('eq').sort((a, b) => tables.distinct(table, b) - tables.distinct(table, a));
  const tails = [...columns('range').map((r) => [r]), ...(usage.orderBy.length ? [usage.orderBy] : []), ...(usage.groupBy.length ? [usage.groupBy] : [])];
  return { eq, joins: columns('join'), tails };
}

function tableCandidates(usage: TableUsage, tables: TableMap, options: CandidateOptions, maxColumns: number): IndexCandidate[] {
  const table = { schema: usage.schema, table: usage.table };
  const btree = (keys: string[], include: string[] = [], predicate: string | null = null): IndexCandidate => ({
    ...table,
    am: 'btree',
    keys,
    include,
    predicate,
  });
  const { eq, joins, tails } = keyColumns(usage, tables);

  // Single columns: what the simplest advisors try, and what an OR's bitmap scans need.
  const out: IndexCandidate[] = [];
  for (const x of usage.uses) if (x.kind !== 'contain') out.push(btree([x.column]));
  for (const t of tails) out.push(btree([t[0]!]));
  if (options.gin !== false)
    for (const x of usage.uses) if (x.kind === 'contain') out.push({ ...table, am: 'gin', keys: [x.column], include: [], predicate: null });
  if (maxColumns < 2) return out;

  const keySets = compositeKeys(eq, joins, tails);
  const desc = sortDirections(usage);
  // Keys that hold the whole sort take its directions; a B-tree read backwards gives the reverse.
  const directed = (keys: string[]) => (desc.length && usage.orderBy.every((c) => keys.includes(c)) ? { desc } : {});
  for (const k of keySets) out.push({ ...btree(k.slice(0, maxColumns)), ...directed(k.slice(0, maxColumns)) });

  // Covering variants: the remaining columns the query reads, as INCLUDE, for an index-only scan;
  // and, when they fit among the keys, as further keys instead: a range or equality there is
  // checked inside the index (fewer heap rows), and one such index may serve other queries'
  // filters and sorts too, where INCLUDE columns serve no search.
  if (options.include !== false && usage.referenced) {
    const referenced = [...usage.referenced];
    const rank = keyRank(usage);
    for (const k of keySets) {
      const keys = k.slice(0, maxColumns);
      const rest = referenced.filter((c) => !keys.includes(c));
      if (keys.length && rest.length > 0 && rest.length <= MAX_INCLUDE) out.push({ ...btree(keys, rest), ...directed(keys) });
      if (keys.length && rest.length > 0 && keys.length + rest.length <= maxColumns) out.push(btree([...keys, ...[...rest].sort((a, b) => rank(a) - rank(b))]));
    }
  }

  // Grouping columns ahead of the equalities: rows come out in the group's order, and on
  // PostgreSQL 18 a skip scan seeks the equalities within each leading value.
  if (usage.groupBy.length && eq.length) {
    const keys = [...usage.groupBy, ...eq.filter((c) => !usage.groupBy.includes(c))];
    if (keys.length <= maxColumns) out.push(btree(keys));
  }

  if (options.partial !== false) {
    for (const p of partialCandidates(usage, keySets, joins, maxColumns))
      out.push({ ...btree(p.keys, [], p.predicate), ...(p.fixes.length && { fixes: p.fixes }) });
  }
  return out;
}

/** Where a trailing key column goes best: ranges (searched in the index) first, then equalities, joins, the rest. */
function keyRank(usage: TableUsage): (column: string) => number {
  const plain = usage.uses.filter((x) => !x.inOr);
  const order = ['range', 'eq', 'join'];
  return (column) => {
    const kinds = plain.filter((x) => x.column === column).map((x) => order.indexOf(x.kind));
    const best = Math.min(...kinds.filter((i) => i >= 0));
    return Number.isFinite(best) ? best : order.length;
  };
}

/**
 * The sort's columns an index must store descending to return rows in its order, read forwards or
 * backwards: those whose direction differs from the first sort column's (ORDER BY a DESC, b wants
 * (a, b DESC), which read backwards is a DESC, b). Empty when every column goes one way.
 */
function sortDirections(usage: TableUsage): string[] {
  const dirs = usage.orderDesc ?? [];
  if (!dirs.some((d) => d !== dirs[0])) return [];
  return usage.orderBy.filter((_, i) => (dirs[i] ?? false) !== (dirs[0] ?? false));
}

/**
 * Key column lists: the equality columns first (most selective first), then one range column or
 * the sort/group columns, as a B-tree can seek the equalities and then scan a range in order. A
 * join column goes first (the inner side of a nested loop seeks it) or last.
 */
function compositeKeys(eq: string[], joins: string[], tails: string[][]): string[][] {
  const heads: string[][] = [
    eq,
    eq.slice(0, 2),
    ...joins.flatMap((j) => [
      [j, ...eq.filter((c) => c !== j)],
      [...eq.filter((c) => c !== j), j],
    ]),
  ];
  const keySets: string[][] = [];
  for (const h of heads) {
    keySets.push(h);
    for (const t of tails) keySets.push([...h, ...t.filter((c) => !h.includes(c))]);
  }
  return keySets;
}

/**
 * Partial candidates: the query's constant conjuncts (`status = 'refunded'`, `return_date IS
 * NULL`) become the predicate, and a column the predicate fixes is no longer worth a key.
 */
function partialCandidates(
  usage: TableUsage,
  keySets: string[][],
  joins: string[],
  maxColumns: number,
): { keys: string[]; predicate: string; fixes: string[] }[] {
  const plain = usage.uses.filter((x) => !x.inOr);
  const constants = [...new Set(plain.filter((x) => x.constant).map((x) => x.constant!)), ...usage.filters];
  if (constants.length === 0) return [];
  const fixed = new Set(plain.filter((x) => x.constant && x.kind === 'eq').map((x) => x.column));
  const predicate = constants.join(' AND ');
  const partialKeys = keySets.map((k) => k.filter((c) => !fixed.has(c)).slice(0, maxColumns)).filter((k) => k.length > 0);
  // A predicate with nothing else to index still helps a join.
  const fixes = [...fixed];
  if (partialKeys.length === 0) return joins.map((j) => ({ keys: [j], predicate, fixes }));
  return partialKeys.map((keys) => ({ keys, predicate, fixes }));
}

/**
 * An existing index covers a candidate when it can serve every scan the candidate could: same
 * method, the candidate's keys a prefix of its keys, the candidate's INCLUDE columns among its
 * columns, and the same predicate. Predicates are compared as pg_get_expr prints them, for the
 * candidate too (the shadow reads it back once the candidate is built). A full index does not
 * cover a partial candidate: the partial one skips the rows its predicate leaves out.
 */
export function isCovered(candidate: IndexCandidate, existing: { am: string; keys: (string | null)[]; include: string[]; predicate: string | null }): boolean {
  if (existing.am !== candidate.am) return false;
  // Directions are not read from production's indexes: a mixed-direction candidate is always tried.
  if (candidate.desc?.length) return false;
  if (candidate.am === 'gin') return existing.keys.length === 1 && existing.keys[0] === candidate.keys[0];
  if (existing.predicate !== candidate.predicate) return false;
  if (existing.keys.length < candidate.keys.length) return false;
  if (!candidate.keys.every((k, i) => existing.keys[i] === k)) return false;
  const available = new Set([...existing.keys.filter((k): k is string => k !== null), ...existing.include]);
  return candidate.include.every((c) => available.has(c));
}
