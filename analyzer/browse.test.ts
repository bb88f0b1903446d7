// What the SPA's schema browser reads instead of the whole sync: POST /postgres/summary (the
// schemas with their counts, those of the same structure grouped, a near-identical one apart) and
// POST /postgres/objects (a schema's objects or a search, a page at a time), checked against the
// full sync of the same database: Pagila in four schemas, the last with one more index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  objectsResponseSchema,
  syncSummaryResponseSchema,
  type DatabaseSchema,
  type ObjectsResponse,
  type SchemaObject,
  type Table,
} from '../shared/analyzer-schema';
import { errorBodySchema } from '../shared/errors';
import { searchSchema } from '../client/components/sync/schema-search';
import { loadPagilaTenants, postJson, startTestAnalyzer } from '../test/support/analyzer';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { syncDatabase } from './sync';

/** A table as two syncs a moment apart agree on it (sampling moves the scan counters). */
const steady = (table: Table) => ({ ...table, stats: table.stats ? { ...table.stats, seqScans: null, indexScans: null } : null });

/** An object as the browser lists it: its kind and name. */
function labelOf(item: SchemaObject): string {
  switch (item.kind) {
    case 'table':
      return `table ${item.table.schema}.${item.table.name}`;
    case 'view':
      return `view ${item.view.schema}.${item.view.name}`;
    case 'function':
      return `function ${item.function.schema}.${item.function.name}(${item.function.arguments})`;
    case 'trigger':
      return `trigger ${item.trigger.schema}.${item.trigger.table}.${item.trigger.name}`;
    case 'sequence':
      return `sequence ${item.sequence.schema}.${item.sequence.name}`;
    default:
      return `${item.kind} ${item.type.schema}.${item.type.name}`;
  }
}

/** The full sync's objects, in the browser's order, as labels (what the objects endpoint must list). */
function labelsOf(schema: Pick<DatabaseSchema, 'tables' | 'views' | 'functions' | 'types' | 'triggers' | 'sequences'>): string[] {
  return [
    ...schema.tables.map((t) => `table ${t.schema}.${t.name}`),
    ...schema.views.map((v) => `view ${v.schema}.${v.name}`),
    ...schema.functions.map((f) => `function ${f.schema}.${f.name}(${f.arguments})`),
    ...schema.types.enums.map((t) => `enum ${t.schema}.${t.name}`),
    ...schema.types.domains.map((t) => `domain ${t.schema}.${t.name}`),
    ...schema.types.composites.map((t) => `composite ${t.schema}.${t.name}`),
    ...schema.triggers.map((t) => `trigger ${t.schema}.${t.table}.${t.name}`),
    ...schema.sequences.map((s) => `sequence ${s.schema}.${s.name}`),
  ];
}

