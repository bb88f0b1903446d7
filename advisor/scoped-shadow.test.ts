// A shadow that carries only what its queries need (scope.ts, snapshot/scope.ts) plans them exactly
// as the shadow of the whole schema does: plan trees, costs, recommendations, alternatives, the
// plans with the recommendations in place. Proven on the advisor's fidelity cases (advisor.test.ts,
// kept-shadows.test.ts, the CI verdict proof's orders, bench:advisor's 68 Pagila queries), on
// GitLab's structure.sql, and on the things a part of a schema can miss: names resolved through the
// search_path past a same-named table, views on views, partitions and inheritance both ways,
// foreign keys, enums, domains and composites, functions in index expressions, 'name'::regclass.
// Each database is read twice, whole and scoped to the queries, and planned three ways: the whole
// read rebuilt whole (as before), the whole read cut to the queries, the scoped read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { GITLAB_SQL, PAGILA_SQL, loadSqlFile } from '../test/support/analyzer.js';
import { LOAD_SQL, WORKLOAD, WORKLOAD_INDEXES } from '../bench/advisor-data.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import {
  analyzeSnapshot,
  queryRefs,
  readSnapshot,
  startShadowServer,
  subsetSnapshot,
  unchangedFor,
  type AnalysisResult,
  type QueryInput,
  type ShadowServer,
  type Snapshot,
} from './index.js';
import { missingFrom, mergeSnapshots } from './scope.js';

let production: PostgresServer;
let shadow: ShadowServer;

/**
 * What a reader of the result sees of each query, but two things no plan depends on: the oid a
 * 'name'::regclass folds to (the shadow's own, different in each build) and, between two reads of
 * production, its tables' write rates (counters divided by the seconds since their reset).
 */
const comparable = (r: AnalysisResult, twoReads = false) => {
  const json = JSON.stringify(
    r.queries.map((q) => ({
      hash: q.hash,
      error: q.error,
      cost: q.cost,
      planShape: q.planShape,
      plan: q.plan,
      planAfter: q.planAfter,
      recommendations: q.recommendations,
      alternatives: q.alternatives,
    })),
    (key, value: unknown) => (twoReads && key === 'writes' ? undefined : value),
  );
  return JSON.parse(json.replace(/'\d+'::oid/g, "'<oid>'::oid")) as unknown[];
};

/**
 * A query's own plan and cost. Its recommendations and alternatives may also use another query's
 * candidate (the whole workload, workload.ts): they are compared only among the same queries.
 */
const plansOf = (r: AnalysisResult, hashes?: string[]) =>
  (comparable(r, true) as { hash: string; error: unknown; cost: unknown; planShape: unknown; plan: unknown }[])
    .filter((q) => !hashes || hashes.includes(q.hash))
    .map(({ hash, error, cost, planShape, plan }) => ({ hash, error, cost, planShape, plan }))
    .sort((a, b) => a.hash.localeCompare(b.hash));

const inputs = (set: Record<string, string> | [string, string, number][]): QueryInput[] =>
  Array.isArray(set)
    ? set.map(([label, query, calls], i) => ({ hash: `q${i + 1} ${label}`, query, calls }))
    : Object.entries(set).map(([hash, query]) => ({ hash, query, calls: 10 }));

interface ThreeWays {
  whole: Snapshot;
  scoped: Snapshot;
  full: AnalysisResult;
  cut: AnalysisResult;
  read: AnalysisResult;
}

/** Reads `url` whole and scoped to `queries`, and plans them the three ways. */
async function threeWays(url: string, queries: QueryInput[]): Promise<ThreeWays> {
  const whole = await readSnapshot(url);
  const scoped = await readSnapshot(url, { scope: { names: queryRefs(queries.map((q) => q.query)) } });
  const full = await analyzeSnapshot(whole, queries, { shadow, fullShadow: true });
  const cut = await analyzeSnapshot(whole, queries, { shadow });
  const read = await analyzeSnapshot(scoped, queries, { shadow });
  return { whole, scoped, full, cut, read };
}

