// Real-world schemas (GitLab's structure.sql, Pagila) loaded into real PostgreSQL servers: every
// object the catalogs hold comes back, with the exact counts of ../shared/data/README.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteSyncResponseSchema, type DatabaseSchema, type Index, type RemoteSyncResponse } from '../shared/analyzer-schema';
import { startPostgres, type PgMajor, type PostgresServer } from '../test/support/postgres';
import { GITLAB_SQL, PAGILA_SQL, loadSqlFile, majorsUnderTest, postSync, startTestAnalyzer } from '../test/support/analyzer';

type ConstraintCounts = { check: number; foreignKey: number; notNull: number; primaryKey: number; unique: number; exclusion: number };

interface Expected {
  tables: number;
  ordinary: number;
  partitioned: number;
  partitions: number;
  indexes: number;
  sequences: number;
  constraints: ConstraintCounts;
  functions: number;
  views: number;
  materializedViews: number;
  enums: number;
  domains: number;
  composites: number;
  triggers: number;
  extensions: string[];
  schemas: string[];
}

// The README's table, measured on PostgreSQL 18.
const README: Record<'gitlab' | 'pagila', Expected> = {
  gitlab: {
    tables: 893,
    ordinary: 858,
    partitioned: 35,
    partitions: 165,
    indexes: 3642,
    sequences: 625,
    constraints: { check: 823, foreignKey: 1275, notNull: 5252, primaryKey: 893, unique: 1, exclusion: 2 },
    functions: 57,
    views: 8,
    materializedViews: 0,
    enums: 0,
    domains: 0,
    composites: 0,
    triggers: 77,
    extensions: ['btree_gist', 'pg_trgm', 'plpgsql'],
    schemas: ['gitlab_partitions_dynamic', 'gitlab_partitions_static', 'public'],
  },
  pagila: {
    tables: 70,
    ordinary: 69,
    partitioned: 1,
    partitions: 55,
    indexes: 162,
    sequences: 13,
    constraints: { check: 1, foreignKey: 36, notNull: 460, primaryKey: 70, unique: 0, exclusion: 0 },
    functions: 10,
    views: 7,
    materializedViews: 1,
    enums: 1,
    domains: 2,
    composites: 0,
    triggers: 15,
    extensions: ['plpgsql'],
    schemas: ['public'],
  },
};

/** Before 18, NOT NULL lives in pg_attribute only: the README's figures minus those constraints. */
function expectedFor(name: 'gitlab' | 'pagila', major: PgMajor, liveNotNull: number): Expected {
  const readme = README[name];
  if (major >= 18) return readme;
  return { ...readme, constraints: { ...readme.constraints, notNull: liveNotNull } };
}

function countsOf(schema: DatabaseSchema): Expected {
  const tables = schema.tables.filter((t) => t.kind !== 'foreign');
  const byType = (type: string) => schema.constraints.filter((c) => c.type === type).length;
  return {
    tables: tables.length,
    ordinary: tables.filter((t) => t.kind === 'table').length,
    partitioned: tables.filter((t) => t.kind === 'partitioned').length,
    partitions: tables.filter((t) => t.partitionOf !== null).length,
    indexes: schema.indexes.length,
    sequences: schema.sequences.length,
    constraints: {
      check: byType('check'),
      foreignKey: byType('foreignKey'),
      notNull: byType('notNull'),
      primaryKey: byType('primaryKey'),
      unique: byType('unique'),
      exclusion: byType('exclusion'),
    },
    functions: schema.functions.length,
    views: schema.views.filter((v) => !v.materialized).length,
    materializedViews: schema.views.filter((v) => v.materialized).length,
    enums: schema.types.enums.length,
    domains: schema.types.domains.length,
    composites: schema.types.composites.length,
    triggers: schema.triggers.length,
    extensions: schema.extensions.map((e) => e.name),
    schemas: schema.schemas.map((s) => s.name),
  };
}

function indexNamed(schema: DatabaseSchema, name: string): Index {
  const index = schema.indexes.find((i) => i.name === name);
  if (!index) throw new Error(`index ${name} missing`);
  return index;
}

function okSchema(response: RemoteSyncResponse): DatabaseSchema {
  if (response.schema.type !== 'ok') throw new Error(`schema failed: ${response.schema.error}`);
  return response.schema.value;
}

