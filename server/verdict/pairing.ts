// Changed, not new: a query of the run absent from its baseline is paired with a query of the
// baseline absent from the run when one is plainly an edit of the other. Two kinds of evidence:
// - a shared call site: both are issued from the same place in the code (the same file and line, or
//   the same controller, action and route), and no other unpaired query on either side is;
// - a close parse tree: the same statement kind on the same relations, at least half of the WHERE
//   conditions kept, and at most MAX_EDITS edits in all (a condition, a selected column or another
//   clause added, removed or changed). A query whose lookup condition was replaced is another query.
// Pure and deterministic: the same queries give the same pairs, whatever the order they arrive in.
import { parseSync } from 'libpg-query';
import { relationsOf } from '../../analyzer/statement-relations';
import { describeCallSite, type CallSite } from '../../shared/call-sites';

export interface PairingQuery {
  hash: string;
  query: string;
  callSites?: readonly CallSite[];
}

export interface QueryPair {
  /** The run's query. */
  hash: string;
  /** The baseline's query it is an edit of. */
  baselineHash: string;
  /** Why they were paired, in words. */
  reason: string;
}

/** More edits than this and the two are different queries. */
const MAX_EDITS = 3;
/** Parse-tree comparisons per run: a run that replaced thousands of queries on one table pairs what fits. */
const MAX_COMPARISONS = 100_000;

// ---------------------------------------------------------------- call sites

/** A call site precise enough to name one query: a file (and line), or a controller action and route. */
function siteKey(site: CallSite): string | null {
  if (site.file) return `file ${site.file}:${site.line ?? ''}`;
  if (site.controller || site.action || site.route) return `action ${site.controller ?? ''}#${site.action ?? ''} ${site.route ?? ''}`;
  return null;
}

/** Call-site key -> the one query carrying it; keys carried by several queries name none. */
function uniqueSites(queries: readonly PairingQuery[]): Map<string, { query: PairingQuery; site: CallSite }> {
  const found = new Map<string, { query: PairingQuery; site: CallSite } | null>();
  for (const query of queries) {
    const keys = new Map<string, CallSite>();
    for (const site of query.callSites ?? []) {
      const key = siteKey(site);
      if (key !== null && !keys.has(key)) keys.set(key, site);
    }
    for (const [key, site] of keys) found.set(key, found.has(key) ? null : { query, site });
  }
  return new Map([...found].flatMap(([key, value]) => (value ? [[key, value] as const] : [])));
}

// ---------------------------------------------------------------- parse trees

interface Shape {
  kind: string;
  relations: string;
  targets: string[];
  /** WHERE conditions (top-level AND terms), sorted: their order does not change the query. */
  conditions: string[];
  /** Every other clause, one token each. */
  clauses: string[];
}

/** A node with what does not make it another query removed: positions, parameter numbers, constants. */
function canonical(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(canonical);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'location') continue;
    out[key] = key === 'ParamRef' || key === 'A_Const' ? {} : canonical(value);
  }
  return out;
}

const token = (node: unknown) => JSON.stringify(canonical(node));

function conjuncts(node: unknown): unknown[] {
  const bool = (node as { BoolExpr?: { boolop?: string; args?: unknown[] } } | undefined)?.BoolExpr;
  if (bool?.boolop === 'AND_EXPR') return (bool.args ?? []).flatMap(conjuncts);
  return node === undefined ? [] : [node];
}

const OWN_CLAUSES = new Set(['targetList', 'cols', 'whereClause']);

/** The query's shape; null when it is not one statement the parser reads. */
function shapeOf(query: string): Shape | null {
  let tree: { stmts?: { stmt?: Record<string, Record<string, unknown>> }[] };
  try {
    tree = parseSync(query) as unknown as typeof tree;
  } catch {
    return null;
  }
  const stmt = tree.stmts?.length === 1 ? tree.stmts[0]!.stmt : undefined;
  if (!stmt) return null;
  const [kind] = Object.keys(stmt);
  const body = stmt[kind!]!;
  const relations = [...new Set(relationsOf(stmt).map((r) => (r.schema ? `${r.schema}.${r.name}` : r.name)))].sort();
  if (relations.length === 0) return null;
  return {
    kind: kind!,
    relations: relations.join(', '),
    targets: ((body.targetList ?? body.cols ?? []) as unknown[]).map(token),
    conditions: conjuncts(body.whereClause).map(token).sort(),
    clauses: Object.keys(body)
      .filter((key) => !OWN_CLAUSES.has(key))
      .sort()
      .map((key) => `${key}:${token(body[key])}`),
  };
}

