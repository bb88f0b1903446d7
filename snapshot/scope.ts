// What of production a set of queries needs, worked out in production's own catalogs (read-only,
// in the snapshot's transaction), and the dependency graph of whatever a snapshot holds.
//
// A query plans the same on a copy that holds only: the relations it names (resolved as its
// search_path resolves them), the relations of the views it reads through (recursively), the
// partitions and inheritance children of all of those (the planner expands them), their parents
// (a partition cannot exist without them), the indexes of every table kept, the foreign keys among
// them (join estimates), and the types and functions their columns, indexes, generated columns and
// views are declared with (and what those need in turn: a domain's base, a composite's columns, a
// function's argument types, an aggregate's parts). scope.ts keeps that much of a snapshot for a
// shadow; this file reads that much from production for a snapshot, and every object's edges so
// the snapshot can later be cut again or extended (scope.ts).
//
// Two ways to reach a relation: `used` (a query reads it: its partitions and children come along)
// and `needed` (only its existence matters: a partition's parent, a row type's table), so a query
// on one partition does not bring in its siblings.
import { notFromExtension, userSchema } from '../shared/schema-filters.js';
import { relationKeySql } from './schema.js';
import type { SystemCatalogQuery, ReadFilter, GraphObject, GraphRelation, SnapshotGraph, SnapshotScope, ObjectName, QueryRefs, ScopeRequest } from './types.js';
import { nameKey, searchPathSchemas } from './names.js';

/** Tables of every kind and views the shadow rebuilds (readTables, readViews). */
const COPIED_RELATION = (c: string, n: string) =>
  `${c}.relkind IN ('r', 'p', 'm', 'f', 'v') AND ${c}.relpersistence <> 't' AND ${userSchema(n)} AND ${notFromExtension('pg_class', `${c}.oid`)}`;
/** Enums, domains and composite types (readTypes). */
const COPIED_TYPE = (t: string, n: string, rc: string) =>
  `(${t}.typtype IN ('e', 'd') OR (${t}.typtype = 'c' AND ${rc}.relkind = 'c')) AND ${userSchema(n)} AND ${notFromExtension('pg_type', `${t}.oid`)}`;
/** SQL and PL/pgSQL functions and procedures, and plain aggregates (readFunctions). */
const COPIED_FUNCTION = (p: string, n: string) =>
  `${userSchema(n)} AND ${notFromExtension('pg_proc', `${p}.oid`)}
   AND ((${p}.prokind IN ('f', 'p') AND ${p}.prolang IN (SELECT l.oid FROM pg_catalog.pg_language l WHERE l.lanname IN ('sql', 'plpgsql')))
     OR (${p}.prokind = 'a' AND EXISTS (SELECT 1 FROM pg_catalog.pg_aggregate ag WHERE ag.aggfnoid = ${p}.oid AND ag.aggkind = 'n')))`;

/**
 * A type used somewhere, as what the copy must hold for it: the type itself (an enum, domain or
 * composite; an array's element type), or the relation whose row type it is. Others are built in
 * or come with an extension. `source` is a subquery of (src oid, typ oid).
 */
const typeTargets = (source: string) => `
  SELECT DISTINCT s.src::int AS src,
         CASE WHEN rc.relkind IN ('r', 'p', 'm', 'f', 'v') THEN 'relation' ELSE 'type' END AS what,
         (CASE WHEN rc.relkind IN ('r', 'p', 'm', 'f', 'v') THEN rc.oid ELSE b.oid END)::int AS dst
  FROM (${source}) s
  JOIN pg_catalog.pg_type t0 ON t0.oid = s.typ
  JOIN pg_catalog.pg_type b ON b.oid = CASE WHEN t0.typcategory = 'A' AND t0.typelem <> 0 THEN t0.typelem ELSE t0.oid END
  JOIN pg_catalog.pg_namespace n ON n.oid = b.typnamespace
  LEFT JOIN pg_catalog.pg_class rc ON rc.oid = b.typrelid
  WHERE (${COPIED_TYPE('b', 'n', 'rc')})
     OR (rc.relkind IN ('r', 'p', 'm', 'f', 'v') AND ${notFromExtension('pg_class', 'rc.oid')} AND ${userSchema('n')})`;

