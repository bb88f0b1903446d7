// Finding objects in a synced schema, without a browser: what a search term matches.
import { describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../../../shared/analyzer-schema';
import { objectKey, objectsByTable, qualified, searchSchema } from './schema-search';

// Only the fields the search reads; the rest of each object does not matter here.
const schema = {
  schemas: [],
  tables: [
    { schema: 'public', name: 'orders', columns: [{ name: 'customer_id' }, { name: 'total' }] },
    { schema: 'billing', name: 'invoices', columns: [{ name: 'order_id' }] },
  ],
  views: [{ schema: 'public', name: 'open_orders' }],
  functions: [],
  types: { enums: [{ schema: 'public', name: 'status', labels: ['PENDING', 'shipped'] }], domains: [], composites: [] },
  indexes: [
    { schema: 'public', table: 'orders', name: 'orders_pkey' },
    { schema: 'billing', table: 'invoices', name: 'invoices_pkey' },
  ],
  constraints: [
    { table: { schema: 'public', name: 'orders' }, name: 'orders_total_check' },
    { table: null, name: 'a_domain_check' },
  ],
  triggers: [],
  extensions: [],
  sequences: [],
  warnings: [],
} as unknown as DatabaseSchema;

const names = (found: ReturnType<typeof searchSchema>) => [...found.tables, ...found.views, ...found.enums].map((o) => qualified(o.schema, o.name));

describe('schema search', () => {
  it('matches everything while the search is empty', () => {
    expect(names(searchSchema(schema, ''))).toEqual(['orders', 'billing.invoices', 'open_orders', 'status']);
  });

  it('finds a table by one of its columns, and any object by part of its schema-qualified name', () => {
    expect(names(searchSchema(schema, 'customer'))).toEqual(['orders']);
    expect(names(searchSchema(schema, 'billing.'))).toEqual(['billing.invoices']);
    expect(names(searchSchema(schema, 'order'))).toEqual(['orders', 'billing.invoices', 'open_orders']);
  });

  it('finds an enum by one of its labels, whatever their case (the term comes in lower case)', () => {
    expect(names(searchSchema(schema, 'pending'))).toEqual(['status']);
  });

  it('gathers each table its indexes and constraints, and leaves out a constraint of no table', () => {
    const related = objectsByTable(schema);
    expect(related.indexes.get(objectKey('public', 'orders'))?.map((i) => i.name)).toEqual(['orders_pkey']);
    expect(related.indexes.get(objectKey('billing', 'invoices'))?.map((i) => i.name)).toEqual(['invoices_pkey']);
    expect([...related.constraints.values()].flat().map((c) => c.name)).toEqual(['orders_total_check']);
  });
});
