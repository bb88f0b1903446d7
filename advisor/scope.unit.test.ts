// What a query needs of a snapshot, worked out on the snapshot's graph without PostgreSQL: the
// names a text uses, the closure (used relations bring partitions and a view's tables; needed ones
// only their parents), the cut snapshot, what a scoped snapshot lacks, merging, and a CI run's
// schema applied to a part. scoped-shadow.test.ts proves the same against real servers.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSchema } from '../shared/run-schema.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { applyRunSchema } from './run-schema.js';
import { closure, mergeSnapshots, missingFrom, queryRefs, refsOfScope, subsetSnapshot, unchangedFor } from './scope.js';
import { nameKey, searchPathSchemas } from '../snapshot/names.js';
import type { Snapshot } from '../snapshot/types.js';

beforeAll(() => loadParser());

/**
 * public: customer, orders (FK to customer), ledger partitioned into ledger_2024 and ledger_2025,
 * view refunds on orders, enum state used by orders; tenant2: orders (same name), unused.
 */
function production(): Snapshot {
  const rel = (schema: string, name: string, kind = 'r') => ({ schema, name, kind, relpages: 10, reltuples: 500, relallvisible: 0, blocks: 10 });
  const col = (schema: string, table: string, name: string) => ({ schema, table, name, type: 'integer', category: 'N', notNull: false });
  const stat = (schema: string, table: string, column: string) => ({ schema, table, column, inherited: false, values: { n_distinct: -1 } });
  return {
    serverVersionNum: 180000,
    searchPath: '"$user", public',
    blockSize: 8192,
    locale: { collate: 'C', ctype: 'C' },
    settings: {},
    ddl: [
      { kind: 'schema', name: 'tenant2', sql: 'CREATE SCHEMA IF NOT EXISTS tenant2' },
      { kind: 'type', name: 'public.state', sql: "CREATE TYPE public.state AS ENUM ('a', 'b')" },
      { kind: 'function', name: 'public.f(integer)', sql: 'CREATE FUNCTION public.f(x integer) RETURNS integer LANGUAGE sql AS $$ SELECT x $$' },
      { kind: 'table', name: 'public.customer', sql: 'CREATE TABLE public.customer (id integer NOT NULL)' },
      { kind: 'table', name: 'public.orders', sql: 'CREATE TABLE public.orders (id integer NOT NULL, customer_id integer, state public.state)' },
      { kind: 'table', name: 'public.ledger', sql: 'CREATE TABLE public.ledger (id integer) PARTITION BY RANGE (id)' },
      { kind: 'table', name: 'public.ledger_2024', sql: 'CREATE TABLE public.ledger_2024 (id integer)' },
      {
        kind: 'attach',
        name: 'public.ledger_2024',
        of: 'public.ledger_2024',
        sql: 'ALTER TABLE public.ledger ATTACH PARTITION public.ledger_2024 FOR VALUES FROM (0) TO (10)',
      },
      { kind: 'table', name: 'public.ledger_2025', sql: 'CREATE TABLE public.ledger_2025 (id integer)' },
      {
        kind: 'attach',
        name: 'public.ledger_2025',
        of: 'public.ledger_2025',
        sql: 'ALTER TABLE public.ledger ATTACH PARTITION public.ledger_2025 FOR VALUES FROM (10) TO (20)',
      },
      { kind: 'table', name: 'tenant2.orders', sql: 'CREATE TABLE tenant2.orders (id integer NOT NULL)' },
      { kind: 'constraint', name: 'customer_pkey', of: 'public.customer', sql: 'ALTER TABLE public.customer ADD CONSTRAINT customer_pkey PRIMARY KEY (id)' },
      { kind: 'constraint', name: 'orders_pkey', of: 'public.orders', sql: 'ALTER TABLE public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id)' },
      { kind: 'constraint', name: 'orders_pkey', of: 'tenant2.orders', sql: 'ALTER TABLE tenant2.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id)' },
      {
        kind: 'foreign key',
        name: 'orders_customer_fk',
        of: 'public.orders',
        references: 'public.customer',
        sql: 'ALTER TABLE public.orders ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES public.customer(id)',
      },
      { kind: 'index', name: 'orders_f', of: 'public.orders', sql: 'CREATE INDEX orders_f ON public.orders USING btree (public.f(customer_id))' },
      { kind: 'view', name: 'public.refunds', sql: 'CREATE VIEW public.refunds AS SELECT id FROM public.orders' },
    ],
    relations: [
      rel('public', 'customer'),
      rel('public', 'orders'),
      rel('public', 'ledger', 'p'),
      rel('public', 'ledger_2024'),
      rel('public', 'ledger_2025'),
      rel('tenant2', 'orders'),
      rel('public', 'customer_pkey', 'i'),
      rel('public', 'orders_pkey', 'i'),
      rel('public', 'orders_f', 'i'),
      rel('tenant2', 'orders_pkey', 'i'),
    ],
    indexes: [
      {
        schema: 'public',
        table: 'customer',
        name: 'customer_pkey',
        am: 'btree',
        keys: ['id'],
        include: [],
        predicate: null,
        unique: true,
        parent: null,
        definition: '',
      },
      {
        schema: 'public',
        table: 'orders',
        name: 'orders_pkey',
        am: 'btree',
        keys: ['id'],
        include: [],
        predicate: null,
        unique: true,
        parent: null,
        definition: 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)',
      },
      {
        schema: 'public',
        table: 'orders',
        name: 'orders_f',
        am: 'btree',
        keys: [null],
        include: [],
        predicate: null,
        unique: false,
        parent: null,
        definition: 'CREATE INDEX orders_f ON public.orders USING btree (public.f(customer_id))',
      },
      {
        schema: 'tenant2',
        table: 'orders',
        name: 'orders_pkey',
        am: 'btree',
        keys: ['id'],
        include: [],
        predicate: null,
        unique: true,
        parent: null,
        definition: '',
      },
    ],
    columns: [
      col('public', 'customer', 'id'),
      col('public', 'orders', 'id'),
      col('public', 'orders', 'customer_id'),
      { ...col('public', 'orders', 'state'), type: 'state', category: 'E' },
      col('public', 'ledger', 'id'),
      col('tenant2', 'orders', 'id'),
    ],
    stats: [stat('public', 'orders', 'id'), stat('public', 'orders_f', 'f'), stat('tenant2', 'orders', 'id'), stat('public', 'ledger_2025', 'id')],
    graph: {
      relations: {
        'public.customer': { schema: 'public', name: 'customer', kind: 'r' },
        'public.orders': { schema: 'public', name: 'orders', kind: 'r', types: ['public.state'], functions: ['public.f(integer)'] },
        'public.ledger': { schema: 'public', name: 'ledger', kind: 'p', children: ['public.ledger_2024', 'public.ledger_2025'] },
        'public.ledger_2024': { schema: 'public', name: 'ledger_2024', kind: 'r', needs: ['public.ledger'] },
        'public.ledger_2025': { schema: 'public', name: 'ledger_2025', kind: 'r', needs: ['public.ledger'] },
        'tenant2.orders': { schema: 'tenant2', name: 'orders', kind: 'r' },
        'public.refunds': { schema: 'public', name: 'refunds', kind: 'v', reads: ['public.orders'] },
      },
      types: { 'public.state': { schema: 'public', name: 'state' } },
      functions: { 'public.f(integer)': { schema: 'public', name: 'f' } },
    },
  };
}