/** Functions something depends on (pg_depend), kept to those the shadow copies. `source` is (src oid, fn oid). */
const functionTargets = (source: string) => `
  SELECT DISTINCT s.src::int AS src, 'function' AS what, p.oid::int AS dst
  FROM (${source}) s JOIN pg_catalog.pg_proc p ON p.oid = s.fn JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE ${COPIED_FUNCTION('p', 'n')}`;

const relationTargets = (source: string) => `
  SELECT DISTINCT s.src::int AS src, s.what, c.oid::int AS dst
  FROM (${source}) s JOIN pg_catalog.pg_class c ON c.oid = s.rel JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE ${COPIED_RELATION('c', 'n')}`;

type Edge = { from: 'relation' | 'type' | 'function'; src: number; what: 'child' | 'parent' | 'read' | 'relation' | 'type' | 'function'; dst: number };

const ANY = (n: number) => `OPERATOR(pg_catalog.=) ANY ($${n}::pg_catalog.oid[])`;

/** Edges out of relations: children, parents, a view's reads, types and functions. */
async function relationEdges(q: SystemCatalogQuery, oids: number[]): Promise<Edge[]> {
  if (!oids.length) return [];
  const rows = await q(
    `${relationTargets(`SELECT i.inhparent AS src, 'child' AS what, i.inhrelid AS rel FROM pg_catalog.pg_inherits i WHERE i.inhparent ${ANY(1)}
                        UNION ALL SELECT i.inhrelid, 'parent', i.inhparent FROM pg_catalog.pg_inherits i WHERE i.inhrelid ${ANY(1)}
                        UNION ALL SELECT r.ev_class, 'read', d.refobjid FROM pg_catalog.pg_rewrite r
                          JOIN pg_catalog.pg_class v ON v.oid = r.ev_class AND v.relkind = 'v'
                          JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
                          WHERE r.ev_class ${ANY(1)} AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid <> r.ev_class`)}
     UNION ALL
     ${typeTargets(`SELECT a.attrelid AS src, a.atttypid AS typ FROM pg_catalog.pg_attribute a WHERE a.attrelid ${ANY(1)} AND a.attnum > 0 AND NOT a.attisdropped
                    UNION ALL SELECT d.src, d.refobjid FROM (${objectDependencies(1)}) d WHERE d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass`)}
     UNION ALL
     ${functionTargets(`SELECT d.src, d.refobjid AS fn FROM (${objectDependencies(1)}) d WHERE d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass`)}`,
    [oids],
  );
  return rows.map(edgeOf('relation'));
}

/**
 * What relations' own definitions depend on, by (src relation, refclassid, refobjid): a view's
 * query (a materialized view is copied as a table: not its query), a partition key's expressions,
 * index expressions and predicates, generated columns.
 */
const objectDependencies = (n: number) => `
  SELECT r.ev_class AS src, d.refclassid, d.refobjid FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class v ON v.oid = r.ev_class AND v.relkind = 'v'
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid WHERE r.ev_class ${ANY(n)}
  UNION ALL SELECT d.objid, d.refclassid, d.refobjid FROM pg_catalog.pg_depend d
    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid ${ANY(n)} AND d.deptype = 'n'
  UNION ALL SELECT i.indrelid, d.refclassid, d.refobjid FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = i.indexrelid WHERE i.indrelid ${ANY(n)}
  UNION ALL SELECT ad.adrelid, d.refclassid, d.refobjid FROM pg_catalog.pg_attrdef ad
    JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum AND a.attgenerated <> ''
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND d.objid = ad.oid WHERE ad.adrelid ${ANY(n)}`;

/** Edges out of types: a domain's base type, a composite's column types. */
async function typeEdges(q: SystemCatalogQuery, oids: number[]): Promise<Edge[]> {
  if (!oids.length) return [];
  const rows = await q(
    typeTargets(`SELECT t.oid AS src, t.typbasetype AS typ FROM pg_catalog.pg_type t WHERE t.oid ${ANY(1)} AND t.typtype = 'd'
                 UNION ALL SELECT t.oid, a.atttypid FROM pg_catalog.pg_type t
                   JOIN pg_catalog.pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped WHERE t.oid ${ANY(1)}`),
    [oids],
  );
  return rows.map(edgeOf('type'));
}

