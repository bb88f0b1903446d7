// What the sizing is given from a snapshot: statistics arrays as PostgreSQL prints them, stored
// widths of sampled values, type layouts, and the cautious reading of an expression key.
import { describe, expect, it } from 'vitest';
import { arrayItems, sizeInputs } from './size-inputs.js';
import type { Snapshot } from '../snapshot/types.js';

const snapshot = {
  settings: {},
  relations: [{ schema: 'public', name: 't', kind: 'r', relpages: 100, reltuples: 1000, relallvisible: 0, blocks: 100 }],
  columns: [
    { schema: 'public', table: 't', name: 'code', type: 'character varying(8)', category: 'S', notNull: true },
    { schema: 'public', table: 't', name: 'amount', type: 'numeric(10,2)', category: 'N', notNull: true },
    { schema: 'public', table: 't', name: 'state', type: 'order_state', category: 'E', notNull: true },
    { schema: 'public', table: 't', name: 'joined', type: 'date', category: 'D', notNull: true },
    { schema: 'public', table: 't', name: 'opened', type: 'date', category: 'D', notNull: true },
  ],
  stats: [
    {
      schema: 'public',
      table: 't',
      column: 'code',
      inherited: false,
      values: { avg_width: 5, null_frac: 0, n_distinct: -1, histogram_bounds: '{abcd,"a b,c",wxyz}' },
    },
    {
      schema: 'public',
      table: 't',
      column: 'amount',
      inherited: false,
      values: { avg_width: 7, null_frac: 0, n_distinct: 10, most_common_vals: '{12.25,0.00}', most_common_freqs: '{0.5,0.5}' },
    },
    {
      schema: 'public',
      table: 't',
      column: 'joined',
      inherited: false,
      values: { avg_width: 4, null_frac: 0, n_distinct: 40, histogram_bounds: '{2024-02-27,2024-03-01,2025-01-01}' },
    },
    {
      schema: 'public',
      table: 't',
      column: 'opened',
      inherited: false,
      values: { avg_width: 4, null_frac: 0, n_distinct: 40, histogram_bounds: '{"2024-02-27 BC",2024-03-01,infinity}' },
    },
  ],
} as unknown as Snapshot;

const shape = sizeInputs(snapshot);

describe('statistics arrays', () => {
  it('are read with quotes, escapes and NULLs', () => {
    expect(arrayItems('{a,"b c","d\\"e",NULL,"NULL"}')).toEqual(['a', 'b c', 'd"e', null, 'NULL']);
    expect(arrayItems(null)).toEqual([]);
  });
});

describe('column inputs', () => {
  const stat = (column: string) => shape({ schema: 'public', table: 't', am: 'btree', keys: [column], include: [] }, 1000).stat(column);

  it('give text its sampled values stored with a 1-byte length header', () => {
    expect(stat('code').widths).toEqual(expect.arrayContaining([5, 6]));
    expect(stat('code').layout?.dedup).toBe(true);
  });

  it('give numeric the bytes of its base-10000 digits, and no deduplication', () => {
    // 12.25 is two digits (12, 2500): 3 + 4 bytes; zero has none: 3 bytes
    expect(new Set(stat('amount').widths)).toEqual(new Set([7, 3]));
    expect(stat('amount').layout?.dedup).toBe(false);
  });

  it('read a date histogram as day numbers, so a bucket holds as many values as its range has days', () => {
    expect(stat('joined').bounds).toEqual([19780, 19783, 20089]);
    // a bound that is no plain date: no histogram, the values taken as equally common
    expect(stat('opened').bounds).toBeUndefined();
  });

  it('take an enum as a 4-byte value and say when a column has no statistics', () => {
    expect(stat('state').layout).toEqual({ len: 4, align: 4, dedup: true });
    expect(stat('state').guess).toMatch(/no statistics/);
  });

  it('size an expression key from the columns it reads, as a guess, and read the fillfactor', () => {
    const index = shape(
      {
        schema: 'public',
        table: 't',
        am: 'btree',
        keys: [''],
        include: [],
        definition: 'CREATE INDEX i ON public.t USING btree (lower((code)::text)) WITH (fillfactor=70)',
      },
      1000,
    );
    expect(index.fillfactor).toBe(70);
    expect(index.stat('')).toMatchObject({ avgWidth: 8, distinct: 1000 });
    expect(index.stat('').guess).toMatch(/expression/);
  });
});
