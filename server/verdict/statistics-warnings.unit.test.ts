// The verdict of a run planned on a snapshot whose role could not read a table's column
// statistics: the query's notes carry the warning, a regression on it names the table as a
// no_statistics cause (beside plan_choice), and the verdict lists each table once. Plain data.
import { describe, expect, it } from 'vitest';
import { defaultPolicy, verdictSchema } from '../../shared/policy';
import { hiddenStatisticsWarning } from '../../shared/statistics-warnings';
import type { Snapshot } from '../../advisor/index';
import { evaluateVerdict, type VerdictQuery } from './evaluate';
import { statisticsCauses, withStatisticsNotes, withStatisticsWarnings } from './statistics-warnings';

const snapshot = {
  hiddenStatistics: [
    { schema: 'shop', table: 'orders', columns: ['customer_id'], statistics: 'hidden' },
    { schema: 'shop', table: 'fresh', columns: ['id'], statistics: 'never_analyzed' },
  ],
} as Snapshot;

const ORDERS = hiddenStatisticsWarning('shop.orders');

const query = (hash: string, cost: number, schemaNotes: string[]): VerdictQuery => ({
  hash,
  formattedQuery: `SELECT ${hash}`,
  cost,
  recommendations: [],
  schemaNotes,
});

describe("a verdict planned without production's column statistics", () => {
  it('notes the tables a plan reads whose statistics were hidden, not those never analyzed or not read', () => {
    expect(withStatisticsNotes(['x is new in this run: no production statistics'], snapshot, { tablesUsed: ['shop.orders', 'shop.fresh'] })).toEqual([
      ORDERS,
      'x is new in this run: no production statistics',
    ]);
    expect(withStatisticsNotes([], snapshot, { tablesUsed: ['shop.fresh', 'shop.customers'] })).toEqual([]);
    expect(withStatisticsNotes([], snapshot, undefined)).toEqual([]);
    expect(withStatisticsNotes([], {} as Snapshot, { tablesUsed: ['shop.orders'] })).toEqual([]);
  });

  it('gives a regression on such a table a no_statistics cause naming it, and lists each table once on the verdict', () => {
    expect(statisticsCauses([ORDERS, 'index shop.x is dropped in this run'])).toEqual([{ kind: 'no_statistics', object: 'shop.orders', detail: ORDERS }]);
    const queries = [query('aaaa', 300, [ORDERS]), query('bbbb', 10, [ORDERS]), query('cccc', 10, [])];
    const baseline = {
      meta: { id: 'run_base', runId: '1', branch: 'main', createdAt: '2026-11-22T09:00:00.000Z' },
      costs: new Map([
        ['aaaa', 100],
        ['bbbb', 10],
        ['cccc', 10],
      ]),
    };
    const verdict = withStatisticsWarnings(
      evaluateVerdict({ queries, baseline, policy: defaultPolicy(), acknowledgements: [], droppedIndexes: [], snapshotAt: null, analyzedAt: null }),
      queries,
    );
    expect(verdictSchema.parse(verdict).warnings).toEqual([ORDERS]);
    const regression = verdict.findings.find((f) => f.kind === 'cost_regression');
    expect(regression?.causes.map((c) => [c.kind, c.object ?? null])).toEqual([
      ['no_statistics', 'shop.orders'],
      ['plan_choice', null],
    ]);
    const clean = evaluateVerdict({
      queries: [query('cccc', 10, [])],
      baseline,
      policy: defaultPolicy(),
      acknowledgements: [],
      droppedIndexes: [],
      snapshotAt: null,
      analyzedAt: null,
    });
    expect(withStatisticsWarnings(clean, [query('cccc', 10, [])])).not.toHaveProperty('warnings');
  });
});
