// A shadow that carries only what its queries need. Rebuilding a whole production schema costs
// minutes on a large one (GitLab's structure.sql in ten tenant schemas: 8,930 tables and 36,420
// indexes, 2 minutes) while a CI run's queries touch a few tables. A query plans exactly the same
// on a copy that holds only what it needs (snapshot/scope.ts says what that is, and reads it from
// production); this file works the same out on a snapshot's graph, without production:
//
// - queryRefs: the relation, function and type names a query's text uses (libpg-query's tree:
//   every RangeVar, FuncCall, TypeName, and a 'name'::regclass constant);
// - closure / subsetSnapshot: the snapshot cut to what some queries need: the relations they
//   name, resolved as production's search_path resolves them (a snapshot read for them recorded
//   how production resolved them, scope.relations; a snapshot of everything resolves by itself),
//   then the graph's edges: a used relation's partitions and children and a view's relations
//   (used too), parents and row types' tables (needed), types and functions; each kept table's
//   indexes, constraints, foreign keys to kept tables, sizes, statistics and extremes;
// - missingFrom: what a snapshot read for other queries lacks for these (read then from production
//   and merged in, mergeSnapshots), so a stored snapshot grows with the queries that use it.
import { parseSync } from 'libpg-query';
import type { GraphObject, GraphRelation, SnapshotScope, SnapshotDdl, Snapshot, ObjectName, QueryRefs } from '../snapshot/types.js';
import { nameKey, searchPathSchemas } from '../snapshot/names.js';

type Node = Record<string, unknown>;
const isObj = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const svals = (list: unknown): string[] => (Array.isArray(list) ? list.map((x) => (isObj(x) && isObj(x.String) ? String(x.String.sval ?? '') : '')) : []);

/** `a.b` or `"A".b` as the parser reads an identifier chain in a string constant ('t'::regclass). */
function identifierChain(text: string): string[] | undefined {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    let part = '';
    if (text[i] === '"') {
      i++;
      for (; i < text.length; i++) {
        if (text[i] === '"' && text[i + 1] === '"') {
          part += '"';
          i++;
        } else if (text[i] === '"') break;
        else part += text[i];
      }
      i++;
    } else {
      const end = text.indexOf('.', i);
      part = text
        .slice(i, end < 0 ? text.length : end)
        .trim()
        .toLowerCase();
      i = end < 0 ? text.length : end;
    }
    parts.push(part);
    if (text[i] === '.') i++;
    else if (i < text.length) return undefined;
  }
  return parts.length ? parts : undefined;
}

const qualified = (names: string[]): ObjectName | undefined => {
  const parts = names.filter((s) => s !== '');
  if (!parts.length) return undefined;
  const name = parts.at(-1)!;
  const schema = parts.length > 1 ? parts.at(-2) : undefined;
  if (schema === 'pg_catalog') return undefined;
  return schema === undefined ? { name } : { schema, name };
};

/**
 * The names the queries' texts use. A text libpg-query cannot parse gives none (it is not planned
 * either). A CTE's name is read as a relation's too: harmless, a name nothing has adds nothing.
 * The parser must be loaded (loadParser in shared/sql-fingerprint.ts).
 */
