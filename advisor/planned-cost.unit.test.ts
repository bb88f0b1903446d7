// The workload's planned cost plans a query again only when an index that concerns it changes: one
// on a table it reads with a column it reads, a partial one there, or any there when its columns
// are not known.
import { describe, expect, it } from 'vitest';
import { plannedCost } from './planned-cost.js';
import type { LiveCandidate } from './live-candidates.js';

const index = (keys: string[], more: Partial<LiveCandidate> = {}): LiveCandidate => ({
  schema: 'public',
  table: 'sales',
  am: 'btree',
  keys,
  include: [],
  predicate: null,
  oids: [],
  names: new Set(),
  pages: 1,
  heights: new Map(),
  ...more,
});

describe('the planned workload cost', () => {
  it('plans a query again only for an index on a column it reads, a partial index, or where its columns are not known', async () => {
    const planned: string[] = [];
    const tables = [new Set(['public.sales']), new Set(['public.sales']), new Set(['public.sales']), new Set(['public.sales'])];
    const columns = [
      new Map([['public.sales', new Set(['store_id', 'date_id'])]]),
      new Map([['public.sales', new Set(['discount'])]]),
      new Map([['public.sales', null]]),
      undefined,
    ];
    const cost = plannedCost(
      tables,
      [1, 1, 1, 1],
      async (i, indexes) => {
        planned.push(`${i}:${indexes.map((c) => c.keys.join('+')).join(',')}`);
        return 100 - indexes.length;
      },
      columns,
    );
    await cost([]);
    planned.length = 0;
    await cost([index(['discount'])]);
    // query 0 reads no discount: its plan with no index is reused
    expect(planned.sort()).toEqual(['1:discount', '2:discount', '3:discount']);
    planned.length = 0;
    await cost([index(['date_id'], { include: ['store_id'] }), index(['discount'])]);
    expect(planned.sort()).toEqual(['0:date_id', '2:date_id,discount', '3:date_id,discount']);
    planned.length = 0;
    await cost([index(['channel'], { predicate: 'promo_id IS NOT NULL' })]);
    expect(planned.sort()).toEqual(['0:channel', '1:channel', '2:channel', '3:channel']);
    expect(await cost([index(['discount'])])).toBe(100 + 99 + 99 + 99);
  });
});
