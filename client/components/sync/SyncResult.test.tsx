// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DatabaseSchema, QueryStats, RemoteSyncResponse, Table } from '../../../shared/analyzer-schema';
import type { SyncView } from '../../lib/analyzer';
import { SyncResult } from './SyncResult';

afterEach(cleanup);

const column = (name: string, type: string, position: number) => ({
  name,
  position,
  type,
  nullable: name !== 'id',
  default: null,
  identity: null,
  generated: null,
  generationExpression: null,
  collation: null,
  comment: null,
  stats: null,
});

const table = (name: string, columns: string[]): Table => ({
  schema: 'public',
  name,
  kind: 'table',
  owner: 'app',
  comment: null,
  rowSecurity: false,
  partitionOf: null,
  partitionBound: null,
  partitionKey: null,
  columns: columns.map((c, i) => column(c, c === 'id' ? 'bigint' : 'text', i + 1)),
  stats: null,
  sampleRows: { type: 'ok', value: [{ id: 1, email: 'ada@example.com' }] },
});

const schema: DatabaseSchema = {
  schemas: [{ name: 'public', owner: 'app', comment: null }],
  tables: [table('users', ['id', 'email']), table('invoices', ['id', 'user_id', 'amount'])],
  indexes: [
    {
      schema: 'public',
      table: 'users',
      name: 'users_email_key',
      method: 'btree',
      unique: true,
      primary: false,
      exclusion: false,
      partitioned: false,
      valid: true,
      ready: true,
      keyColumns: [],
      includeColumns: [],
      predicate: null,
      constraint: 'users_email_key',
      definition: 'CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email)',
    },
  ],
  constraints: [],
  functions: [],
  views: [{ schema: 'public', name: 'active_users', materialized: false, populated: true, owner: 'app', comment: null, definition: 'SELECT 1', columns: [] }],
  types: { enums: [{ schema: 'public', name: 'mood', labels: ['happy', 'sad'] }], domains: [], composites: [] },
  triggers: [],
  extensions: [{ name: 'plpgsql', version: '1.0', schema: 'pg_catalog' }],
  sequences: [],
  warnings: [],
};

const query = (hash: string, sql: string, calls: number, meanTimeMs: number): QueryStats => ({
  hash,
  queryids: [hash],
  query: sql,
  formattedQuery: sql,
  calls,
  rows: calls,
  totalTimeMs: calls * meanTimeMs,
  meanTimeMs,
  minTimeMs: meanTimeMs,
  maxTimeMs: meanTimeMs,
  stddevTimeMs: 0,
  sharedBlksHit: 0,
  sharedBlksRead: 0,
});

const ok = <T,>(value: T) => ({ type: 'ok' as const, value });
const error = (message: string) => ({ type: 'error' as const, error: message });

const rowsOf = (tableElement: HTMLElement) => within(tableElement).getAllByRole('row').slice(1);

describe('sync result', () => {
  it('shows a pg_stat_statements failure with the two setup steps, and the rest of the sync', () => {
    const result: RemoteSyncResponse = {
      meta: error('permission denied for function pg_postmaster_start_time'),
      schema: ok(schema),
      queries: error('pg_stat_statements is not installed in database "app". Run CREATE EXTENSION pg_stat_statements; in it'),
      disabledIndexes: ok([]),
    };
    render(<SyncResult result={result} />);
    const queries = screen.getByRole('region', { name: /^Queries/ });
    const alert = within(queries).getByRole('alert');
    expect(within(alert).getByText('pg_stat_statements is not installed')).toBeTruthy();
    const steps = within(alert).getAllByRole('listitem');
    expect(steps).toHaveLength(2);
    expect(steps[0]!.textContent).toContain('shared_preload_libraries');
    expect(steps[0]!.textContent).toContain('CREATE EXTENSION IF NOT EXISTS pg_stat_statements;');
    expect(steps[1]!.textContent).toContain('read access');

    const overview = screen.getByRole('region', { name: 'Overview' });
    expect(within(overview).getByRole('alert').textContent).toContain('permission denied for function pg_postmaster_start_time');

    // the other parts still render
    expect(within(screen.getByRole('region', { name: /^Schema/ })).getByText('users')).toBeTruthy();
    expect(screen.getByText('No disabled indexes: the planner can use every index.')).toBeTruthy();
  });

  it('searches the schema by object and column names and opens a table', async () => {
    const user = userEvent.setup();
    render(<SyncResult result={{ meta: error('x'), schema: ok(schema), queries: ok([]), disabledIndexes: ok([]) }} />);
    const region = screen.getByRole('region', { name: /^Schema/ });
    await user.type(within(region).getByLabelText('Search schema'), 'user_id');
    expect(await within(region).findByText('1 matching objects')).toBeTruthy();
    expect(within(region).getByText('invoices')).toBeTruthy();
    expect(within(region).queryByText('users')).toBeNull();
    expect(within(region).queryByText('active_users')).toBeNull();

    await user.clear(within(region).getByLabelText('Search schema'));
    await user.click(within(region).getByText('users'));
    expect(await within(region).findByText('users_email_key')).toBeTruthy();
    expect(within(region).getByText('ada@example.com')).toBeTruthy();
  });

  it('sorts queries by calls and by mean time, both ways', async () => {
    const user = userEvent.setup();
    const queries = [query('a', 'SELECT * FROM users', 5, 10), query('b', 'SELECT * FROM invoices', 500, 0.5), query('c', 'DELETE FROM users', 50, 90)];
    render(<SyncResult result={{ meta: error('x'), schema: ok(schema), queries: ok(queries), disabledIndexes: ok([]) }} />);
    const table = screen.getByRole('table', { name: 'Queries from pg_stat_statements' });
    const first = () => rowsOf(table)[0]!.textContent;

    // by total time first: DELETE (4.5 s) > invoices (250 ms) > users (50 ms)
    expect(first()).toContain('DELETE FROM users');
    await user.click(within(table).getByRole('button', { name: /Calls/ }));
    expect(within(table).getByRole('columnheader', { name: /Calls/ }).getAttribute('aria-sort')).toBe('descending');
    expect(first()).toContain('SELECT * FROM invoices');
    await user.click(within(table).getByRole('button', { name: /Calls/ }));
    expect(within(table).getByRole('columnheader', { name: /Calls/ }).getAttribute('aria-sort')).toBe('ascending');
    expect(first()).toContain('SELECT * FROM users');
    await user.click(within(table).getByRole('button', { name: /Mean time/ }));
    expect(first()).toContain('DELETE FROM users');

    await user.type(screen.getByLabelText('Filter queries'), 'invoices');
    expect(await screen.findByText('1 of 3 queries')).toBeTruthy();
  });

  it('lists disabled indexes with why the planner skips them', () => {
    render(
      <SyncResult
        result={{
          meta: error('x'),
          schema: error('schema could not be read'),
          queries: ok([]),
          disabledIndexes: ok([
            {
              schema: 'public',
              table: 'users',
              name: 'users_email_idx',
              reason: 'invalid',
              message: 'A CREATE INDEX CONCURRENTLY failed; the planner ignores it. Drop and create it again.',
              definition: 'CREATE INDEX users_email_idx ON public.users (email)',
            },
          ]),
        }}
      />,
    );
    const region = screen.getByRole('region', { name: /^Disabled indexes/ });
    expect(within(region).getByText('users_email_idx')).toBeTruthy();
    expect(within(region).getByText(/CREATE INDEX CONCURRENTLY failed/)).toBeTruthy();
    expect(within(screen.getByRole('region', { name: /^Schema/ })).getByRole('alert').textContent).toContain('schema could not be read');
    expect(screen.getByText('No queries recorded yet.')).toBeTruthy();
  });
});