/** Edges out of functions: argument and result types; an aggregate's state type and functions. */
async function functionEdges(q: SystemCatalogQuery, oids: number[]): Promise<Edge[]> {
  if (!oids.length) return [];
  const rows = await q(
    `${typeTargets(`SELECT p.oid AS src, u.typ FROM pg_catalog.pg_proc p
                      CROSS JOIN LATERAL pg_catalog.unnest(pg_catalog.array_append(coalesce(p.proallargtypes, p.proargtypes::pg_catalog.oid[]), p.prorettype)) AS u(typ)
                      WHERE p.oid ${ANY(1)}
                    UNION ALL SELECT a.aggfnoid, a.aggtranstype FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid ${ANY(1)}`)}
     UNION ALL
     ${functionTargets(`SELECT a.aggfnoid AS src, a.aggtransfn AS fn FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid ${ANY(1)}
                        UNION ALL SELECT a.aggfnoid, a.aggfinalfn FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid ${ANY(1)}`)}`,
    [oids],
  );
  return rows.map(edgeOf('function'));
}

const edgeOf =
  (from: Edge['from']) =>
  (r: Record<string, unknown>): Edge => ({ from, src: Number(r.src), what: String(r.what) as Edge['what'], dst: Number(r.dst) });

/** The oids of objects named by their DDL names; names production no longer has are left out. */
async function oidsOfKeys(
  q: SystemCatalogQuery,
  keys: { relations?: string[]; types?: string[]; functions?: string[] },
): Promise<{ relations: number[]; types: number[]; functions: number[] }> {
  const rows = await q(
    `SELECT 'relation' AS what, pg_catalog.to_regclass(k)::pg_catalog.oid::int AS oid FROM pg_catalog.unnest($1::text[]) k
     UNION ALL SELECT 'type', pg_catalog.to_regtype(k)::pg_catalog.oid::int FROM pg_catalog.unnest($2::text[]) k
     UNION ALL SELECT 'function', pg_catalog.to_regprocedure(k)::pg_catalog.oid::int FROM pg_catalog.unnest($3::text[]) k`,
    [keys.relations ?? [], keys.types ?? [], keys.functions ?? []],
  );
  const of = (what: string) => rows.filter((r) => r.what === what && r.oid !== null).map((r) => Number(r.oid));
  return { relations: of('relation'), types: of('type'), functions: of('function') };
}

/**
 * Query names to objects, as PostgreSQL resolves them with the application's search_path: a
 * relation name alone is the first schema's of that path that has one (pg_catalog first, as
 * PostgreSQL looks there first); a function or type name alone, every one in the path's schemas
 * (overloads and all: the copy must let resolution choose as production does). A schema-qualified
 * name is that schema's. Only objects the shadow copies are returned.
 */
async function resolveNames(
  q: SystemCatalogQuery,
  names: QueryRefs,
  path: string[],
): Promise<{ relations: Map<string, number | null>; functions: Map<string, number[]>; types: Map<string, number[]> }> {
  const split = (list: ObjectName[]) => [list.map((n) => n.schema ?? null), list.map((n) => n.name)];
  const rels = names.relations.length
    ? await q(
        `SELECT u.i::int AS i, (
           SELECT c.oid::int FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_catalog.unnest($3::text[]) WITH ORDINALITY AS p(s, ord) ON p.s = n.nspname
           WHERE c.relname = u.name AND c.relkind IN ('r', 'p', 'm', 'f', 'v')
             AND (CASE WHEN u.schema IS NULL THEN p.ord IS NOT NULL ELSE n.nspname = u.schema END)
           ORDER BY p.ord LIMIT 1) AS oid
         FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) WITH ORDINALITY AS u(schema, name, i)`,
        [...split(names.relations), ['pg_catalog', ...path]],
      )
    : [];
  const relations = new Map<string, number | null>();
  const kept = rels.length
    ? await copiedRelations(
        q,
        rels.flatMap((r) => (r.oid === null ? [] : [Number(r.oid)])),
      )
    : new Set<number>();
  for (const r of rels) {
    const oid = r.oid === null ? null : Number(r.oid);
    relations.set(nameKey(names.relations[Number(r.i) - 1]!), oid !== null && kept.has(oid) ? oid : null);
  }
  const byName = async (list: ObjectName[], sql: string) => {
    const out = new Map<string, number[]>();
    if (!list.length) return out;
    const rows = await q(sql, [...split(list), path]);
    list.forEach((n) => out.set(nameKey(n), []));
    for (const r of rows) out.get(nameKey(list[Number(r.i) - 1]!))!.push(Number(r.oid));
    return out;
  };
  const inPath = (ns: string) => `(CASE WHEN u.schema IS NULL THEN ${ns}.nspname = ANY ($3::text[]) ELSE ${ns}.nspname = u.schema END)`;
  const functions = await byName(
    names.functions,
    `SELECT u.i::int AS i, p.oid::int AS oid FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) WITH ORDINALITY AS u(schema, name, i)
     JOIN pg_catalog.pg_proc p ON p.proname = u.name JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
     WHERE ${inPath('n')} AND ${COPIED_FUNCTION('p', 'n')}`,
  );
  const types = await byName(
    names.types,
    `SELECT u.i::int AS i, t.oid::int AS oid FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) WITH ORDINALITY AS u(schema, name, i)
     JOIN pg_catalog.pg_type t ON t.typname = u.name JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
     LEFT JOIN pg_catalog.pg_class rc ON rc.oid = t.typrelid
     WHERE ${inPath('n')} AND ${COPIED_TYPE('t', 'n', 'rc')}`,
  );
  return { relations, functions, types };
}