export function queryRefs(sqls: Iterable<string>): QueryRefs {
  const found = { relations: new Map<string, ObjectName>(), functions: new Map<string, ObjectName>(), types: new Map<string, ObjectName>() };
  const add = (map: Map<string, ObjectName>, n: ObjectName | undefined) => n && map.set(nameKey(n), n);
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isObj(v)) return;
    // A RangeVar is wrapped ({RangeVar: {...}}) where a node of any type may stand, bare where only
    // a RangeVar may (INSERT/UPDATE/DELETE/MERGE targets); a TypeName likewise (a cast's type).
    const rv = isObj(v.RangeVar) ? v.RangeVar : typeof v.relname === 'string' && 'relpersistence' in v ? v : undefined;
    if (rv && typeof rv.relname === 'string') add(found.relations, qualified([typeof rv.schemaname === 'string' ? rv.schemaname : '', rv.relname]));
    const fc = v.FuncCall;
    if (isObj(fc)) add(found.functions, qualified(svals(fc.funcname)));
    for (const tn of [v.TypeName, v.typeName]) if (isObj(tn) && Array.isArray(tn.names)) add(found.types, qualified(svals(tn.names)));
    const cast = v.TypeCast;
    if (isObj(cast) && isObj(cast.typeName)) {
      // 'name'::regclass is resolved while planning: that relation must exist.
      const type = svals(cast.typeName.names).at(-1);
      const arg = isObj(cast.arg) && isObj(cast.arg.A_Const) && isObj(cast.arg.A_Const.sval) ? cast.arg.A_Const.sval.sval : undefined;
      if (type === 'regclass' && typeof arg === 'string') add(found.relations, qualified(identifierChain(arg) ?? []));
    }
    for (const value of Object.values(v)) visit(value);
  };
  for (const sql of sqls) {
    try {
      visit(parseSync(sql));
    } catch {
      // not planned either
    }
  }
  return { relations: [...found.relations.values()], functions: [...found.functions.values()], types: [...found.types.values()] };
}

/** What a snapshot lacks for some queries: names production has not resolved for it yet, and objects its graph names but it does not hold. */
export interface MissingScope {
  names: QueryRefs;
  used: string[];
  needed: string[];
  types: string[];
  functions: string[];
}

export interface Closure {
  relations: Set<string>;
  types: Set<string>;
  functions: Set<string>;
  /** How each of the queries' names resolved. */
  scope: SnapshotScope;
  missing: MissingScope;
}

/** Relation keys by name, for resolving names of a snapshot that holds every relation (or that a run created). */
function relationsByName(snapshot: Snapshot): Map<string, { schema: string; key: string }[]> {
  const byName = new Map<string, { schema: string; key: string }[]>();
  for (const [key, r] of Object.entries(snapshot.graph?.relations ?? {})) {
    const list = byName.get(r.name) ?? [];
    list.push({ schema: r.schema, key });
    byName.set(r.name, list);
  }
  return byName;
}

/**
 * What `refs` (and the relations `extra` names, as read by queries) need of the snapshot, by its
 * graph. Names are resolved as production resolved them when the snapshot recorded it; else,
 * in a snapshot of everything, as production's search_path would; in a scoped snapshot a name it
 * has not resolved is missing, and so is every object its graph names but it does not hold.
 */
