// The CI database's schema as ci-report sends it, read from a real PostgreSQL: the application's
// tables, columns and indexes as compact tuples; nothing of PostgreSQL's own schemas or of
// extensions; GitLab's 893 tables fit a run's body several times over.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_SCHEMA_LIMITS, runSchemaSchema, type RunSchema } from '../shared/run-schema';
import { GITLAB_SQL, loadSqlFile } from '../test/support/analyzer';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { checkRunSchema, compactRunSchema, readRunSchema, RunSchemaReadError } from './run-schema';

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

describe('readRunSchema', () => {
  let url: string;

  beforeAll(async () => {
    url = await server.createDatabase('ci_schema');
    await server.query(
      `CREATE EXTENSION pg_stat_statements;
       CREATE SCHEMA app;
       CREATE TABLE app.users (id bigint PRIMARY KEY, email text NOT NULL, "Display Name" varchar(80), created_at timestamptz DEFAULT now());
       CREATE INDEX users_email ON app.users (lower(email)) WHERE created_at IS NOT NULL;
       CREATE TABLE app.events (id bigint NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
       CREATE TABLE public.events_2024 PARTITION OF app.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
       CREATE INDEX events_at ON app.events (at);
       CREATE VIEW app.active_users AS SELECT id, email FROM app.users WHERE created_at > now() - interval '1 day';
       CREATE MATERIALIZED VIEW app.user_counts AS SELECT count(*) AS n FROM app.users;
       CREATE UNIQUE INDEX user_counts_n ON app.user_counts (n);
       -- an extension's own table (as PostGIS ships spatial_ref_sys): not the application's schema
       CREATE TABLE public.extension_config (key text PRIMARY KEY);
       ALTER EXTENSION pg_stat_statements ADD TABLE public.extension_config;`,
      [],
      'ci_schema',
    );
  });

  it("reads the application's tables, columns and indexes as tuples, without PostgreSQL's or extensions' objects", async () => {
    const schema = await readRunSchema(url);
    expect(schema.tables).toEqual([
      ['app', 'active_users', 'v', null],
      ['app', 'events', 'p', null],
      ['app', 'user_counts', 'm', null],
      ['app', 'users', 'r', null],
      ['public', 'events_2024', 'r', 'app.events'],
    ]);
    expect(schema.columns).toEqual([
      ['app', 'active_users', 'id', 'bigint', false],
      ['app', 'active_users', 'email', 'text', false],
      ['app', 'events', 'id', 'bigint', true],
      ['app', 'events', 'at', 'date', true],
      ['app', 'user_counts', 'n', 'bigint', false],
      ['app', 'users', 'id', 'bigint', true],
      ['app', 'users', 'email', 'text', true],
      ['app', 'users', 'Display Name', 'character varying(80)', false],
      ['app', 'users', 'created_at', 'timestamp with time zone', false],
      ['public', 'events_2024', 'id', 'bigint', true],
      ['public', 'events_2024', 'at', 'date', true],
    ]);
    expect(schema.indexes).toEqual([
      ['app', 'events', 'events_at', 'CREATE INDEX events_at ON ONLY app.events USING btree (at)', null],
      ['app', 'user_counts', 'user_counts_n', 'CREATE UNIQUE INDEX user_counts_n ON app.user_counts USING btree (n)', null],
      ['app', 'users', 'users_email', 'CREATE INDEX users_email ON app.users USING btree (lower(email)) WHERE (created_at IS NOT NULL)', null],
      ['app', 'users', 'users_pkey', 'CREATE UNIQUE INDEX users_pkey ON app.users USING btree (id)', 'users_pkey'],
      ['public', 'events_2024', 'events_2024_at_idx', 'CREATE INDEX events_2024_at_idx ON public.events_2024 USING btree (at)', null],
    ]);
    expect(JSON.stringify(schema)).not.toMatch(/pg_stat_statements|extension_config|pg_catalog|information_schema/);
    expect(runSchemaSchema.parse(schema)).toEqual(schema);
    // the same database reads the same every time (the server digests it)
    expect(JSON.stringify(await readRunSchema(url))).toBe(JSON.stringify(schema));
  });

  it('says why when the database cannot be reached, without the password', async () => {
    const failure = await readRunSchema('postgres://ci:secret-pw@127.0.0.1:9/nothing').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunSchemaReadError);
    expect((failure as Error).message).toMatch(/Connection refused/);
    expect((failure as Error).message).not.toContain('secret-pw');
  });

  it("keeps GitLab's schema (893 tables, 3,642 indexes) well within a run's 5 MiB body", async () => {
    const gitlab = await server.createDatabase('gitlab');
    await loadSqlFile(gitlab, GITLAB_SQL, server.major);
    const schema = await readRunSchema(gitlab);
    expect(schema.tables.filter(([, , kind]) => kind === 'r' || kind === 'p')).toHaveLength(893);
    expect(schema.indexes).toHaveLength(3642);
    const json = JSON.stringify(schema);
    expect(json.length).toBeLessThan(2 * 1024 * 1024);
    expect(gzipSync(json).length).toBeLessThan(512 * 1024);
  }, 180_000);
});