/** Which of these relations the shadow copies (a query may name a system catalog or an extension's table). */
async function copiedRelations(q: SystemCatalogQuery, oids: number[]): Promise<Set<number>> {
  const rows = await q(
    `SELECT c.oid::int AS oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid ${ANY(1)} AND ${COPIED_RELATION('c', 'n')}`,
    [oids],
  );
  return new Set(rows.map((r) => Number(r.oid)));
}

export interface ScopedObjects {
  filter: ReadFilter;
  graph: SnapshotGraph;
  scope: SnapshotScope;
}

/**
 * Works out, in production, every object the request needs (see the top of this file) and the
 * graph of those objects. Objects in `known` are neither followed nor returned.
 */
export async function scopedObjects(q: SystemCatalogQuery, request: ScopeRequest, searchPath: string): Promise<ScopedObjects> {
  const path = searchPathSchemas(searchPath);
  const names = request.names ?? { relations: [], functions: [], types: [] };
  const resolved = await resolveNames(q, names, path);
  const byKey = await oidsOfKeys(q, { relations: [...(request.used ?? []), ...(request.needed ?? [])], types: request.types, functions: request.functions });
  const neededOids = new Set((await oidsOfKeys(q, { relations: request.needed ?? [] })).relations);
  const known = request.known ? await oidsOfKeys(q, request.known) : { relations: [], types: [], functions: [] };
  const knownRelations = new Set(known.relations);
  const knownTypes = new Set(known.types);
  const knownFunctions = new Set(known.functions);

  const used = new Set<number>();
  const needed = new Set<number>();
  const types = new Set<number>();
  const functions = new Set<number>();
  const edges: Edge[] = [];
  const indexTables = request.indexes?.length
    ? await q(
        `SELECT i.indrelid::int AS oid FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         JOIN ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) AS u(s, r) ON u.s = n.nspname AND u.r = c.relname`,
        [request.indexes.map((i) => i.schema), request.indexes.map((i) => i.name)],
      )
    : [];
  let usedFrontier = [
    ...[...resolved.relations.values()].filter((o): o is number => o !== null),
    ...byKey.relations.filter((o) => !neededOids.has(o)),
    ...indexTables.map((r) => Number(r.oid)),
  ];
  let neededFrontier = byKey.relations.filter((o) => neededOids.has(o));
  let typeFrontier = [...[...resolved.types.values()].flat(), ...byKey.types];
  let functionFrontier = [...[...resolved.functions.values()].flat(), ...byKey.functions];
  // Each object is expanded once; a relation first reached as needed and later as used is expanded again for its children.
  const expanded = new Set<number>();
  for (let round = 0; round < 100; round++) {
    const newUsed = [...new Set(usedFrontier)].filter((o) => !used.has(o) && !knownRelations.has(o));
    const newNeeded = [...new Set(neededFrontier)].filter((o) => !used.has(o) && !needed.has(o) && !newUsed.includes(o) && !knownRelations.has(o));
    const newTypes = [...new Set(typeFrontier)].filter((o) => !types.has(o) && !knownTypes.has(o));
    const newFunctions = [...new Set(functionFrontier)].filter((o) => !functions.has(o) && !knownFunctions.has(o));
    if (!newUsed.length && !newNeeded.length && !newTypes.length && !newFunctions.length) break;
    for (const o of newUsed) {
      used.add(o);
      needed.delete(o);
    }
    for (const o of newNeeded) needed.add(o);
    for (const o of newTypes) types.add(o);
    for (const o of newFunctions) functions.add(o);
    const toExpand = [...newUsed, ...newNeeded].filter((o) => !expanded.has(o));
    toExpand.forEach((o) => expanded.add(o));
    const found = [...(await relationEdges(q, toExpand)), ...(await typeEdges(q, newTypes)), ...(await functionEdges(q, newFunctions))];
    edges.push(...found);
    usedFrontier = [];
    neededFrontier = [];
    typeFrontier = [];
    functionFrontier = [];
    // A used relation's children and (for a view) reads are used; everything else is needed.
    for (const e of edges) {
      if (e.from !== 'relation') {
        if (e.what === 'type') typeFrontier.push(e.dst);
        else if (e.what === 'function') functionFrontier.push(e.dst);
        else neededFrontier.push(e.dst);
      } else if (e.what === 'child' || e.what === 'read') {
        if (used.has(e.src)) usedFrontier.push(e.dst);
        else if (e.what === 'read' && needed.has(e.src)) neededFrontier.push(e.dst);
      } else if (e.what === 'parent' || e.what === 'relation') neededFrontier.push(e.dst);
      else if (e.what === 'type') typeFrontier.push(e.dst);
      else functionFrontier.push(e.dst);
    }
  }
  const relationOids = [...used, ...needed];
  const graph = await graphOf(q, relationOids, [...types], [...functions], edges);
  const resolvedKeys = await keysOf(
    q,
    [...resolved.relations.values()].filter((o): o is number => o !== null),
    [...new Set([...resolved.types.values()].flat())],
    [...new Set([...resolved.functions.values()].flat())],
  );
  const scope: SnapshotScope = { relations: {}, functions: {}, types: {} };
  for (const [k, oid] of resolved.relations) scope.relations[k] = oid === null ? null : (resolvedKeys.relations.get(oid) ?? null);
  for (const [k, oids] of resolved.functions) scope.functions[k] = oids.flatMap((o) => resolvedKeys.functions.get(o) ?? []);
  for (const [k, oids] of resolved.types) scope.types[k] = oids.flatMap((o) => resolvedKeys.types.get(o) ?? []);
  return { filter: { relations: relationOids, types: [...types], functions: [...functions] }, graph, scope };
}