describe('sync result from the analyzer: a summary, objects a page at a time', () => {
  const counts = { tables: 2, views: 1, indexes: 1, constraints: 0, functions: 0, types: 1, triggers: 0, sequences: 0 };
  const entry = (name: string, group: string | null, structure = 'same') => ({ name, owner: 'app', comment: null, counts, structure, group });
  const summary = {
    schemas: [entry('t1', 'g1'), entry('t2', 'g1'), entry('t3', 'g1'), entry('t4', null, 'other')],
    groups: [{ id: 'g1', schemas: ['t1', 't2', 't3'], counts }],
    totals: { ...counts, tables: 8, indexes: 4, views: 4, types: 4 },
    extensions: [{ name: 'plpgsql', version: '1.0', schema: 'pg_catalog' }],
    warnings: [],
  };
  const inSchema = (name: string) => ({ ...schema.tables[0]!, schema: name });
  const view = (body: { schema?: string; schemas?: string[]; q?: string; offset: number }) => {
    const name = body.schema ?? 't1';
    const items = [
      { kind: 'table' as const, table: { ...inSchema(name), name: body.q ? `${name}_users` : 'users' }, indexes: [], constraints: [], triggers: [] },
      { kind: 'enum' as const, type: { schema: name, name: 'mood', labels: ['happy', 'sad'] } },
    ];
    return { total: items.length, counts: { table: 1, view: 0, function: 0, type: 1, trigger: 0, sequence: 0 }, offset: body.offset, items, warnings: [] };
  };

  it('lists schemas of the same structure once and asks the analyzer for what it shows', async () => {
    const requests: { path: string; body: Record<string, unknown> }[] = [];
    vi.stubGlobal('fetch', async (input: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      requests.push({ path: new URL(input).pathname, body });
      return new Response(JSON.stringify(view(body as never)), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    try {
      const user = userEvent.setup();
      const result: SyncView = {
        meta: error('x'),
        schema: ok({ ...schema, tables: [], indexes: [], views: [] }),
        queries: ok([]),
        disabledIndexes: ok([]),
        browse: { analyzerUrl: 'http://analyzer.test', db: 'postgres://app:secret@db/app', filters: {}, summary: ok(summary) },
      };
      render(<SyncResult result={result} />);
      const region = screen.getByRole('region', { name: /^Schema/ });
      const schemas = within(region).getByRole('list', { name: 'Schemas' });
      const group = within(schemas).getByRole('button', { name: /t1 … t3/ });
      expect(group.textContent).toContain('3 schemas of the same 2 tables');
      expect(group.getAttribute('aria-pressed')).toBe('true');
      expect(within(schemas).getAllByRole('button')).toHaveLength(2);
      expect(await within(region).findByText('t1.users')).toBeTruthy();
      expect(within(region).getByText('t2 … t3 have the same structure as t1', { exact: false })).toBeTruthy();
      expect(requests[0]).toEqual({ path: '/postgres/objects', body: { db: 'postgres://app:secret@db/app', schema: 't1', offset: 0, limit: 100 } });

      await user.click(within(schemas).getByRole('button', { name: /^t4/ }));
      expect(await within(region).findByText('t4.users')).toBeTruthy();
      expect(requests.at(-1)!.body).toMatchObject({ schema: 't4', offset: 0 });

      // a search goes through each group once: its first schema, and the others
      await user.type(within(region).getByLabelText('Search schema'), 'users');
      expect(await within(region).findByText('2 matching objects')).toBeTruthy();
      expect(requests.at(-1)!.body).toMatchObject({ q: 'users', schemas: ['t1', 't4'], offset: 0 });
      expect(within(region).getByText('t1.t1_users')).toBeTruthy();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
