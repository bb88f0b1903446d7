// What each source's catalog write changes, read from the statement it sends. Pure: the statement
// is rendered, not run (ingest.test.ts, sync-production.test.ts and ci.test.ts run it on PGlite
// and PostgreSQL).
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { CatalogRow, CatalogSource } from './catalog-write';
import { upsertStatement } from './upsert.sql';

const rows: CatalogRow[] = [
  { hash: '00000000000000aa', query: 'SELECT 1 FROM a', formattedQuery: 'SELECT 1 FROM a', calls: 4, meanTimeMs: 0.5 },
  { hash: '00000000000000bb', query: 'SELECT 1 FROM b', formattedQuery: 'SELECT 1 FROM b', calls: null, meanTimeMs: null },
];

function render(source: CatalogSource) {
  const { sql, params } = new PgDialect().sqlToQuery(upsertStatement({ environmentId: 'env_1', source, rows, now: '2026-01-01T00:00:00.000Z' }));
  const text = sql.replace(/\s+/g, ' ');
  const onConflict = text.slice(text.indexOf('DO UPDATE SET'), text.indexOf('RETURNING'));
  return { text, onConflict, params };
}

describe('catalog upsert, by source', () => {
  it('a CI run counts one more run and leaves production figures alone', () => {
    const { text, onConflict } = render('ci');
    expect(onConflict).toContain('ci_run_count = c.ci_run_count + 1');
    expect(onConflict).not.toContain('production_calls');
    expect(text).toContain('NULL::bigint, NULL::float8'); // a new row has no production figures
  });

  it('a production sync records calls and mean time and never changes the CI run count', () => {
    const { text, onConflict } = render('production');
    expect(onConflict).toContain('production_calls = excluded.production_calls');
    expect(onConflict).toContain('production_mean_time_ms = excluded.production_mean_time_ms');
    expect(onConflict).not.toContain('ci_run_count');
    expect(text).toMatch(/, 0, calls, mean_time_ms,/); // a new row: no CI run yet, production's figures
  });

  it('a query added by hand changes neither count nor figures', () => {
    const { onConflict } = render('manual');
    expect(onConflict).not.toContain('ci_run_count');
    expect(onConflict).not.toContain('production_');
  });

  it.each(['ci', 'production', 'manual'] as const)('every source (%s) keeps the newest text, moves lastSeenAt only forward and names itself', (source) => {
    const { onConflict, params } = render(source);
    expect(onConflict).toContain('query = excluded.query');
    expect(onConflict).toContain('formatted_query = excluded.formatted_query');
    expect(onConflict).toContain('last_seen_at = greatest(c.last_seen_at, excluded.last_seen_at)');
    expect(onConflict).toContain('last_seen_source = excluded.last_seen_source');
    expect(onConflict).toContain('updated_at = excluded.updated_at');
    expect(onConflict).not.toMatch(/first_seen_at|created_at/); // set once, when the row is made
    expect(params).toContain(source);
  });

  it('writes every row in one statement, in hash order, with the rows in one parameter', () => {
    const { text, params } = render('ci');
    expect(text).toContain('FROM input ORDER BY hash');
    const json = params.filter((p): p is string => typeof p === 'string' && p.startsWith('['));
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0]!).map((r: { hash: string }) => r.hash)).toEqual(rows.map((r) => r.hash));
  });
});