const tables = (s: Snapshot) => Object.keys(s.graph!.relations).sort();

describe('the names a query uses', () => {
  it('reads relations, functions, types and regclass constants from the parse tree', () => {
    const refs = queryRefs([
      `WITH recent AS (SELECT * FROM tenant2.orders) SELECT r.id FROM recent r JOIN "Mixed"."T" t ON t.id = r.id
       WHERE t.x = $1::public.state AND my_fn(t.y) > 0 AND pg_catalog.lower(t.z) = 'a' AND tableoid = 'public.ledger'::regclass`,
      `UPDATE orders SET customer_id = 1 WHERE id IN (SELECT id FROM customer)`,
      'not sql at all',
    ]);
    expect(refs.relations.map((n) => nameKey(n)).sort()).toEqual(
      [
        { name: 'recent' },
        { schema: 'tenant2', name: 'orders' },
        { schema: 'Mixed', name: 'T' },
        { schema: 'public', name: 'ledger' },
        { name: 'orders' },
        { name: 'customer' },
      ]
        .map((n) => nameKey(n))
        .sort(),
    );
    expect(refs.functions).toEqual([{ name: 'my_fn' }]);
    expect(refs.types).toContainEqual({ schema: 'public', name: 'state' });
  });

  it('reads a search_path as PostgreSQL splits it', () => {
    expect(searchPathSchemas('"$user", public, "My Schema", Other')).toEqual(['public', 'My Schema', 'other']);
  });
});