/**
 * The whole database's graph, for a snapshot of everything: the same edges, read for every
 * relation, type and function the shadow copies.
 */
export async function wholeGraph(q: SystemCatalogQuery, allowed?: ReadFilter): Promise<SnapshotGraph> {
  const ids = await q(
    `SELECT 'relation' AS what, c.oid::int AS oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE ${COPIED_RELATION('c', 'n')}
     UNION ALL SELECT 'type', t.oid::int FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
       LEFT JOIN pg_catalog.pg_class rc ON rc.oid = t.typrelid WHERE ${COPIED_TYPE('t', 'n', 'rc')}
     UNION ALL SELECT 'function', p.oid::int FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE ${COPIED_FUNCTION('p', 'n')}`,
  );
  const of = (what: string) => ids.filter((r) => r.what === what).map((r) => Number(r.oid));
  const within = (oids: number[], list: number[] | undefined) => {
    if (!list) return oids;
    const set = new Set(list);
    return oids.filter((o) => set.has(o));
  };
  // With schema filters: only the allowed schemas' objects (filters.ts).
  const [relations, types, functions] = [
    within(of('relation'), allowed?.relations),
    within(of('type'), allowed?.types),
    within(of('function'), allowed?.functions),
  ];
  const edges = [...(await relationEdges(q, relations)), ...(await typeEdges(q, types)), ...(await functionEdges(q, functions))];
  return graphOf(q, relations, types, functions, edges);
}

interface Keys {
  relations: Map<number, string>;
  types: Map<number, string>;
  functions: Map<number, string>;
  names: Map<string, { schema: string; name: string; kind?: string }>;
}

