// How a CI run's schema changes the snapshot the shadow plans on, without PostgreSQL: a small
// production snapshot written by hand, and run schemas that differ from it one way at a time.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSchema } from '../shared/run-schema.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { planObjects } from './plan-objects.js';
import { applyRunSchema, splitQualified } from './run-schema.js';
import { planShadowDdl } from '../shadow/ddl.js';
import type { SnapshotIndex, Snapshot } from '../snapshot/types.js';

beforeAll(() => loadParser());

const index = (table: string, name: string, definition: string, over: Partial<SnapshotIndex> = {}): SnapshotIndex => ({
  schema: 'public',
  table,
  name,
  am: 'btree',
  keys: [],
  include: [],
  predicate: null,
  unique: false,
  parent: null,
  definition,
  ...over,
});

const DEFS = {
  ordersPkey: 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)',
  created: 'CREATE INDEX orders_created_idx ON public.orders USING btree (created)',
  hand: 'CREATE INDEX orders_hand_idx ON public.orders USING btree (status)',
  customerPkey: 'CREATE UNIQUE INDEX customer_pkey ON public.customer USING btree (id)',
};

function production(): Snapshot {
  const rel = (name: string, kind: string, blocks: number) => ({
    schema: 'public',
    name,
    kind,
    relpages: blocks,
    reltuples: blocks * 50,
    relallvisible: 0,
    blocks,
  });
  const col = (table: string, name: string, type: string) => ({ schema: 'public', table, name, type, category: 'N', notNull: false });
  return {
    serverVersionNum: 180000,
    searchPath: '"$user", public',
    blockSize: 8192,
    locale: { collate: 'C', ctype: 'C' },
    settings: {},
    ddl: [
      { kind: 'table', name: 'public.customer', sql: 'CREATE TABLE public.customer (id integer NOT NULL, region text)' },
      {
        kind: 'table',
        name: 'public.orders',
        sql: 'CREATE TABLE public.orders (id bigint NOT NULL, customer_id integer, status text, created timestamp with time zone)',
      },
      { kind: 'constraint', name: 'customer_pkey', sql: 'ALTER TABLE public.customer ADD CONSTRAINT customer_pkey PRIMARY KEY (id)' },
      { kind: 'constraint', name: 'orders_pkey', sql: 'ALTER TABLE public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id)' },
      {
        kind: 'foreign key',
        name: 'orders_customer_id_fkey',
        sql: 'ALTER TABLE public.orders ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customer(id)',
      },
      { kind: 'index', name: 'orders_created_idx', sql: DEFS.created },
      { kind: 'index', name: 'orders_hand_idx', sql: DEFS.hand },
      { kind: 'view', name: 'public.recent', sql: 'CREATE VIEW public.recent AS SELECT id FROM orders' },
    ],
    relations: [
      rel('customer', 'r', 100),
      rel('orders', 'r', 1000),
      rel('customer_pkey', 'i', 30),
      rel('orders_pkey', 'i', 300),
      rel('orders_created_idx', 'i', 300),
      rel('orders_hand_idx', 'i', 200),
    ],
    indexes: [
      index('customer', 'customer_pkey', DEFS.customerPkey, { keys: ['id'], unique: true }),
      index('orders', 'orders_created_idx', DEFS.created, { keys: ['created'] }),
      index('orders', 'orders_hand_idx', DEFS.hand, { keys: ['status'] }),
      index('orders', 'orders_pkey', DEFS.ordersPkey, { keys: ['id'], unique: true }),
    ],
    columns: [
      col('customer', 'id', 'integer'),
      col('customer', 'region', 'text'),
      col('orders', 'id', 'bigint'),
      col('orders', 'customer_id', 'integer'),
      col('orders', 'status', 'text'),
      col('orders', 'created', 'timestamp with time zone'),
      col('recent', 'id', 'bigint'),
    ],
    stats: [],
  };
}

/** Production's schema as ci-report would send it; `orders_hand_idx` was created by hand, never in a migration. */
function sameAsProduction(): RunSchema {
  return {
    tables: [
      ['public', 'customer', 'r', null],
      ['public', 'orders', 'r', null],
      ['public', 'recent', 'v', null],
    ],
    columns: [
      ['public', 'customer', 'id', 'integer', true],
      ['public', 'customer', 'region', 'text', false],
      ['public', 'orders', 'id', 'bigint', true],
      ['public', 'orders', 'customer_id', 'integer', false],
      ['public', 'orders', 'status', 'text', false],
      ['public', 'orders', 'created', 'timestamp with time zone', false],
      ['public', 'recent', 'id', 'bigint', false],
    ],
    indexes: [
      ['public', 'customer', 'customer_pkey', DEFS.customerPkey, 'customer_pkey'],
      ['public', 'orders', 'orders_created_idx', DEFS.created, null],
      ['public', 'orders', 'orders_hand_idx', DEFS.hand, null],
      ['public', 'orders', 'orders_pkey', DEFS.ordersPkey, 'orders_pkey'],
    ],
  };
}