describe('compactRunSchema and checkRunSchema', () => {
  const rows = {
    tables: [
      { oid: 20, schema: 'b', name: 't', kind: 'table' as const, partitionOf: null },
      { oid: 10, schema: 'a', name: 't', kind: 'foreign' as const, partitionOf: null },
      { oid: 30, schema: 'a', name: 'ext', kind: 'table' as const, partitionOf: null },
    ],
    views: [],
    columns: [
      { relationOid: 20, name: 'y', position: 2, type: 'text', nullable: true },
      { relationOid: 10, name: 'x', position: 1, type: 'int', nullable: false },
      { relationOid: 20, name: 'x', position: 1, type: 'int', nullable: false },
      { relationOid: 30, name: 'k', position: 1, type: 'text', nullable: false },
      // a column of a relation that is not kept (an extension's view)
      { relationOid: 99, name: 'calls', position: 1, type: 'bigint', nullable: true },
    ],
    indexes: [
      { schema: 'b', table: 't', name: 't_x', definition: 'CREATE INDEX t_x ON b.t USING btree (x)', constraint: null },
      { schema: 'a', table: 'ext', name: 'ext_pkey', definition: 'CREATE UNIQUE INDEX ext_pkey ON a.ext USING btree (k)', constraint: 'ext_pkey' },
    ],
    extensionOids: [30, 99],
  };

  it('orders by schema and name, columns by position, and leaves out what extensions own', () => {
    expect(compactRunSchema(rows)).toEqual({
      tables: [
        ['a', 't', 'f', null],
        ['b', 't', 'r', null],
      ],
      columns: [
        ['a', 't', 'x', 'int', true],
        ['b', 't', 'x', 'int', true],
        ['b', 't', 'y', 'text', false],
      ],
      indexes: [['b', 't', 't_x', 'CREATE INDEX t_x ON b.t USING btree (x)', null]],
    });
  });

  it('refuses a schema the API would refuse, whole: a partial one would read as dropped indexes', () => {
    const tooMany: RunSchema = { tables: Array.from({ length: RUN_SCHEMA_LIMITS.tables + 1 }, (_, i) => ['s', `t${i}`, 'r', null]), columns: [], indexes: [] };
    expect(() => checkRunSchema(tooMany)).toThrow(/10001 tables, more than a run may carry \(10000\)/);
    const longDefinition: RunSchema = {
      tables: [['s', 't', 'r', null]],
      columns: [],
      indexes: [['s', 't', 'i', `CREATE INDEX i ON s.t (${'x, '.repeat(5000)}x)`, null]],
    };
    expect(() => checkRunSchema(longDefinition)).toThrow(RunSchemaReadError);
    expect(() => checkRunSchema(longDefinition)).toThrow(/indexes\.0\.3: Index definition is longer than 10000 characters/);
  });
});
