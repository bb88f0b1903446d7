// Where the schema browser gets what it shows: a summary (schemas, their counts, groups of the same
// structure) and pages of objects. From the analyzer (a summarized sync: each page is a request), or
// from a whole DatabaseSchema already in memory (the demo's sync, which is small): the same pages,
// cut here, with the analyzer's order and search rules.
import type { DatabaseSchema, ObjectCounts, ObjectsResponse, SchemaCounts, SchemaObject, SchemaSummary } from '../../../shared/analyzer-schema';
import { fetchObjects, type AnalyzerBrowse, type ObjectsScope } from '../../lib/analyzer';
import { objectKey, objectsByTable, searchSchema } from './schema-search';

export interface SchemaSource {
  /** Changes when the data does: part of the key under which pages are remembered. */
  id: string;
  summary: SchemaSummary;
  /** A page of objects. */
  objects(scope: ObjectsScope, offset: number, limit: number, signal?: AbortSignal): Promise<ObjectsResponse>;
  /** For a source that has its objects at hand: the page at once (shown in the first render). */
  objectsNow?(scope: ObjectsScope, offset: number, limit: number): ObjectsResponse;
}

let sources = 0;

/** Objects from the analyzer that made the sync. */
export function analyzerSource(browse: AnalyzerBrowse, summary: SchemaSummary): SchemaSource {
  return { id: `analyzer-${++sources}`, summary, objects: (scope, offset, limit, signal) => fetchObjects(browse, scope, offset, limit, signal) };
}

const emptyCounts = (): SchemaCounts => ({ tables: 0, views: 0, indexes: 0, constraints: 0, functions: 0, types: 0, triggers: 0, sequences: 0 });

/** Objects from a whole schema in memory. Groups of the same structure are the analyzer's to find: none here. */
export function memorySource(schema: DatabaseSchema): SchemaSource {
  const counts = new Map(schema.schemas.map((s) => [s.name, emptyCounts()]));
  const count = (kind: keyof SchemaCounts, of: { schema: string }[]) => {
    for (const object of of) {
      const c = counts.get(object.schema);
      if (c) c[kind]++;
    }
  };
  count('tables', schema.tables);
  count('views', schema.views);
  count('indexes', schema.indexes);
  count('constraints', schema.constraints);
  count('functions', schema.functions);
  count('types', [...schema.types.enums, ...schema.types.domains, ...schema.types.composites]);
  count('triggers', schema.triggers);
  count('sequences', schema.sequences);
  const totals = emptyCounts();
  for (const c of counts.values()) for (const kind of Object.keys(totals) as (keyof SchemaCounts)[]) totals[kind] += c[kind];
  const summary: SchemaSummary = {
    schemas: schema.schemas.map((s) => ({ ...s, counts: counts.get(s.name)!, structure: '', group: null })),
    groups: [],
    totals,
    extensions: schema.extensions,
    warnings: schema.warnings,
  };

  const related = objectsByTable(schema);
  const lists = new Map<string, { items: SchemaObject[]; counts: ObjectCounts }>();
  const listOf = (scope: ObjectsScope) => {
    const key = JSON.stringify([scope.schema ?? null, scope.schemas ?? null, scope.q ?? '']);
    const known = lists.get(key);
    if (known) return known;
    const inScope = (name: string) => (scope.schema === undefined || name === scope.schema) && (!scope.schemas || scope.schemas.includes(name));
    const found = searchSchema(schema, (scope.q ?? '').trim().toLowerCase());
    const mine = <T extends { schema: string }>(list: T[]) => list.filter((o) => inScope(o.schema));
    const items: SchemaObject[] = [
      ...mine(found.tables).map((table): SchemaObject => {
        const at = objectKey(table.schema, table.name);
        return {
          kind: 'table',
          table,
          indexes: related.indexes.get(at) ?? [],
          constraints: related.constraints.get(at) ?? [],
          triggers: related.triggers.get(at) ?? [],
        };
      }),
      ...mine(found.views).map((view): SchemaObject => ({ kind: 'view', view })),
      ...mine(found.functions).map((fn): SchemaObject => ({ kind: 'function', function: fn })),
      ...mine(found.enums).map((type): SchemaObject => ({ kind: 'enum', type })),
      ...mine(found.domains).map((type): SchemaObject => ({ kind: 'domain', type })),
      ...mine(found.composites).map((type): SchemaObject => ({ kind: 'composite', type })),
      ...mine(found.triggers).map((trigger): SchemaObject => ({ kind: 'trigger', trigger })),
      ...mine(found.sequences).map((sequence): SchemaObject => ({ kind: 'sequence', sequence })),
    ];
    const counts: ObjectCounts = { table: 0, view: 0, function: 0, type: 0, trigger: 0, sequence: 0 };
    for (const item of items) counts[kindOf(item)]++;
    const list = { items, counts };
    lists.set(key, list);
    return list;
  };
  const objectsNow = (scope: ObjectsScope, offset: number, limit: number): ObjectsResponse => {
    const { items, counts } = listOf(scope);
    return { total: items.length, counts, offset, items: items.slice(offset, offset + limit), warnings: [] };
  };
  return { id: `memory-${++sources}`, summary, objectsNow, objects: async (scope, offset, limit) => objectsNow(scope, offset, limit) };
}

/** The kind an object is counted under (enums, domains and composites are types). */
export function kindOf(item: SchemaObject): keyof ObjectCounts {
  return item.kind === 'enum' || item.kind === 'domain' || item.kind === 'composite' ? 'type' : item.kind;
}