/** Relations (schema.name) a snapshot holds, tables and views. */
const relationsOf = (s: Snapshot) =>
  Object.values(s.graph?.relations ?? {})
    .map((r) => `${r.schema}.${r.name}`)
    .sort();

beforeAll(async () => {
  await loadParser();
  [production, shadow] = await Promise.all([startPostgres({ statStatements: false }), startShadowServer()]);
}, 120_000);

afterAll(async () => {
  await shadow?.stop();
  await production?.stop();
});

describe('the fidelity cases of advisor.test.ts and kept-shadows.test.ts, beside decoys', () => {
  const QUERIES = {
    missingFk: `SELECT * FROM orders WHERE customer_id = $1`,
    existing: `SELECT * FROM orders WHERE created > $1 ORDER BY created LIMIT 20`,
    eqThenSort: `SELECT id, amount FROM orders WHERE customer_id = $1 AND status = $2 ORDER BY created DESC LIMIT 10`,
    jsonb: `SELECT id FROM orders WHERE doc @> '{"kind": "k5"}'`,
    partial: `SELECT o.id FROM orders o JOIN customer c ON c.id = o.customer_id WHERE c.created > $1 AND o.status = 'refunded'`,
    aggregate: `SELECT c.region, sum(o.amount) FROM orders o JOIN customer c ON c.id = o.customer_id GROUP BY 1`,
    pkLookup: `SELECT * FROM customer WHERE id = $1`,
    inList: `SELECT count(*) FROM customer WHERE region IN ('r1', 'r2') AND active`,
    partitioned: `SELECT sum(amount) FROM ledger WHERE customer_id = $1`,
    ledgerDay: `SELECT id FROM ledger WHERE customer_id = $1 AND day > $2`,
    byRegion: `SELECT count(*) FROM customer WHERE region = $1 AND active`,
    // the CI verdict proof's queries, on its orders table (schema shop)
    byCustomer: 'SELECT id, total_cents FROM shop.orders WHERE customer_id = $1',
    byId: 'SELECT * FROM shop.orders WHERE id = $1',
    byWarehouse: 'SELECT id, status FROM shop.orders WHERE warehouse_id = $1',
    byTotal: 'SELECT id, created_at FROM shop.orders WHERE total_cents = $1',
    // through views, an inheritance parent, a partition alone, types, functions, regclass
    view: `SELECT * FROM recent_refunds WHERE customer_id = $1`,
    inherited: `SELECT count(*) FROM measurement WHERE city_id = $1`,
    onePartition: `SELECT sum(amount) FROM ledger_2024 WHERE customer_id = $1`,
    enumCast: `SELECT id FROM tickets WHERE state = $1::ticket_state AND prio = $2`,
    composite: `SELECT id FROM tickets WHERE (place).city = $1`,
    expression: `SELECT id FROM customer WHERE lower_email(email) = $1`,
    regclass: `SELECT count(*) FROM orders WHERE tableoid = 'orders'::regclass AND customer_id = $1`,
    userFunction: `SELECT id FROM tickets WHERE prio > ticket_floor($1)`,
    // statements whose target is the only relation they name
    update: `UPDATE measurement_2025 SET reading = $1 WHERE city_id = $2`,
    delete: `DELETE FROM tickets WHERE customer_id = $1`,
    insert: `INSERT INTO shop.orders (id, customer_id, warehouse_id, total_cents, status, created_at) VALUES ($1, $2, $3, $4, $5, now())`,
  };
  let url: string;
  let ways: ThreeWays;

  beforeAll(async () => {
    url = await production.createDatabase('fidelity');
    await production.query(
      `CREATE EXTENSION pg_trgm;
      CREATE TABLE customer (id int PRIMARY KEY, region text NOT NULL, active bool NOT NULL, created timestamptz NOT NULL, email text NOT NULL);
      INSERT INTO customer SELECT g, 'r' || (g % 50), g % 10 <> 0, now() - g * interval '1 hour', 'u' || g || '@x.org' FROM generate_series(1, 30000) g;
      CREATE FUNCTION lower_email(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT lower(t) $$;
      CREATE INDEX customer_lower_email ON customer (lower_email(email));
      CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customer, status text NOT NULL,
        amount numeric NOT NULL, created timestamptz NOT NULL, doc jsonb);
      INSERT INTO orders SELECT g, 1 + (g * 7919) % 29999,
          CASE WHEN g % 200 = 0 THEN 'refunded' WHEN g % 3 = 0 THEN 'new' ELSE 'paid' END,
          (g % 1000)::numeric, now() - g * interval '1 minute', jsonb_build_object('kind', 'k' || (g % 100), 'n', g % 7)
        FROM generate_series(1, 200000) g;
      CREATE INDEX orders_created_idx ON orders (created);
      CREATE TABLE ledger (id int, customer_id int, amount numeric, day date NOT NULL, PRIMARY KEY (day, id)) PARTITION BY RANGE (day);
      CREATE TABLE ledger_2024 (id int NOT NULL, customer_id int, amount numeric, day date NOT NULL);
      ALTER TABLE ledger ATTACH PARTITION ledger_2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
      CREATE TABLE ledger_2025 PARTITION OF ledger FOR VALUES FROM ('2025-01-01') TO ('2026-01-01') PARTITION BY HASH (id);
      CREATE TABLE ledger_2025_a PARTITION OF ledger_2025 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
      CREATE TABLE ledger_2025_b PARTITION OF ledger_2025 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
      CREATE INDEX ledger_2024_customer ON ledger_2024 (customer_id);
      INSERT INTO ledger SELECT g, g % 5000, g % 100, date '2024-01-01' + g % 700 FROM generate_series(1, 200000) g;
      CREATE INDEX ledger_customer ON ledger (customer_id);
      CREATE VIEW refunds AS SELECT o.id, o.customer_id, o.amount, o.created, c.region FROM orders o JOIN customer c ON c.id = o.customer_id WHERE o.status = 'refunded';
      CREATE VIEW recent_refunds AS SELECT * FROM refunds WHERE created > '2020-01-01';
      CREATE TABLE measurement (id int, city_id int, reading numeric);
      CREATE TABLE measurement_2024 () INHERITS (measurement);
      CREATE TABLE measurement_2025 () INHERITS (measurement);
      INSERT INTO measurement_2024 SELECT g, g % 300, g % 50 FROM generate_series(1, 50000) g;
      INSERT INTO measurement_2025 SELECT g, g % 300, g % 50 FROM generate_series(1, 30000) g;
      CREATE INDEX measurement_2024_city ON measurement_2024 (city_id);
      CREATE TYPE ticket_state AS ENUM ('open', 'pending', 'closed');
      CREATE DOMAIN priority AS smallint NOT NULL;
      CREATE TYPE place AS (city text, zip text);
      CREATE FUNCTION ticket_floor(p int) RETURNS int LANGUAGE sql STABLE AS $$ SELECT p - 1 $$;
      CREATE TABLE tickets (id int PRIMARY KEY, customer_id int REFERENCES customer, state ticket_state NOT NULL, prio priority,
        labels ticket_state[], place place);
      INSERT INTO tickets SELECT g, 1 + g % 29999, (enum_range(NULL::ticket_state))[1 + g % 3], g % 5, '{}', ROW('c' || g % 40, 'z')::place
        FROM generate_series(1, 40000) g;
      CREATE INDEX tickets_state ON tickets (state, prio);
      CREATE INDEX customer_email_trgm ON customer USING gin (email gin_trgm_ops);
      -- the CI verdict proof's table
      CREATE SCHEMA shop;
      CREATE TABLE shop.orders (id bigint PRIMARY KEY, customer_id int NOT NULL, warehouse_id int NOT NULL, total_cents int NOT NULL,
        status text NOT NULL, created_at timestamptz NOT NULL);
      INSERT INTO shop.orders SELECT g, g % 20000, (g::bigint * 7919 % 1000)::int, g % 10000,
          CASE WHEN g % 50 = 0 THEN 'refunded' ELSE 'paid' END, timestamptz '2026-01-01' - g * interval '1 minute'
        FROM generate_series(1, 200000) g;
      CREATE INDEX orders_customer_id_idx ON shop.orders (customer_id);
      -- decoys: same names in a schema off the search_path, and tables no query touches
      CREATE SCHEMA archive;
      CREATE TABLE archive.orders (LIKE orders INCLUDING ALL);
      CREATE TABLE archive.customer (LIKE customer INCLUDING ALL);
      INSERT INTO archive.customer SELECT * FROM customer WHERE id < 100;
      CREATE VIEW archive.refunds AS SELECT * FROM archive.orders;
      CREATE TYPE archive.ticket_state AS ENUM ('x');
      CREATE FUNCTION archive.ticket_floor(p int) RETURNS int LANGUAGE sql AS $$ SELECT p $$;
      DO $$ BEGIN FOR i IN 1..40 LOOP
        EXECUTE format('CREATE TABLE unrelated_%s (id int PRIMARY KEY, customer_id int REFERENCES customer, note text)', i);
        EXECUTE format('CREATE INDEX ON unrelated_%s (customer_id)', i);
      END LOOP; END $$;
      ANALYZE;`,
      [],
      'fidelity',
    );
    ways = await threeWays(url, inputs(QUERIES));
  }, 240_000);

  it('plans every query exactly as the shadow of the whole schema, cut from a whole read or read scoped', () => {
    for (const q of ways.full.queries) expect(q.error, q.hash).toBeNull();
    expect(comparable(ways.cut)).toEqual(comparable(ways.full));
    expect(comparable(ways.read, true)).toEqual(comparable(ways.full, true));
  });

  it('carries only what the queries need: no decoy, no unrelated table, every partition and child, both views', () => {
    const held = relationsOf(ways.scoped);
    expect(held).toEqual(
      [
        'public.customer',
        'public.ledger',
        'public.ledger_2024',
        'public.ledger_2025',
        'public.ledger_2025_a',
        'public.ledger_2025_b',
        'public.measurement',
        'public.measurement_2024',
        'public.measurement_2025',
        'public.orders',
        'public.recent_refunds',
        'public.refunds',
        'public.tickets',
        'shop.orders',
      ].sort(),
    );
    expect(Object.keys(ways.scoped.graph!.types).sort()).toEqual(['public.place', 'public.priority', 'public.ticket_state']);
    expect(Object.keys(ways.scoped.graph!.functions).sort()).toEqual(['public.lower_email(text)', 'public.ticket_floor(integer)']);
    // the foreign keys among them, not the unrelated tables'
    const fks = ways.scoped.ddl.filter((d) => d.kind === 'foreign key');
    expect(fks.map((d) => d.references).sort()).toEqual(['public.customer', 'public.customer']);
    // cut from the whole read, the same objects, sizes and statistics
    expect(relationsOf(subsetSnapshot(ways.whole, queryRefs(Object.values(QUERIES))))).toEqual(held);
    expect(unchangedFor(ways.scoped, ways.whole)).toBe(true);
    expect(ways.whole.relations.length).toBeGreaterThan(3 * ways.scoped.relations.length);
  });

  it('holds a partition queried alone with its parents, not its siblings', async () => {
    const one = await readSnapshot(url, { scope: { names: queryRefs([QUERIES.onePartition]) } });
    expect(relationsOf(one)).toEqual(['public.ledger', 'public.ledger_2024']);
    const result = await analyzeSnapshot(one, inputs({ onePartition: QUERIES.onePartition }), { shadow });
    expect(plansOf(result)).toEqual(plansOf(ways.full, ['onePartition']));
    // a statement's target is a relation it needs too
    const target = await readSnapshot(url, { scope: { names: queryRefs([QUERIES.insert, QUERIES.delete]) } });
    expect(relationsOf(target)).toEqual(['public.tickets', 'shop.orders']);
  });

  it('resolves unqualified names as the search_path does, past a same-named table', async () => {
    await production.query(`ALTER DATABASE fidelity SET search_path = archive, public`);
    try {
      const queries = inputs({
        archived: 'SELECT * FROM orders WHERE customer_id = $1',
        both: 'SELECT count(*) FROM refunds r JOIN public.customer c ON c.id = r.customer_id',
      });
      const scoped = await readSnapshot(url, { scope: { names: queryRefs(queries.map((q) => q.query)) } });
      expect(scoped.scope!.relations).toEqual({ '["orders"]': 'archive.orders', '["refunds"]': 'archive.refunds', '["public","customer"]': 'public.customer' });
      expect(relationsOf(scoped)).toEqual(['archive.orders', 'archive.refunds', 'public.customer']);
      const whole = await readSnapshot(url);
      const full = await analyzeSnapshot(whole, queries, { shadow, fullShadow: true });
      expect(comparable(await analyzeSnapshot(scoped, queries, { shadow }), true)).toEqual(comparable(full, true));
      expect(full.queries[0]!.planShape).toContain('orders');
    } finally {
      await production.query(`ALTER DATABASE fidelity RESET search_path`);
    }
  });

  it('grows a scoped snapshot with what other queries need, and knows when it holds enough', async () => {
    const first = await readSnapshot(url, { scope: { names: queryRefs([QUERIES.onePartition]) } });
    const wanted = queryRefs([QUERIES.partitioned, QUERIES.view, QUERIES.enumCast]);
    const missing = missingFrom(first, wanted)!;
    // the parent it holds is now read as a query reads it: its other partitions are missing
    expect(missing.used.sort()).toEqual(['public.ledger_2025']);
    expect(missing.names.relations.map((n) => n.name).sort()).toEqual(['recent_refunds', 'tickets']);
    const held = { relations: Object.keys(first.graph!.relations), types: Object.keys(first.graph!.types), functions: Object.keys(first.graph!.functions) };
    const more = await readSnapshot(url, { scope: { ...missing, known: held } });
    expect(relationsOf(more)).not.toContain('public.ledger_2024');
    const merged = mergeSnapshots(first, more);
    expect(missingFrom(merged, wanted)).toBeUndefined();
    expect(missingFrom(merged, queryRefs([QUERIES.inherited]))).toBeDefined();
    const queries = inputs({ partitioned: QUERIES.partitioned, view: QUERIES.view, enumCast: QUERIES.enumCast, onePartition: QUERIES.onePartition });
    const fromMerged = await analyzeSnapshot(merged, queries, { shadow });
    expect(plansOf(fromMerged)).toEqual(
      plansOf(
        ways.full,
        queries.map((q) => q.hash),
      ),
    );
    // the same queries on the whole read: the same recommendations too
    expect(comparable(fromMerged, true)).toEqual(comparable(await analyzeSnapshot(ways.whole, queries, { shadow, fullShadow: true }), true));
  });

  it('grows a kept shadow database with the relations of later queries, planning as a fresh one', async () => {
    const reuseKey = 'fidelity-grow';
    const firstSet = inputs({ onePartition: QUERIES.onePartition, byCustomer: QUERIES.byCustomer });
    const laterSet = inputs({
      partitioned: QUERIES.partitioned,
      view: QUERIES.view,
      composite: QUERIES.composite,
      expression: QUERIES.expression,
      inherited: QUERIES.inherited,
    });
    await analyzeSnapshot(ways.whole, firstSet, { shadow, reuseKey });
    const grown = await analyzeSnapshot(ways.whole, laterSet, { shadow, reuseKey });
    const fresh = await analyzeSnapshot(ways.whole, laterSet, { shadow });
    expect(comparable(grown)).toEqual(comparable(fresh));
    expect(plansOf(fresh)).toEqual(
      plansOf(
        ways.full,
        laterSet.map((q) => q.hash),
      ),
    );
  });
});