export function closure(snapshot: Snapshot, refs: QueryRefs, extra: { used?: string[] } = {}): Closure {
  const graph = snapshot.graph ?? { relations: {}, types: {}, functions: {} };
  const complete = !snapshot.scope;
  const path = ['pg_catalog', ...searchPathSchemas(snapshot.searchPath)];
  const byName = relationsByName(snapshot);
  const out: Closure = {
    relations: new Set(),
    types: new Set(),
    functions: new Set(),
    scope: { relations: {}, functions: {}, types: {} },
    missing: { names: { relations: [], functions: [], types: [] }, used: [], needed: [], types: [], functions: [] },
  };
  const fromGraph = (n: ObjectName): string | undefined => {
    const candidates = byName.get(n.name) ?? [];
    if (n.schema !== undefined) return candidates.find((c) => c.schema === n.schema)?.key;
    for (const s of path) {
      const hit = candidates.find((c) => c.schema === s);
      if (hit) return hit.key;
    }
    return undefined;
  };
  const used: string[] = [...(extra.used ?? [])];
  for (const n of refs.relations) {
    const k = nameKey(n);
    const recorded = snapshot.scope?.relations[k];
    // Recorded as absent from production: a table only a CI run's schema has may still be in the graph.
    const key = recorded ?? fromGraph(n);
    if (recorded === undefined && !complete && key === undefined) {
      out.missing.names.relations.push(n);
      continue;
    }
    out.scope.relations[k] = key ?? null;
    if (key !== undefined) used.push(key);
  }
  const objectsByName = (objects: Record<string, GraphObject>, n: ObjectName) =>
    Object.entries(objects)
      .filter(([, o]) => o.name === n.name && (n.schema !== undefined ? o.schema === n.schema : path.includes(o.schema)))
      .map(([key]) => key);
  const typeRoots: string[] = [];
  const functionRoots: string[] = [];
  for (const [kind, list, recordedOf, objects, roots] of [
    ['functions', refs.functions, snapshot.scope?.functions, graph.functions, functionRoots],
    ['types', refs.types, snapshot.scope?.types, graph.types, typeRoots],
  ] as const) {
    for (const n of list) {
      const k = nameKey(n);
      const recorded = recordedOf?.[k];
      if (recorded === undefined && !complete) {
        out.missing.names[kind].push(n);
        continue;
      }
      const keys = recorded ?? objectsByName(objects, n);
      out.scope[kind][k] = keys;
      roots.push(...keys);
    }
  }

  // Walk the graph: used relations bring their children and a view's relations as used.
  const usedSeen = new Set<string>();
  const neededSeen = new Set<string>();
  const stackUsed = [...used];
  const stackNeeded: string[] = [];
  const stackTypes = [...typeRoots];
  const stackFunctions = [...functionRoots];
  const follow = (node: GraphObject) => {
    stackNeeded.push(...(node.needs ?? []));
    stackTypes.push(...(node.types ?? []));
    stackFunctions.push(...(node.functions ?? []));
  };
  while (stackUsed.length || stackNeeded.length || stackTypes.length || stackFunctions.length) {
    const u = stackUsed.pop();
    if (u !== undefined) {
      if (usedSeen.has(u)) continue;
      usedSeen.add(u);
      const rel = graph.relations[u];
      if (!rel) {
        out.missing.used.push(u);
        continue;
      }
      out.relations.add(u);
      stackUsed.push(...(rel.children ?? []), ...(rel.reads ?? []));
      if (!neededSeen.has(u)) follow(rel);
      neededSeen.add(u);
      continue;
    }
    const n = stackNeeded.pop();
    if (n !== undefined) {
      if (neededSeen.has(n)) continue;
      neededSeen.add(n);
      const rel: GraphRelation | undefined = graph.relations[n];
      if (!rel) {
        if (!usedSeen.has(n)) out.missing.needed.push(n);
        continue;
      }
      out.relations.add(n);
      stackNeeded.push(...(rel.reads ?? []));
      follow(rel);
      continue;
    }
    const t = stackTypes.pop();
    if (t !== undefined) {
      if (out.types.has(t) || out.missing.types.includes(t)) continue;
      const type = graph.types[t];
      if (!type) {
        out.missing.types.push(t);
        continue;
      }
      out.types.add(t);
      follow(type);
      continue;
    }
    const f = stackFunctions.pop()!;
    if (out.functions.has(f) || out.missing.functions.includes(f)) continue;
    const fn = graph.functions[f];
    if (!fn) {
      out.missing.functions.push(f);
      continue;
    }
    out.functions.add(f);
    follow(fn);
  }
  // A snapshot of everything lacks nothing: an object its graph names and it does not hold is one the shadow does not copy.
  if (complete) out.missing = { names: { relations: [], functions: [], types: [] }, used: [], needed: [], types: [], functions: [] };
  return out;
}

/** What the snapshot lacks for `refs`, or undefined when it holds all of it (always, for a snapshot of everything). */
export function missingFrom(snapshot: Snapshot, refs: QueryRefs): MissingScope | undefined {
  if (!snapshot.scope) return undefined;
  if (!snapshot.graph) return undefined;
  const { missing } = closure(snapshot, refs);
  const empty =
    !missing.names.relations.length &&
    !missing.names.functions.length &&
    !missing.names.types.length &&
    !missing.used.length &&
    !missing.needed.length &&
    !missing.types.length &&
    !missing.functions.length;
  return empty ? undefined : missing;
}