describe('what queries need of a snapshot of everything', () => {
  it('a query on a partitioned table brings its partitions; one on a partition, its parent only', () => {
    expect(tables(subsetSnapshot(production(), queryRefs(['SELECT * FROM ledger'])))).toEqual(['public.ledger', 'public.ledger_2024', 'public.ledger_2025']);
    expect(tables(subsetSnapshot(production(), queryRefs(['SELECT * FROM ledger_2024'])))).toEqual(['public.ledger', 'public.ledger_2024']);
  });

  it("a view brings its tables, their types and functions, indexes, constraints and statistics; not the FK's table", () => {
    const part = subsetSnapshot(production(), queryRefs(['SELECT * FROM refunds']));
    expect(tables(part)).toEqual(['public.orders', 'public.refunds']);
    expect(part.ddl.map((d) => `${d.kind} ${d.of ?? d.name}`)).toEqual([
      'schema tenant2',
      'type public.state',
      'function public.f(integer)',
      'table public.orders',
      'constraint public.orders',
      'index public.orders',
      'view public.refunds',
    ]);
    expect(part.relations.map((r) => r.name)).toEqual(['orders', 'orders_pkey', 'orders_f']);
    expect(part.stats.map((s) => s.table)).toEqual(['orders', 'orders_f']);
    expect(part.scope!.relations).toEqual({ [nameKey({ name: 'refunds' })]: 'public.refunds' });
  });

  it('keeps a foreign key when both its tables are kept, resolves names on the search_path, records absent ones', () => {
    const part = subsetSnapshot(production(), queryRefs(['SELECT * FROM orders o JOIN customer c ON c.id = o.customer_id JOIN nowhere n ON true']));
    expect(tables(part)).toEqual(['public.customer', 'public.orders']);
    expect(part.ddl.filter((d) => d.kind === 'foreign key')).toHaveLength(1);
    expect(part.scope!.relations[nameKey({ name: 'nowhere' })]).toBeNull();
    // tenant2 is off the path: only named with its schema
    expect(tables(subsetSnapshot(production(), queryRefs(['SELECT * FROM tenant2.orders'])))).toEqual(['tenant2.orders']);
  });

  it('a snapshot without a graph is kept whole', () => {
    const old = { ...production(), graph: undefined };
    expect(subsetSnapshot(old, queryRefs(['SELECT 1 FROM customer']))).toBe(old);
  });
});

describe('a scoped snapshot', () => {
  const scoped = () => subsetSnapshot(production(), queryRefs(['SELECT * FROM ledger_2024']));

  it('says what it lacks for other queries: names it never resolved, partitions of a parent it only needed', () => {
    const part = scoped();
    expect(missingFrom(part, queryRefs(['SELECT * FROM ledger_2024']))).toBeUndefined();
    const missing = missingFrom(part, queryRefs(['SELECT * FROM ledger l JOIN customer c ON true']))!;
    expect(missing.names.relations).toEqual([{ name: 'customer' }]);
    expect(missing.used).toEqual(['public.ledger_2025']);
    expect(missingFrom(production(), queryRefs(['SELECT * FROM anything']))).toBeUndefined();
  });

  it('merged with a later read, holds both and lacks nothing for them', () => {
    const more = subsetSnapshot(production(), queryRefs(['SELECT * FROM ledger l JOIN customer c ON true']));
    const merged = mergeSnapshots(scoped(), more);
    expect(tables(merged)).toEqual(['public.customer', 'public.ledger', 'public.ledger_2024', 'public.ledger_2025']);
    expect(missingFrom(merged, queryRefs(['SELECT * FROM ledger l JOIN customer c ON true']))).toBeUndefined();
    // what the first held first, then what the later read added, each kind of DDL in the order a read gives
    expect(merged.ddl.map((d) => `${d.kind} ${d.name}`)).toEqual([
      'schema tenant2',
      'table public.ledger',
      'table public.ledger_2024',
      'table public.customer',
      'table public.ledger_2025',
      'attach public.ledger_2024',
      'attach public.ledger_2025',
      'constraint customer_pkey',
    ]);
    expect(
      refsOfScope(merged.scope!)
        .relations.map((n) => n.name)
        .sort(),
    ).toEqual(['customer', 'ledger', 'ledger_2024']);
  });

  it('is unchanged for a new read that holds the same, whatever the order, and changed when a size moved', () => {
    const stored = scoped();
    const whole = production();
    expect(unchangedFor(stored, whole)).toBe(true);
    const reordered = { ...whole, relations: [...whole.relations].reverse() };
    expect(unchangedFor(stored, reordered)).toBe(true);
    const grown = { ...whole, relations: whole.relations.map((r) => (r.name === 'ledger_2024' ? { ...r, blocks: 11 } : r)) };
    expect(unchangedFor(stored, grown)).toBe(false);
    // a size elsewhere does not matter
    const elsewhere = { ...whole, relations: whole.relations.map((r) => (r.name === 'customer' ? { ...r, blocks: 11 } : r)) };
    expect(unchangedFor(stored, elsewhere)).toBe(true);
  });

  it('closes over types and functions of what it keeps', () => {
    const c = closure(production(), queryRefs(['SELECT * FROM orders']));
    expect([...c.types]).toEqual(['public.state']);
    expect([...c.functions]).toEqual(['public.f(integer)']);
  });
});