const withoutHand = (): RunSchema => {
  const s = sameAsProduction();
  return { ...s, indexes: s.indexes.filter(([, , n]) => n !== 'orders_hand_idx') };
};

/** Every statement the shadow would run for the applied snapshot, as planShadowDdl lets it through. */
const shadowStatements = (s: Snapshot) => planShadowDdl(s.ddl, []).statements.map((d) => d.sql);

describe('applyRunSchema', () => {
  it('applies nothing when the run has production schema: digest empty, the snapshot unchanged', () => {
    const snap = production();
    const applied = applyRunSchema(snap, withoutHand(), withoutHand());
    expect(applied).toEqual({ snapshot: snap, digest: '', tableNotes: {}, runNotes: [], droppedIndexes: [] });
  });

  it('creates a new index, marked to be sized like a candidate, with a note on its table', () => {
    const run = sameAsProduction();
    const def = "CREATE INDEX orders_customer_idx ON public.orders USING btree (customer_id) INCLUDE (status) WHERE (status = 'paid'::text)";
    run.indexes.push(['public', 'orders', 'orders_customer_idx', def, null]);
    const applied = applyRunSchema(production(), run, sameAsProduction());
    expect(applied.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shadowStatements(applied.snapshot)).toContain(def);
    expect(applied.snapshot.indexes.find((i) => i.name === 'orders_customer_idx')).toMatchObject({
      table: 'orders',
      am: 'btree',
      keys: ['customer_id'],
      include: ['status'],
      predicate: "(status = 'paid'::text)",
    });
    expect(applied.snapshot.runIndexes).toEqual([{ schema: 'public', name: 'orders_customer_idx' }]);
    expect(applied.tableNotes['public.orders']).toEqual(['index public.orders_customer_idx is new in this run: sized from production statistics']);
    expect(applied.droppedIndexes).toEqual([]);
  });

  it('creates a new table with quoted identifiers and planner defaults, and says it has no production statistics', () => {
    const run = sameAsProduction();
    run.tables.push(['public', 'Coupon', 'r', null]);
    run.columns.push(['public', 'Coupon', 'order', 'bigint', true], ['public', 'Coupon', 'code', 'character varying(20)', false]);
    run.indexes.push(['public', 'Coupon', 'coupon_code', 'CREATE INDEX coupon_code ON public."Coupon" USING btree (code)', null]);
    const applied = applyRunSchema(production(), run, sameAsProduction());
    const sql = 'CREATE TABLE "public"."Coupon" ("order" bigint NOT NULL, "code" character varying(20))';
    expect(shadowStatements(applied.snapshot)).toContain(sql);
    expect(applied.snapshot.relations).toContainEqual({ schema: 'public', name: 'Coupon', kind: 'r', relpages: 0, reltuples: -1, relallvisible: 0, blocks: 0 });
    expect(applied.snapshot.columns.filter((c) => c.table === 'Coupon').map((c) => c.name)).toEqual(['order', 'code']);
    expect(applied.tableNotes['public.Coupon']).toEqual([
      'public.Coupon is new in this run: no production statistics',
      'index public.coupon_code is new in this run',
    ]);
    // Its index is built on the new (empty) table and not sized: the table has no production rows.
    expect(applied.snapshot.runIndexes).toEqual([]);
    expect(shadowStatements(applied.snapshot)).toContain('CREATE INDEX coupon_code ON public."Coupon" USING btree (code)');
  });

  it('adds a new column to a production table, without NOT NULL, through the shadow filter', () => {
    const run = sameAsProduction();
    run.columns.push(['public', 'orders', 'coupon', 'text[]', true]);
    const applied = applyRunSchema(production(), run, sameAsProduction());
    expect(shadowStatements(applied.snapshot)).toContain('ALTER TABLE "public"."orders" ADD COLUMN "coupon" text[]');
    expect(applied.snapshot.columns).toContainEqual({ schema: 'public', table: 'orders', name: 'coupon', type: 'text[]', category: 'A', notNull: true });
    expect(applied.tableNotes['public.orders']).toEqual(['public.orders.coupon is new in this run: no production statistics']);
  });

  it('drops an index the baseline had and the run does not, from ddl, indexes and relations', () => {
    const run = sameAsProduction();
    run.indexes = run.indexes.filter(([, , n]) => n !== 'orders_created_idx');
    const applied = applyRunSchema(production(), run, sameAsProduction());
    expect(applied.droppedIndexes).toEqual(['public.orders_created_idx']);
    expect(applied.snapshot.ddl.some((d) => d.sql === DEFS.created)).toBe(false);
    expect(applied.snapshot.indexes.some((i) => i.name === 'orders_created_idx')).toBe(false);
    expect(applied.snapshot.relations.some((r) => r.name === 'orders_created_idx')).toBe(false);
    expect(applied.tableNotes['public.orders']).toEqual(['index public.orders_created_idx is dropped in this run']);
  });

  it('keeps an index created by hand in production when the baseline did not have it either', () => {
    const applied = applyRunSchema(production(), withoutHand(), withoutHand());
    expect(applied.droppedIndexes).toEqual([]);
    expect(applied.snapshot.indexes.some((i) => i.name === 'orders_hand_idx')).toBe(true);
  });

  it('without a baseline, drops missing indexes only on tables the run has', () => {
    const run = withoutHand();
    run.tables = run.tables.filter(([, n]) => n !== 'customer');
    run.columns = run.columns.filter(([, t]) => t !== 'customer');
    run.indexes = run.indexes.filter(([, t]) => t !== 'customer');
    const applied = applyRunSchema(production(), run, null);
    expect(applied.droppedIndexes).toEqual(['public.orders_hand_idx']);
    // The missing table is reported, never removed.
    expect(applied.runNotes).toEqual(['table public.customer is dropped in this run: not applied (queries are planned with it)']);
  });

  it('drops a constraint-backed index with its constraint and the foreign keys that reference it', () => {
    const run = sameAsProduction();
    run.indexes = run.indexes.filter(([, , n]) => n !== 'customer_pkey');
    const applied = applyRunSchema(production(), run, sameAsProduction());
    expect(applied.droppedIndexes).toEqual(['public.customer_pkey']);
    const names = applied.snapshot.ddl.map((d) => d.name);
    expect(names).not.toContain('customer_pkey');
    expect(names).not.toContain('orders_customer_id_fkey');
    expect(names).toContain('orders_pkey');
  });

  it('reports what it cannot apply and applies none of it', () => {
    const run = sameAsProduction();
    run.columns = run.columns.map((c) => (c[2] === 'created' ? ['public', 'orders', 'created', 'date', false] : c));
    run.columns = run.columns.filter(([, t, c]) => !(t === 'customer' && c === 'region'));
    run.indexes = run.indexes.map((i) =>
      i[2] === 'orders_created_idx'
        ? ([...i.slice(0, 3), 'CREATE INDEX orders_created_idx ON public.orders USING btree (created DESC)', null] as RunSchema['indexes'][number])
        : i,
    );
    run.tables.push(['public', 'totals', 'v', null], ['public', 'bad', 'r', null]);
    run.columns.push(['public', 'bad', 'x', 'integer DEFAULT pg_sleep(10)', false], ['public', 'orders', 'evil', 'int); DROP TABLE orders; --', false]);
    run.indexes.push(
      ['public', 'orders', 'two', 'CREATE INDEX two ON public.orders (id); CREATE INDEX three ON public.orders (id)', null],
      ['public', 'orders', 'renamed', 'CREATE INDEX other_name ON public.orders USING btree (id)', null],
    );
    const applied = applyRunSchema(production(), run, sameAsProduction());
    expect(applied.digest).toBe('');
    expect(applied.snapshot).toEqual(production());
    expect(applied.runNotes).toHaveLength(8);
    expect(applied.runNotes.join('\n')).toMatch(/column public\.orders\.created is date in this run, timestamp with time zone in production: not changed/);
    expect(applied.runNotes.join('\n')).toMatch(/column public\.customer\.region is dropped in this run/);
    expect(applied.runNotes.join('\n')).toMatch(/index public\.orders_created_idx is defined differently in this run/);
    expect(applied.runNotes.join('\n')).toMatch(/view public\.totals is new in this run: not created/);
    expect(applied.runNotes.join('\n')).toMatch(/table public\.bad is new in this run: not created/);
    expect(applied.runNotes.join('\n')).toMatch(/column public\.orders\.evil is new in this run: not added/);
    expect(applied.runNotes.join('\n')).toMatch(/index public\.two is new in this run: not created/);
    expect(applied.runNotes.join('\n')).toMatch(/index public\.renamed is new in this run: not created/);
  });

  it('gives the same digest for the same changes in any order, another for other changes', () => {
    const a = sameAsProduction();
    a.indexes.push(
      ['public', 'orders', 'i1', 'CREATE INDEX i1 ON public.orders USING btree (status)', null],
      ['public', 'orders', 'i2', 'CREATE INDEX i2 ON public.orders USING btree (customer_id)', null],
    );
    const b = { ...a, indexes: [...a.indexes].reverse() };
    const c = { ...a, indexes: a.indexes.slice(0, -1) };
    const digest = (r: RunSchema) => applyRunSchema(production(), r, sameAsProduction()).digest;
    expect(digest(a)).toBe(digest(b));
    expect(digest(c)).not.toBe(digest(a));
    expect(digest(c)).not.toBe('');
  });

  it('creates a new partitioned index once, its parts named as the run names them', () => {
    const snap = production();
    snap.relations.push({ schema: 'public', name: 'ledger', kind: 'p', relpages: 0, reltuples: 0, relallvisible: 0, blocks: 0 });
    snap.relations.push({ schema: 'public', name: 'ledger_2025', kind: 'r', relpages: 10, reltuples: 500, relallvisible: 0, blocks: 10 });
    snap.columns.push({ schema: 'public', table: 'ledger', name: 'day', type: 'date', category: 'D', notNull: true });
    snap.columns.push({ schema: 'public', table: 'ledger_2025', name: 'day', type: 'date', category: 'D', notNull: true });
    const run = sameAsProduction();
    run.tables.push(['public', 'ledger', 'p', null], ['public', 'ledger_2025', 'r', 'public.ledger']);
    run.columns.push(['public', 'ledger', 'day', 'date', true], ['public', 'ledger_2025', 'day', 'date', true]);
    run.indexes.push(
      ['public', 'ledger', 'ledger_day', 'CREATE INDEX ledger_day ON ONLY public.ledger USING btree (day)', null],
      ['public', 'ledger_2025', 'ledger_2025_day_idx', 'CREATE INDEX ledger_2025_day_idx ON public.ledger_2025 USING btree (day)', null],
    );
    const applied = applyRunSchema(snap, run, sameAsProduction());
    const creates = shadowStatements(applied.snapshot).filter((s) => s.includes('ledger'));
    expect(creates).toEqual(['CREATE INDEX ledger_day ON public.ledger USING btree (day)']);
    expect(applied.snapshot.indexes.find((i) => i.name === 'ledger_2025_day_idx')).toMatchObject({ parent: 'ledger_day', table: 'ledger_2025' });
    expect(applied.snapshot.runIndexes).toEqual([{ schema: 'public', name: 'ledger_day' }]);
  });
});

