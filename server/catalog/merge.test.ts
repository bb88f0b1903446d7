// How sightings of one statement combine into one catalog row. Pure: no database.
import { describe, expect, it } from 'vitest';
import { CI_LIMITS } from '../../shared/ci';
import { addCalls, mergeConnections, mergeFigures, sortByHash } from './merge';

const row = (hash: string, calls: number | null, meanTimeMs: number | null, query = `SELECT ${hash}`) => ({
  hash,
  query,
  formattedQuery: query,
  calls,
  meanTimeMs,
  // as the production sync reads them: every statement with its call sites, none here
  callSites: [],
});

describe('mergeFigures', () => {
  it('adds calls and weights the mean time by calls', () => {
    expect(mergeFigures({ calls: 1, meanTimeMs: 10 }, { calls: 3, meanTimeMs: 2 })).toEqual({ calls: 4, meanTimeMs: 4 });
  });

  it('keeps the known figures when a side has none', () => {
    expect(mergeFigures({ calls: null, meanTimeMs: null }, { calls: 5, meanTimeMs: 1.5 })).toEqual({ calls: 5, meanTimeMs: 1.5 });
    expect(mergeFigures({ calls: 5, meanTimeMs: 1.5 }, { calls: null, meanTimeMs: null })).toEqual({ calls: 5, meanTimeMs: 1.5 });
    // calls known on both sides, a mean on one: calls add up, the one mean is kept
    expect(mergeFigures({ calls: 2, meanTimeMs: 7 }, { calls: 3, meanTimeMs: null })).toEqual({ calls: 5, meanTimeMs: 7 });
  });

  it('takes the later mean when neither side has calls to weigh by', () => {
    expect(mergeFigures({ calls: null, meanTimeMs: 1 }, { calls: null, meanTimeMs: 2 })).toEqual({ calls: null, meanTimeMs: 2 });
    expect(mergeFigures({ calls: 0, meanTimeMs: 1 }, { calls: 0, meanTimeMs: 2 })).toEqual({ calls: 0, meanTimeMs: 2 });
  });

  it('holds summed calls at the largest count a column and JavaScript keep exact', () => {
    expect(addCalls(CI_LIMITS.maxCalls, 1)).toBe(CI_LIMITS.maxCalls);
    expect(mergeFigures({ calls: CI_LIMITS.maxCalls, meanTimeMs: 1 }, { calls: CI_LIMITS.maxCalls, meanTimeMs: 1 }).calls).toBe(CI_LIMITS.maxCalls);
  });
});

describe('mergeConnections', () => {
  it('sums a statement seen on a primary and a replica, weights its mean, and keeps the first text', () => {
    const primary = [row('b', 10, 1, 'SELECT b FROM t'), row('a', 1, 5)];
    const replica = [row('b', 30, 3, 'select b from t')];
    expect(mergeConnections([primary, replica])).toEqual([
      row('a', 1, 5),
      { ...row('b', 40, 2.5), query: 'SELECT b FROM t', formattedQuery: 'SELECT b FROM t' },
    ]);
  });

  it('holds a connection that reports more calls than can be stored', () => {
    expect(mergeConnections([[row('a', CI_LIMITS.maxCalls + 10, 1)]])[0]!.calls).toBe(CI_LIMITS.maxCalls);
  });
});

describe('sortByHash', () => {
  it('orders rows by hash, the order every writer locks catalog rows in', () => {
    expect(sortByHash([row('c0', 1, 1), row('0a', 1, 1), row('b1', 1, 1)]).map((r) => r.hash)).toEqual(['0a', 'b1', 'c0']);
  });
});