/** DDL names (and schema, name, kind) of objects by oid. */
async function keysOf(q: SystemCatalogQuery, relations: number[], types: number[], functions: number[]): Promise<Keys> {
  const rows = await q(
    `SELECT 'relation' AS what, c.oid::int AS oid, ${relationKeySql('n', 'c')} AS key, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid ${ANY(1)}
     UNION ALL SELECT 'type', t.oid::int, pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(t.typname), n.nspname, t.typname, NULL
       FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.oid ${ANY(2)}
     UNION ALL SELECT 'function', p.oid::int, p.oid::pg_catalog.regprocedure::text, n.nspname, p.proname, NULL
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.oid ${ANY(3)}`,
    [relations, types, functions],
  );
  const keys: Keys = { relations: new Map(), types: new Map(), functions: new Map(), names: new Map() };
  for (const r of rows) {
    const map = r.what === 'relation' ? keys.relations : r.what === 'type' ? keys.types : keys.functions;
    map.set(Number(r.oid), String(r.key));
    keys.names.set(`${r.what}:${r.key}`, { schema: String(r.schema), name: String(r.name), ...(r.kind ? { kind: String(r.kind) } : {}) });
  }
  return keys;
}

/** The graph of these objects from their edges, by DDL name; edges to objects outside `edges`' targets are named too. */
async function graphOf(q: SystemCatalogQuery, relations: number[], types: number[], functions: number[], edges: Edge[]): Promise<SnapshotGraph> {
  const relationSet = new Set(relations);
  const typeSet = new Set(types);
  const functionSet = new Set(functions);
  // Targets may lie outside the objects read (a partition of a parent only needed, a foreign key's table): name them too.
  const targets = { relations: new Set(relations), types: new Set(types), functions: new Set(functions) };
  for (const e of edges) {
    if (e.what === 'type') targets.types.add(e.dst);
    else if (e.what === 'function') targets.functions.add(e.dst);
    else targets.relations.add(e.dst);
  }
  const keys = await keysOf(q, [...targets.relations], [...targets.types], [...targets.functions]);
  const graph: SnapshotGraph = { relations: {}, types: {}, functions: {} };
  const add = (list: string[] | undefined, key: string | undefined) => {
    if (key === undefined) return list;
    const out = list ?? [];
    if (!out.includes(key)) out.push(key);
    return out;
  };
  for (const oid of relations) {
    const key = keys.relations.get(oid);
    if (key === undefined) continue;
    const n = keys.names.get(`relation:${key}`)!;
    graph.relations[key] = { schema: n.schema, name: n.name, kind: n.kind ?? 'r' };
  }
  for (const oid of types) {
    const key = keys.types.get(oid);
    if (key !== undefined) graph.types[key] = { ...keys.names.get(`type:${key}`)! };
  }
  for (const oid of functions) {
    const key = keys.functions.get(oid);
    if (key !== undefined) graph.functions[key] = { ...keys.names.get(`function:${key}`)! };
  }
  for (const e of edges) {
    // Oids of relations, types and functions are numbered apart: an edge says which its source is.
    let node: GraphObject | GraphRelation | undefined;
    if (e.from === 'relation' && relationSet.has(e.src)) node = graph.relations[keys.relations.get(e.src) ?? ''];
    else if (e.from === 'type' && typeSet.has(e.src)) node = graph.types[keys.types.get(e.src) ?? ''];
    else if (e.from === 'function' && functionSet.has(e.src)) node = graph.functions[keys.functions.get(e.src) ?? ''];
    if (!node) continue;
    if (e.src === e.dst && e.from === (e.what === 'type' || e.what === 'function' ? e.what : 'relation')) continue;
    const rel = node as GraphRelation;
    if (e.what === 'child') rel.children = add(rel.children, keys.relations.get(e.dst));
    else if (e.what === 'read') rel.reads = add(rel.reads, keys.relations.get(e.dst));
    else if (e.what === 'parent' || e.what === 'relation') node.needs = add(node.needs, keys.relations.get(e.dst));
    else if (e.what === 'type') node.types = add(node.types, keys.types.get(e.dst));
    else node.functions = add(node.functions, keys.functions.get(e.dst));
  }
  return graph;
}