describe("bench:advisor's 68 queries on Pagila", () => {
  let ways: ThreeWays;

  beforeAll(async () => {
    const url = await production.createDatabase('pagila');
    await loadSqlFile(url, PAGILA_SQL, 18);
    // The benchmark's rows, a hundredth of them: enough for the plans to differ by query.
    for (const sql of LOAD_SQL) {
      const smaller = sql.replace(/generate_series\(1, (\d+)\)/g, (_, n: string) => `generate_series(1, ${Math.max(1, Math.ceil(Number(n) / 100))})`);
      await production.query(`SET session_replication_role = replica; ${smaller}`, [], 'pagila');
    }
    for (const w of WORKLOAD_INDEXES.slice(0, 5)) await production.query(w.sql, [], 'pagila');
    await production.query('VACUUM ANALYZE', [], 'pagila');
    ways = await threeWays(url, inputs(WORKLOAD));
  }, 300_000);

  it('plans each exactly as the shadow of the whole schema', () => {
    expect(ways.full.queries.filter((q) => q.error)).toEqual([]);
    expect(comparable(ways.cut)).toEqual(comparable(ways.full));
    expect(comparable(ways.read, true)).toEqual(comparable(ways.full, true));
  });

  it('with a part of the schema', () => {
    expect(relationsOf(ways.scoped).length).toBeLessThan(relationsOf(ways.whole).length);
    expect(unchangedFor(ways.scoped, ways.whole)).toBe(true);
  });
});