describe.each(majorsUnderTest())('catalog of real schemas on PostgreSQL %i', (major) => {
  let pg: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  const synced: Partial<Record<'gitlab' | 'pagila', RemoteSyncResponse>> = {};
  const liveNotNull: Partial<Record<'gitlab' | 'pagila', number>> = {};

  beforeAll(async () => {
    [pg, analyzer] = await Promise.all([startPostgres({ major }), startTestAnalyzer()]);
    // Neither database gets pg_stat_statements: its absence must fail only the queries part.
    await Promise.all(
      (['gitlab', 'pagila'] as const).map(async (name) => {
        const url = await pg.createDatabase(name);
        await loadSqlFile(url, name === 'gitlab' ? GITLAB_SQL : PAGILA_SQL, major);
        const { rows } = await pg.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
           WHERE c.contype = 'n' AND n.nspname NOT IN ('pg_catalog', 'information_schema')`,
          [],
          name,
        );
        liveNotNull[name] = rows[0]!.n;
        const answer = await postSync(analyzer.url, { db: url });
        expect(answer.status).toBe(200);
        synced[name] = remoteSyncResponseSchema.parse(answer.json);
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await analyzer?.close();
    await pg?.stop();
  });

  it.each(['gitlab', 'pagila'] as const)('%s: every object comes back, with the README counts', (name) => {
    const schema = okSchema(synced[name]!);
    expect(countsOf(schema)).toEqual(expectedFor(name, major, liveNotNull[name]!));
    expect(schema.warnings).toEqual([]);
    if (major >= 18) expect(liveNotNull[name]).toBe(README[name].constraints.notNull);
  });

  it.each(['gitlab', 'pagila'] as const)('%s: without pg_stat_statements only queries fails, with a message that says what to do', (name) => {
    const response = synced[name]!;
    expect(response.queries).toEqual({ type: 'error', error: expect.stringContaining('CREATE EXTENSION pg_stat_statements') });
    expect(response.meta.type).toBe('ok');
    expect(response.schema.type).toBe('ok');
    expect(response.disabledIndexes).toEqual({ type: 'ok', value: [] });
    if (response.meta.type !== 'ok') return;
    expect(response.meta.value).toMatchObject({ database: name, serverVersionNum: expect.any(Number), inferredStatsStrategy: 'default', totalRows: 0 });
    expect(Math.floor(response.meta.value.serverVersionNum / 10000)).toBe(major);
    expect(response.meta.value.serverVersion).toMatch(new RegExp(`^PostgreSQL ${major}\\.`));
    expect(response.meta.value.visibility.insufficientPrivilegeStatements).toBeNull();
  });

  it('gitlab: index details (order, NULLS, opclass, INCLUDE, expressions, predicate, partitioned) and constraints', () => {
    const schema = okSchema(synced.gitlab!);
    const filtering = indexNamed(schema, 'idx_vuln_reads_for_filtering');
    expect(filtering.keyColumns.map((c) => [c.column, c.descending, c.nullsFirst])).toEqual([
      ['project_id', false, false],
      ['state', false, false],
      ['dismissal_reason', false, false],
      ['severity', true, true], // DESC puts NULLs first unless told otherwise
      ['vulnerability_id', true, false],
    ]);
    expect(indexNamed(schema, 'index_ci_runners_on_description_trigram')).toMatchObject({
      method: 'gin',
      keyColumns: [{ column: 'description', opclass: 'gin_trgm_ops', opclassIsDefault: false }],
    });
    expect(indexNamed(schema, 'p_ci_builds_metadata_build_id_id_idx')).toMatchObject({
      partitioned: true,
      includeColumns: ['id'],
      predicate: 'interruptible = true',
      keyColumns: [{ column: 'build_id', opclassIsDefault: true }],
    });
    expect(indexNamed(schema, 'idx_pkgs_nuget_symbols_on_lowercase_signature_and_file_name').keyColumns).toMatchObject([
      { column: null, expression: 'lower(signature)' },
      { column: null, expression: 'lower(file)' },
    ]);
    expect(schema.indexes.every((i) => i.definition.startsWith('CREATE ') && i.valid && i.ready)).toBe(true);
    const exclusion = schema.constraints.find((c) => c.name === 'inc_mgmnt_no_overlapping_oncall_shifts');
    expect(exclusion).toMatchObject({ type: 'exclusion', definition: expect.stringContaining('EXCLUDE USING gist') });
    expect(schema.indexes.find((i) => i.name === 'inc_mgmnt_no_overlapping_oncall_shifts')).toMatchObject({
      exclusion: true,
      constraint: 'inc_mgmnt_no_overlapping_oncall_shifts',
    });
    const foreignKeys = schema.constraints.filter((c) => c.type === 'foreignKey');
    expect(foreignKeys.every((c) => c.references !== null && c.references.columns.length === c.columns.length)).toBe(true);
    expect(foreignKeys.some((c) => !c.validated)).toBe(true); // the dump's NOT VALID foreign keys
    expect(schema.tables.filter((t) => t.kind === 'partitioned').every((t) => t.partitionKey && /^(HASH|LIST|RANGE) \(/.test(t.partitionKey))).toBe(true);
    expect(schema.triggers.some((t) => t.inherited)).toBe(true);
    expect(schema.sequences.find((s) => s.name === 'abuse_events_id_seq')?.ownedBy).toEqual({ schema: 'public', table: 'abuse_events', column: 'id' });
    expect(schema.functions.every((f) => f.definition?.startsWith('CREATE OR REPLACE'))).toBe(true);
    // Every table is empty: no sample statements were needed, and each table says so.
    expect(schema.tables.every((t) => t.sampleRows.type === 'ok' && t.sampleRows.value.length === 0)).toBe(true);
    expect(schema.tables.every((t) => t.stats !== null && t.stats.liveTuples !== undefined)).toBe(true);
  });

  it('pagila: partitions, generated column, enum, domains, materialized view, aggregate, sequences, triggers', () => {
    const schema = okSchema(synced.pagila!);
    const payment = schema.tables.find((t) => t.name === 'payment');
    expect(payment).toMatchObject({ kind: 'partitioned', partitionKey: 'RANGE (payment_date)' });
    const january = schema.tables.find((t) => t.name === 'payment_p2022_01');
    expect(january).toMatchObject({
      partitionOf: { schema: 'public', name: 'payment' },
      partitionBound: expect.stringMatching(/^FOR VALUES FROM \('2022-01-01/),
    });
    const film = schema.tables.find((t) => t.name === 'film');
    expect(film?.columns.find((c) => c.name === 'length_hours')).toMatchObject({
      generated: major >= 18 ? 'virtual' : 'stored',
      generationExpression: expect.stringContaining('round'),
      default: null,
      type: 'numeric(4,2)',
    });
    // The analyzer's sessions resolve only PostgreSQL's own names (search_path pg_catalog), so the
    // user's types print schema-qualified, as pg_dump prints them.
    expect(film?.columns.find((c) => c.name === 'rating')).toMatchObject({ type: 'public.mpaa_rating', default: "'G'::public.mpaa_rating", nullable: true });
    expect(schema.types.enums).toEqual([{ schema: 'public', name: 'mpaa_rating', labels: ['G', 'PG', 'PG-13', 'R', 'NC-17'] }]);
    expect(schema.types.domains.map((d) => [d.name, d.baseType])).toEqual([
      ['bıgınt', 'bigint'],
      ['year', 'integer'],
    ]);
    expect(schema.types.domains[1]?.constraints).toEqual([{ name: 'year_check', definition: 'CHECK (VALUE >= 1901 AND VALUE <= 2155)' }]);
    expect(schema.constraints.find((c) => c.name === 'year_check')).toMatchObject({ type: 'check', table: null, domain: { schema: 'public', name: 'year' } });
    expect(schema.views.find((v) => v.name === 'rental_by_category')).toMatchObject({
      materialized: true,
      populated: false,
      definition: expect.stringContaining('GROUP BY'),
    });
    expect(schema.views.find((v) => v.name === 'actor_info')?.columns.map((c) => c.name)).toEqual(['actor_id', 'first_name', 'last_name', 'film_info']);
    expect(schema.functions.find((f) => f.name === 'group_concat')).toMatchObject({ kind: 'aggregate', definition: null });
    // int8 bounds beyond 2^53 travel as exact text.
    expect(schema.sequences.find((s) => s.name === 'actor_actor_id_seq')).toMatchObject({
      dataType: 'bigint',
      max: '9223372036854775807',
      lastValue: null,
      ownedBy: null,
    });
    expect(schema.triggers.find((t) => t.name === 'last_updated' && t.table === 'actor')).toMatchObject({
      enabled: 'origin',
      function: { schema: 'public', name: 'last_updated' },
    });
  });
});
