// Which tables and indexes a plan reads, by schema-qualified name. EXPLAIN without VERBOSE names
// relations and indexes without their schema, so the names are resolved through the snapshot the
// plan was made on: a name only one schema has is that one; a name several schemas share is taken
// from the table the node reads, then from the search_path, as the query itself resolved it.
// A partition's part of a partitioned index is reported as the index someone created (its root):
// that is the name a migration drops.
import { groupBy } from '../shared/collections.js';
import type { PlanNode } from '../shared/plan.js';
import type { SnapshotIndex, Snapshot } from '../snapshot/types.js';

const TABLE_KINDS = new Set(['r', 'p', 'm', 'f']);

export interface PlanObjects {
  indexesUsed: string[];
  tablesUsed: string[];
}

/** Reads plans made on `snapshot`; the name lookups are built once for all of them. */
export function planObjectsReader(snapshot: Snapshot): (plan: PlanNode | null) => PlanObjects {
  const path = searchPath(snapshot);
  const bySearchPath = (schemas: string[]) => path.find((s) => schemas.includes(s)) ?? [...schemas].sort()[0]!;
  const tableSchemas = groupBy(snapshot.relations, (r) => (TABLE_KINDS.has(r.kind) ? r.name : undefined));
  const indexByName = groupBy(snapshot.indexes, (i) => i.name);
  const byKey = new Map(snapshot.indexes.map((i) => [`${i.schema}.${i.name}`, i]));

  const tableOf = (name: string): string | undefined => {
    const schemas = tableSchemas.get(name)?.map((r) => r.schema);
    return schemas?.length ? `${bySearchPath(schemas)}.${name}` : undefined;
  };
  const rootOf = (index: SnapshotIndex): SnapshotIndex => {
    let current = index;
    for (let depth = 0; current.parent && depth < 32; depth++) {
      const parent = byKey.get(`${current.schema}.${current.parent}`);
      if (!parent) break;
      current = parent;
    }
    return current;
  };

  return (plan) => {
    if (!plan) return { indexesUsed: [], tablesUsed: [] };
    const tables = new Set<string>();
    const indexes = new Set<string>();
    const visit = (node: PlanNode, parentRelation: string | undefined) => {
      const relation = typeof node['Relation Name'] === 'string' ? node['Relation Name'] : undefined;
      if (relation) {
        const t = tableOf(relation);
        if (t) tables.add(t);
      }
      const name = node['Index Name'];
      if (typeof name === 'string') {
        let found = indexByName.get(name) ?? [];
        // A Bitmap Index Scan names no relation; its Bitmap Heap Scan parent does.
        const onTable = relation ?? parentRelation;
        if (found.length > 1 && onTable) {
          const same = found.filter((i) => i.table === onTable);
          if (same.length) found = same;
        }
        if (found.length) {
          const schema = bySearchPath(found.map((i) => i.schema));
          const root = rootOf(found.find((i) => i.schema === schema)!);
          indexes.add(`${root.schema}.${root.name}`);
        }
      }
      for (const child of node.Plans ?? []) visit(child, relation ?? parentRelation);
    };
    visit(plan, undefined);
    return { indexesUsed: [...indexes].sort(), tablesUsed: [...tables].sort() };
  };
}

export const planObjects = (plan: PlanNode | null, snapshot: Snapshot): PlanObjects => planObjectsReader(snapshot)(plan);

function searchPath(snapshot: Snapshot): string[] {
  return snapshot.searchPath
    .split(',')
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
    .filter((s) => s && s !== '$user');
}