const TABLE_KINDS = new Set(['r', 'p', 'm', 'f']);

/**
 * The snapshot with only what `refs` (and the `used` relations, e.g. the tables of indexes to
 * try dropping) need; itself when it has no graph (read before graphs existed: built whole).
 * The result records how the names resolved (scope), so it can be cut again and so a CI run's
 * schema knows which of its tables production lacks (run-schema.ts).
 */
export function subsetSnapshot(snapshot: Snapshot, refs: QueryRefs, extra: { used?: string[] } = {}): Snapshot {
  if (!snapshot.graph) return snapshot;
  const c = closure(snapshot, refs, extra);
  const graph = snapshot.graph;
  const relationKey = new Map<string, string>();
  for (const [key, r] of Object.entries(graph.relations)) relationKey.set(`${r.schema}\u0000${r.name}`, key);
  const keyOf = (schema: string, name: string) => relationKey.get(`${schema}\u0000${name}`);
  const hasRelation = (schema: string, name: string) => {
    const k = keyOf(schema, name);
    return k !== undefined && c.relations.has(k);
  };
  const indexes = snapshot.indexes.filter((i) => hasRelation(i.schema, i.table));
  const indexNames = new Set(indexes.map((i) => `${i.schema}\u0000${i.name}`));
  const keepDdl = (d: SnapshotDdl): boolean => {
    switch (d.kind) {
      case 'schema':
      case 'extension':
        return true;
      case 'type':
        return c.types.has(d.name);
      case 'function':
      case 'aggregate':
        return c.functions.has(d.name);
      case 'table':
      case 'view':
        return c.relations.has(d.name);
      case 'foreign key':
        return d.of === undefined || (c.relations.has(d.of) && (d.references === undefined || c.relations.has(d.references)));
      default:
        // attach, constraint, index, a run's column: of their relation; an entry that does not say is kept
        return d.of === undefined || c.relations.has(d.of);
    }
  };
  const pick = <T extends GraphObject>(objects: Record<string, T>, keys: Set<string>) =>
    Object.fromEntries(Object.entries(objects).filter(([k]) => keys.has(k)));
  const statsOf = (schema: string, table: string) => hasRelation(schema, table) || indexNames.has(`${schema}\u0000${table}`);
  const scope: SnapshotScope = {
    relations: { ...snapshot.scope?.relations, ...c.scope.relations },
    functions: { ...snapshot.scope?.functions, ...c.scope.functions },
    types: { ...snapshot.scope?.types, ...c.scope.types },
  };
  return {
    ...snapshot,
    ddl: snapshot.ddl.filter(keepDdl),
    relations: snapshot.relations.filter((r) => (TABLE_KINDS.has(r.kind) ? hasRelation(r.schema, r.name) : indexNames.has(`${r.schema}\u0000${r.name}`))),
    indexes,
    columns: snapshot.columns.filter((col) => hasRelation(col.schema, col.table)),
    stats: snapshot.stats.filter((s) => statsOf(s.schema, s.table)),
    ...(snapshot.endpoints && { endpoints: snapshot.endpoints.filter((e) => hasRelation(e.schema, e.table)) }),
    ...(snapshot.writes && { writes: snapshot.writes.filter((w) => hasRelation(w.schema, w.table)) }),
    ...(snapshot.runIndexes && { runIndexes: snapshot.runIndexes.filter((r) => indexNames.has(`${r.schema}\u0000${r.name}`)) }),
    graph: { relations: pick(graph.relations, c.relations), types: pick(graph.types, c.types), functions: pick(graph.functions, c.functions) },
    scope,
  };
}

/** The DDL entries' order of readSchemaDdl, which merged snapshots keep (the shadow runs them in rounds anyway). */
const DDL_ORDER = ['schema', 'extension', 'type', 'function', 'aggregate', 'table', 'attach', 'constraint', 'foreign key', 'index', 'view'];
/** One DDL entry's identity: an index or constraint name is unique per schema or table only. */
export const ddlKey = (d: SnapshotDdl): string => `${d.kind}\u0000${d.of ?? ''}\u0000${d.name}`;