/** Levenshtein distance between two token lists. */
function editDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Tokens of `b` not in `a`, counted with repeats. */
function added(a: readonly string[], b: readonly string[]): number {
  const left = new Map<string, number>();
  for (const t of a) left.set(t, (left.get(t) ?? 0) + 1);
  let count = 0;
  for (const t of b) {
    const n = left.get(t) ?? 0;
    if (n > 0) left.set(t, n - 1);
    else count++;
  }
  return count;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function changeOf(before: readonly string[], after: readonly string[], what: string): string | null {
  const plus = added(before, after);
  const minus = added(after, before);
  if (plus === 0 && minus === 0) return editDistance(before, after) > 0 ? `${what} reordered` : null;
  const parts = [];
  if (plus) parts.push(`${plus} added`);
  if (minus) parts.push(`${minus} removed`);
  return `${what}: ${parts.join(', ')}`;
}

interface Closeness {
  edits: number;
  detail: string;
}

/** How close the run's query is to the baseline's; null when they are different queries. */
function closeness(baseline: Shape, run: Shape): Closeness | null {
  if (baseline.kind !== run.kind || baseline.relations !== run.relations) return null;
  const conditions = editDistance(baseline.conditions, run.conditions);
  // at least half of the conditions kept: a query looked up by another column is another query
  if (conditions > Math.floor(Math.max(baseline.conditions.length, run.conditions.length) / 2)) return null;
  const edits = conditions + editDistance(baseline.targets, run.targets) + editDistance(baseline.clauses, run.clauses);
  const size = Math.max(
    baseline.conditions.length + baseline.targets.length + baseline.clauses.length,
    run.conditions.length + run.targets.length + run.clauses.length,
  );
  if (edits === 0 || edits > Math.min(MAX_EDITS, Math.floor(size / 2))) return null;
  const changes = [
    changeOf(baseline.conditions, run.conditions, 'WHERE conditions'),
    changeOf(baseline.targets, run.targets, baseline.kind === 'InsertStmt' ? 'columns' : 'select list'),
    changeOf(baseline.clauses, run.clauses, 'other clauses'),
  ].filter(Boolean);
  return { edits, detail: `same relations (${run.relations}), ${plural(edits, 'edit')} apart: ${changes.join('; ')}` };
}

// ---------------------------------------------------------------- pairing

/**
 * Pairs each of the run's new queries with at most one of the baseline's vanished queries: shared
 * call sites first (sorted by key), then the closest parse trees (fewest edits, then by hash).
 */
export function pairChangedQueries(runOnly: readonly PairingQuery[], baselineOnly: readonly PairingQuery[]): QueryPair[] {
  if (runOnly.length === 0 || baselineOnly.length === 0) return [];
  const pairs: QueryPair[] = [];
  const pairedRun = new Set<string>();
  const pairedBaseline = new Set<string>();
  const take = (run: string, baseline: string, reason: string) => {
    pairs.push({ hash: run, baselineHash: baseline, reason });
    pairedRun.add(run);
    pairedBaseline.add(baseline);
  };

  const runSites = uniqueSites(runOnly);
  const baselineSites = uniqueSites(baselineOnly);
  for (const key of [...runSites.keys()].sort()) {
    const run = runSites.get(key)!;
    const baseline = baselineSites.get(key);
    if (!baseline || pairedRun.has(run.query.hash) || pairedBaseline.has(baseline.query.hash)) continue;
    take(
      run.query.hash,
      baseline.query.hash,
      `shares its call site (${describeCallSite(run.site)}) with baseline query ${baseline.query.hash}, which this run no longer has`,
    );
  }

  const shapes = (queries: readonly PairingQuery[], paired: Set<string>) =>
    queries
      .filter((q) => !paired.has(q.hash))
      .flatMap((q) => {
        const shape = shapeOf(q.query);
        return shape ? [{ hash: q.hash, shape }] : [];
      });
  const baselineShapes = shapes(baselineOnly, pairedBaseline);
  const byRelations = new Map<string, typeof baselineShapes>();
  for (const entry of baselineShapes) {
    const key = `${entry.shape.kind} ${entry.shape.relations}`;
    byRelations.set(key, [...(byRelations.get(key) ?? []), entry]);
  }
  const candidates: { run: string; baseline: string; close: Closeness }[] = [];
  let budget = MAX_COMPARISONS;
  for (const run of shapes(runOnly, pairedRun).sort((a, b) => (a.hash < b.hash ? -1 : 1))) {
    for (const baseline of byRelations.get(`${run.shape.kind} ${run.shape.relations}`) ?? []) {
      if (budget-- <= 0) break;
      const close = closeness(baseline.shape, run.shape);
      if (close) candidates.push({ run: run.hash, baseline: baseline.hash, close });
    }
  }
  candidates.sort((a, b) => a.close.edits - b.close.edits || (a.run < b.run ? -1 : a.run > b.run ? 1 : 0) || (a.baseline < b.baseline ? -1 : 1));
  for (const { run, baseline, close } of candidates) {
    if (pairedRun.has(run) || pairedBaseline.has(baseline)) continue;
    take(run, baseline, `its parse tree is close to baseline query ${baseline}'s, which this run no longer has: ${close.detail}`);
  }
  return pairs.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
}
