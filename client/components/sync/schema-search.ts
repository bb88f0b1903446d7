// Finding objects in a synced schema: by qualified name, tables by their columns too, enums by their
// labels; and the indexes, constraints and triggers of each table, gathered once per schema.
import type { DatabaseSchema } from '../../../shared/analyzer-schema';
import { groupBy } from '../../../shared/collections';

/** The name as people write it in SQL: without "public.". */
export const qualified = (schema: string, name: string) => (schema === 'public' ? name : `${schema}.${name}`);
/** A key no two objects of one kind share (a NUL cannot appear in a name). */
export const objectKey = (schema: string, name: string) => `${schema}\u0000${name}`;

/** Whether any text contains `term` (already lower case); an empty term matches everything. */
const matches = (term: string, ...texts: (string | null | undefined)[]) => !term || texts.some((t) => t?.toLowerCase().includes(term));

/** The objects of each kind that match a search term, in the schema's order. */
export function searchSchema(schema: DatabaseSchema, term: string) {
  return {
    tables: schema.tables.filter((t) => matches(term, qualified(t.schema, t.name), ...t.columns.map((c) => c.name))),
    views: schema.views.filter((v) => matches(term, qualified(v.schema, v.name))),
    functions: schema.functions.filter((f) => matches(term, qualified(f.schema, f.name))),
    enums: schema.types.enums.filter((t) => matches(term, qualified(t.schema, t.name), ...t.labels)),
    domains: schema.types.domains.filter((t) => matches(term, qualified(t.schema, t.name))),
    composites: schema.types.composites.filter((t) => matches(term, qualified(t.schema, t.name))),
    triggers: schema.triggers.filter((t) => matches(term, t.name, qualified(t.schema, t.table))),
    extensions: schema.extensions.filter((e) => matches(term, e.name)),
    sequences: schema.sequences.filter((s) => matches(term, qualified(s.schema, s.name))),
  };
}

export type TableObjects = ReturnType<typeof objectsByTable>;

/** Indexes, constraints and triggers under the objectKey of their table. */
export function objectsByTable(schema: DatabaseSchema) {
  return {
    indexes: groupBy(schema.indexes, (i) => objectKey(i.schema, i.table)),
    constraints: groupBy(schema.constraints, (c) => (c.table ? objectKey(c.table.schema, c.table.name) : undefined)),
    triggers: groupBy(schema.triggers, (t) => objectKey(t.schema, t.table)),
  };
}
