// A connection's schema filters (shared/schema-filters.ts) over a production snapshot: the
// relations, types and functions of the schemas they allow, by oid, read with the patterns as bound
// parameters. Every reader of the snapshot is then scoped to those oids (ReadFilter), so nothing of
// an excluded schema is read: no DDL, size, statistic, extreme or write count.
import { allowedSchema, schemaFilterParams, schemaMatcher, userSchema, type SchemaFilters } from '../shared/schema-filters.js';
import type { SystemCatalogQuery, ReadFilter, SnapshotGraph, SnapshotScope } from './types.js';

const allowedObjectsSql = `
SELECT 'relation' AS what, c.oid::int AS oid
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm', 'f', 'v') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
UNION ALL
SELECT 'type', t.oid::int
FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype IN ('e', 'd', 'c') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}
UNION ALL
SELECT 'function', p.oid::int
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}`;

/** Every relation, type and function of the allowed schemas. */
export async function allowedObjects(q: SystemCatalogQuery, filters: SchemaFilters): Promise<ReadFilter> {
  const rows = await q(allowedObjectsSql, schemaFilterParams(filters));
  const of = (what: string) => rows.filter((r) => r.what === what).map((r) => Number(r.oid));
  return { relations: of('relation'), types: of('type'), functions: of('function') };
}

/** What a scoped read works out, kept to the allowed objects. */
export function intersect(filter: ReadFilter, allowed: ReadFilter): ReadFilter {
  const keep = (oids: number[], within: number[]) => {
    const set = new Set(within);
    return oids.filter((o) => set.has(o));
  };
  return {
    relations: keep(filter.relations, allowed.relations),
    types: keep(filter.types, allowed.types),
    functions: keep(filter.functions, allowed.functions),
  };
}

/**
 * A scoped read's graph and scope without the objects of excluded schemas: the walk over
 * production's dependencies may pass through their catalog entries (names and edges), but the
 * snapshot neither holds them nor says a name resolved to one (it resolves to nothing, as if absent).
 */
export function withoutExcluded(graph: SnapshotGraph, scope: SnapshotScope, filters: SchemaFilters): { graph: SnapshotGraph; scope: SnapshotScope } {
  const allowed = schemaMatcher(filters);
  const prune = <T extends { schema: string }>(objects: Record<string, T>) => Object.fromEntries(Object.entries(objects).filter(([, o]) => allowed(o.schema)));
  const relations = prune(graph.relations);
  const kept = (keys: string[] | undefined) => keys?.filter((k) => k in relations);
  for (const relation of Object.values(relations)) {
    if (relation.children) relation.children = kept(relation.children);
    if (relation.reads) relation.reads = kept(relation.reads);
    if (relation.needs) relation.needs = kept(relation.needs);
  }
  const pruned: SnapshotGraph = { relations, types: prune(graph.types), functions: prune(graph.functions) };
  const resolved = Object.fromEntries(Object.entries(scope.relations).map(([name, key]) => [name, key !== null && key in relations ? key : null]));
  const within = (keys: Record<string, string[]>, objects: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(keys).map(([name, list]) => [name, list.filter((k) => k in objects)]));
  return { graph: pruned, scope: { relations: resolved, functions: within(scope.functions, pruned.functions), types: within(scope.types, pruned.types) } };
}