describe('schema browser endpoints on PostgreSQL 18', () => {
  let server: PostgresServer;
  let analyzer: Awaited<ReturnType<typeof startTestAnalyzer>>;
  let url: string;
  let full: DatabaseSchema;

  const objects = async (body: Record<string, unknown>): Promise<ObjectsResponse> => {
    const answer = await postJson(analyzer.url, '/postgres/objects', { db: url, ...body });
    expect(answer.status).toBe(200);
    return objectsResponseSchema.parse(answer.json);
  };

  beforeAll(async () => {
    [server, analyzer] = await Promise.all([startPostgres({ major: 18 }), startTestAnalyzer({ chunkWeight: 60 })]);
    url = await loadPagilaTenants(server);
    const synced = await syncDatabase({ db: url, sampleRows: 5, queryLimit: 500 });
    if (synced.schema.type !== 'ok') throw new Error(synced.schema.error);
    full = synced.schema.value;
  }, 180_000);

  afterAll(async () => {
    await analyzer?.close();
    await server?.stop();
  });

  it('summarizes the schemas with their counts, and groups those of the same structure', async () => {
    const answer = await postJson(analyzer.url, '/postgres/summary', { db: url });
    expect(answer.status).toBe(200);
    const response = syncSummaryResponseSchema.parse(answer.json);
    expect(JSON.stringify(response.summary).length).toBeLessThan(10_000);
    expect(response.meta).toMatchObject({ type: 'ok', value: { database: 'tenants' } });
    expect(response.queries.type).toBe('ok');
    expect(response.disabledIndexes).toEqual({ type: 'ok', value: [] });
    if (response.summary.type !== 'ok') throw new Error(response.summary.error);
    const summary = response.summary.value;
    expect(summary.schemas.map((s) => s.name)).toEqual(['public', 't1', 't2', 't3', 't4']);
    expect(summary.extensions.map((e) => e.name).sort()).toEqual(['pg_stat_statements', 'plpgsql']);
    expect(summary.warnings).toEqual([]);

    // every count agrees with the full sync
    for (const entry of summary.schemas) {
      const mine = <T extends { schema: string }>(list: T[]) => list.filter((o) => o.schema === entry.name).length;
      expect(entry.counts, entry.name).toEqual({
        tables: mine(full.tables),
        views: mine(full.views),
        indexes: mine(full.indexes),
        constraints: mine(full.constraints),
        functions: mine(full.functions),
        types: mine(full.types.enums) + mine(full.types.domains) + mine(full.types.composites),
        triggers: mine(full.triggers),
        sequences: mine(full.sequences),
      });
    }
    expect(summary.schemas.find((s) => s.name === 't1')!.counts).toMatchObject({ tables: 70, indexes: 162, views: 8, sequences: 13, triggers: 15 });
    expect(summary.totals.tables).toBe(4 * 70);
    expect(summary.totals.indexes).toBe(4 * 162 + 1);

    // t1 holds rows, statistics and sample rows, t2 and t3 none: the same structure all the same.
    // t4 has one index more: not the same. public holds only pg_stat_statements' objects: none of its own.
    expect(summary.groups).toEqual([{ id: expect.any(String), schemas: ['t1', 't2', 't3'], counts: summary.schemas.find((s) => s.name === 't1')!.counts }]);
    const byName = new Map(summary.schemas.map((s) => [s.name, s]));
    expect(['t1', 't2', 't3'].map((name) => byName.get(name)!.group)).toEqual([summary.groups[0]!.id, summary.groups[0]!.id, summary.groups[0]!.id]);
    expect(byName.get('t4')!.group).toBeNull();
    expect(byName.get('t4')!.structure).not.toBe(byName.get('t1')!.structure);
    expect(byName.get('public')!.group).toBeNull();
  });

  it("pages through a schema's objects, each equal to the full sync's", async () => {
    const pages: ObjectsResponse[] = [];
    for (let offset = 0; ; offset += 40) {
      const page = await objects({ schema: 't1', offset, limit: 40 });
      expect(page.offset).toBe(offset);
      pages.push(page);
      if (offset + 40 >= page.total) break;
    }
    const items = pages.flatMap((p) => p.items);
    const mine = <T extends { schema: string }>(list: T[]) => list.filter((o) => o.schema === 't1');
    const t1 = {
      tables: mine(full.tables),
      views: mine(full.views),
      functions: mine(full.functions),
      types: { enums: mine(full.types.enums), domains: mine(full.types.domains), composites: mine(full.types.composites) },
      triggers: mine(full.triggers),
      sequences: mine(full.sequences),
    };
    expect(items.map(labelOf)).toEqual(labelsOf(t1));
    expect(pages[0]!.counts).toEqual({ table: 70, view: 8, function: t1.functions.length, type: 3, trigger: 15, sequence: 13 });
    expect(pages[0]!.total).toBe(items.length);
    expect(pages.flatMap((p) => p.warnings)).toEqual([]);

    // each object as the full sync has it; a table with its indexes, constraints and triggers
    for (const item of items) {
      if (item.kind === 'table') {
        const table = full.tables.find((t) => t.schema === 't1' && t.name === item.table.name)!;
        expect(steady(item.table)).toEqual(steady(table));
        expect(item.indexes).toEqual(full.indexes.filter((i) => i.schema === 't1' && i.table === table.name));
        expect(item.constraints).toEqual(full.constraints.filter((c) => c.table?.schema === 't1' && c.table.name === table.name));
        expect(item.triggers).toEqual(full.triggers.filter((t) => t.schema === 't1' && t.table === table.name));
      }
    }
    const actor = items.find((i) => i.kind === 'table' && i.table.name === 'actor');
    expect(actor?.kind === 'table' && actor.table.sampleRows).toMatchObject({
      type: 'ok',
      value: expect.arrayContaining([expect.objectContaining({ first_name: 'First1' })]),
    });
    expect(items.filter((i) => i.kind === 'view').map((i) => (i.kind === 'view' ? i.view : null))).toEqual(t1.views);
    expect(items.filter((i) => i.kind === 'function').map((i) => (i.kind === 'function' ? i.function : null))).toEqual(t1.functions);
    expect(items.filter((i) => i.kind === 'sequence').map((i) => (i.kind === 'sequence' ? { ...i.sequence, lastValue: null } : null))).toEqual(
      t1.sequences.map((s) => ({ ...s, lastValue: null })),
    );

    // past the end: nothing, and still the counts
    const past = await objects({ schema: 't1', offset: 10_000 });
    expect(past).toMatchObject({ items: [], total: items.length });
  });

  it('searches like the browser did: names, columns of tables, labels of enums, tables of triggers', async () => {
    for (const term of ['ACTOR', 'fulltext', 'nc-17', 't2.film', 'last_update']) {
      const expected = searchSchema(full, term.toLowerCase());
      const found = await objects({ q: term, limit: 500 });
      expect(found.items.map(labelOf), term).toEqual(
        labelsOf({ ...expected, types: { enums: expected.enums, domains: expected.domains, composites: expected.composites } }),
      );
      expect(found.total).toBe(found.items.length);
    }
    // within some schemas only
    const some = await objects({ q: 'actor', schemas: ['t1', 't4'], limit: 500 });
    expect(new Set(some.items.map((i) => labelOf(i).split(' ')[1]!.split('.')[0]))).toEqual(new Set(['t1', 't4']));
    expect(some.items.length).toBe((await objects({ q: 'actor', limit: 500 })).items.length / 2);
    expect((await objects({ q: 'no object is called this' })).items).toEqual([]);
  });

  it('refuses a bad page or search with the one error shape', async () => {
    for (const [body, field] of [
      [{ db: url, limit: 0 }, 'limit'],
      [{ db: url, limit: 501 }, 'limit'],
      [{ db: url, offset: -1 }, 'offset'],
      [{ db: url, q: 'x'.repeat(201) }, 'q'],
      [{ db: url, schemas: 'public' }, 'schemas'],
      [{ db: 'mysql://localhost/app' }, 'db'],
    ] as const) {
      const answer = await postJson(analyzer.url, '/postgres/objects', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = errorBodySchema.parse(answer.json).error;
      expect(error.code).toBe('validation_failed');
      expect(error.issues?.map((issue) => issue.path)).toContain(field);
    }
    const summary = await postJson(analyzer.url, '/postgres/summary', { db: url, sampleRows: -1 });
    expect(summary.status).toBe(400);
    expect(errorBodySchema.parse(summary.json).error.code).toBe('validation_failed');
    const unreachable = await postJson(analyzer.url, '/postgres/objects', { db: url.replace(/:\d+\//, ':1/') });
    expect(unreachable.status).toBe(502);
    expect(errorBodySchema.parse(unreachable.json).error.code).toBe('connection_refused');
  });
});