describe("a CI run's schema applied to a part", () => {
  const runSchema = (over: Partial<RunSchema> = {}): RunSchema => ({
    tables: [
      ['public', 'customer', 'r', null],
      ['public', 'orders', 'r', null],
      ['public', 'invoices', 'r', null],
      ['public', 'ledger', 'p', null],
    ],
    columns: [
      ['public', 'customer', 'id', 'integer', true],
      ['public', 'customer', 'vip', 'boolean', false],
      ['public', 'orders', 'id', 'integer', true],
      ['public', 'orders', 'customer_id', 'integer', false],
      ['public', 'orders', 'state', 'state', false],
      ['public', 'invoices', 'id', 'integer', true],
      ['public', 'invoices', 'state', 'state', false],
      ['public', 'ledger', 'id', 'integer', false],
    ],
    indexes: [
      ['public', 'customer', 'customer_pkey', 'CREATE UNIQUE INDEX customer_pkey ON public.customer USING btree (id)', 'customer_pkey'],
      ['public', 'orders', 'orders_pkey', 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)', 'orders_pkey'],
      ['public', 'customer', 'customer_vip', 'CREATE INDEX customer_vip ON public.customer USING btree (vip)', null],
      ['public', 'orders', 'orders_f', 'CREATE INDEX orders_f ON public.orders USING btree (public.f(customer_id))', null],
    ],
    ...over,
  });

  it('creates a table the queries name and production lacks, with the types it uses; nothing about tables no query needs', () => {
    const part = subsetSnapshot(production(), queryRefs(['SELECT * FROM orders o JOIN invoices i ON i.id = o.id']));
    const applied = applyRunSchema(part, runSchema(), null);
    expect(applied.snapshot.ddl.filter((d) => d.kind === 'table').map((d) => d.name)).toEqual(['public.orders', '"public"."invoices"']);
    expect(applied.snapshot.graph!.relations['"public"."invoices"']).toMatchObject({ types: ['public.state'] });
    // customer is in production but not in this part: its new column and index are not applied, nor noted
    expect(applied.runNotes.join('\n')).not.toMatch(/customer|ledger/);
    expect(applied.tableNotes).toEqual({ 'public.invoices': ['public.invoices is new in this run: no production statistics'] });
    // cut again to the new table's query, the table and its type stay
    const again = subsetSnapshot(applied.snapshot, queryRefs(['SELECT * FROM invoices']));
    expect(tables(again)).toEqual(['"public"."invoices"']);
    expect(again.ddl.filter((d) => d.kind === 'type')).toHaveLength(1);
  });

  it('applies what touches the part: a new column and index of a table the queries read', () => {
    const part = subsetSnapshot(production(), queryRefs(['SELECT * FROM customer']));
    const applied = applyRunSchema(part, runSchema(), null);
    expect(applied.snapshot.ddl.filter((d) => d.kind === 'column' || (d.kind === 'index' && d.name === 'customer_vip')).map((d) => d.of)).toEqual([
      'public.customer',
      'public.customer',
    ]);
    expect(applied.digest).not.toBe('');
    expect(tables(subsetSnapshot(applied.snapshot, queryRefs(['SELECT * FROM customer'])))).toEqual(['public.customer']);
    expect(subsetSnapshot(applied.snapshot, queryRefs(['SELECT * FROM customer'])).ddl.map((d) => d.kind)).toContain('column');
  });
});