describe('the shadow filter for added columns', () => {
  it('lets ADD COLUMN through without its default or CHECK', () => {
    const out = planShadowDdl([{ kind: 'column', name: 'c', sql: 'ALTER TABLE public.t ADD COLUMN c integer DEFAULT f() CHECK (c > g())' }], []);
    expect(out.skipped).toEqual([]);
    expect(out.statements.map((s) => s.sql.replace(/\s+/g, ' '))).toEqual(['ALTER TABLE public.t ADD COLUMN c int']);
  });
});

describe('planObjects', () => {
  it('names the tables and indexes a plan reads by schema, partition parts by their partitioned index', () => {
    const snap = production();
    snap.indexes.push(index('ledger_2025', 'ledger_2025_day_idx', '', { parent: 'ledger_day' }), index('ledger', 'ledger_day', ''));
    snap.relations.push({ schema: 'archive', name: 'orders', kind: 'r', relpages: 1, reltuples: 1, relallvisible: 0, blocks: 1 });
    snap.indexes.push({ ...index('orders', 'orders_created_idx', ''), schema: 'archive' });
    const plan = {
      'Node Type': 'Nested Loop',
      'Total Cost': 10,
      'Plan Rows': 1,
      Plans: [
        {
          'Node Type': 'Bitmap Heap Scan',
          'Relation Name': 'customer',
          'Total Cost': 1,
          'Plan Rows': 1,
          Plans: [{ 'Node Type': 'Bitmap Index Scan', 'Index Name': 'customer_pkey', 'Total Cost': 1, 'Plan Rows': 1 }],
        },
        { 'Node Type': 'Index Scan', 'Relation Name': 'orders', 'Index Name': 'orders_created_idx', 'Total Cost': 1, 'Plan Rows': 1 },
        { 'Node Type': 'Index Scan', 'Relation Name': 'ledger_2025', 'Index Name': 'ledger_2025_day_idx', 'Total Cost': 1, 'Plan Rows': 1 },
      ],
    };
    expect(planObjects(plan, snap)).toEqual({
      indexesUsed: ['public.customer_pkey', 'public.ledger_day', 'public.orders_created_idx'],
      tablesUsed: ['public.customer', 'public.orders'],
    });
    expect(planObjects(null, snap)).toEqual({ indexesUsed: [], tablesUsed: [] });
  });

  it('splits qualified names as quote_ident prints them', () => {
    expect(splitQualified('"My ""x"".y"."t"')).toEqual(['My "x".y', 't']);
    expect(splitQualified('public.recent')).toEqual(['public', 'recent']);
    expect(splitQualified('orders_pkey')).toEqual(['public', 'orders_pkey']);
  });
});