/**
 * A scoped snapshot with more of production read into it (a later read for other queries). What
 * the base holds stays as it is: plans cached against it remain valid, a query's plan depending
 * on its own objects only.
 */
export function mergeSnapshots(base: Snapshot, more: Snapshot): Snapshot {
  const union = <T>(a: T[], b: T[], key: (x: T) => string): T[] => {
    const seen = new Set(a.map(key));
    return [...a, ...b.filter((x) => !seen.has(key(x)) && seen.add(key(x)))];
  };
  const rank = (d: SnapshotDdl) => {
    const i = DDL_ORDER.indexOf(d.kind);
    return i < 0 ? DDL_ORDER.length : i;
  };
  const ddl = union(base.ddl, more.ddl, ddlKey)
    .map((d, i) => ({ d, i }))
    .sort((a, b) => rank(a.d) - rank(b.d) || a.i - b.i)
    .map((x) => x.d);
  const rel = (r: { schema: string; name: string }) => `${r.schema}\u0000${r.name}`;
  const baseGraph = base.graph ?? { relations: {}, types: {}, functions: {} };
  const moreGraph = more.graph ?? { relations: {}, types: {}, functions: {} };
  return {
    ...base,
    ddl,
    relations: union(base.relations, more.relations, rel),
    indexes: union(base.indexes, more.indexes, rel),
    columns: union(base.columns, more.columns, (c) => `${c.schema}\u0000${c.table}\u0000${c.name}`),
    stats: union(base.stats, more.stats, (s) => `${s.schema}\u0000${s.table}\u0000${s.column}\u0000${s.inherited}`),
    endpoints: union(base.endpoints ?? [], more.endpoints ?? [], (e) => `${e.schema}\u0000${e.table}\u0000${e.column}`),
    writes: union(base.writes ?? [], more.writes ?? [], (w) => `${w.schema}\u0000${w.table}`),
    hiddenStatistics: union(base.hiddenStatistics ?? [], more.hiddenStatistics ?? [], (h) => `${h.schema}\u0000${h.table}`),
    graph: {
      relations: { ...moreGraph.relations, ...baseGraph.relations },
      types: { ...moreGraph.types, ...baseGraph.types },
      functions: { ...moreGraph.functions, ...baseGraph.functions },
    },
    ...(base.scope && {
      scope: {
        relations: { ...more.scope?.relations, ...base.scope.relations },
        functions: { ...more.scope?.functions, ...base.scope.functions },
        types: { ...more.scope?.types, ...base.scope.types },
      },
    }),
  };
}

/** The names a scope recorded (what the queries it was read for use), to read or cut the same again. */
export function refsOfScope(scope: SnapshotScope): QueryRefs {
  const names = (record: Record<string, unknown>) =>
    Object.keys(record).map((k) => {
      const parts = JSON.parse(k) as string[];
      return parts.length > 1 ? { schema: parts[0]!, name: parts[1]! } : { name: parts[0]! };
    });
  return { relations: names(scope.relations), functions: names(scope.functions), types: names(scope.types) };
}

/**
 * JSON with object keys and lists sorted: two reads of the same objects print alike, whatever
 * order they were read or merged in (the order of a snapshot's lists carries no meaning for a plan).
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether a new read shows production unchanged for everything a stored scoped snapshot holds:
 * both cut to the names the stored one was read for hold the same objects, sizes, statistics and
 * settings (write counters aside). Then plans made against the stored one hold for the new read.
 */
export function unchangedFor(stored: Snapshot, fresh: Snapshot): boolean {
  if (!stored.scope || !stored.graph || !fresh.graph) return false;
  const refs = refsOfScope(stored.scope);
  if (missingFrom(fresh, refs)) return false;
  const print = (s: Snapshot) => {
    const { writes: _writes, scope: _scope, ...rest } = subsetSnapshot(s, refs);
    return canonical(rest);
  };
  return print(stored) === print(fresh);
}