describe("GitLab's structure.sql", () => {
  const QUERIES = {
    issues: 'SELECT id, title FROM issues WHERE project_id = $1 AND state_id = $2 ORDER BY created_at DESC LIMIT 20',
    mergeRequests: 'SELECT m.id FROM merge_requests m JOIN projects p ON p.id = m.target_project_id WHERE p.namespace_id = $1',
    builds: 'SELECT * FROM p_ci_builds WHERE commit_id = $1 AND partition_id = $2',
    pipelines: 'SELECT status, count(*) FROM ci_pipelines WHERE project_id = $1 GROUP BY status',
    notes: "SELECT * FROM notes WHERE noteable_type = 'Issue' AND noteable_id = $1",
    users: 'SELECT id FROM users WHERE lower(username) = lower($1)',
    events: 'SELECT * FROM events WHERE author_id = $1 ORDER BY id DESC LIMIT 20',
    staticPartitions: 'SELECT count(*) FROM analytics_cycle_analytics_issue_stage_events WHERE stage_event_hash_id = $1 AND project_id = $2',
    // (GitLab's views read pg_catalog: they plan on the shadow's own catalogs, whatever it holds)
    labels: 'SELECT l.title FROM labels l JOIN label_links ll ON ll.label_id = l.id WHERE ll.target_id = $1',
  };
  let ways: ThreeWays;

  beforeAll(async () => {
    const url = await production.createDatabase('gitlab');
    await loadSqlFile(url, GITLAB_SQL, 18);
    await production.query(`ANALYZE`, [], 'gitlab');
    ways = await threeWays(url, inputs(QUERIES));
  }, 300_000);

  it('plans each exactly as the shadow of the whole schema', () => {
    expect(ways.full.queries.filter((q) => q.error).map((q) => `${q.hash}: ${q.error}`)).toEqual([]);
    expect(comparable(ways.cut)).toEqual(comparable(ways.full));
    expect(comparable(ways.read, true)).toEqual(comparable(ways.full, true));
  });

  it('with a small part of the schema', () => {
    expect(relationsOf(ways.scoped).length).toBeLessThan(relationsOf(ways.whole).length / 10);
    expect(relationsOf(ways.scoped)).toContain('gitlab_partitions_static.analytics_cycle_analytics_issue_stage_events_00');
    expect(unchangedFor(ways.scoped, ways.whole)).toBe(true);
  });
});
