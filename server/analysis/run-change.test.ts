// The change flagged for each query of a CI run against its baseline run. Pure: no database.
import { describe, expect, it } from 'vitest';
import { classifyChange, COST_RISE_RATIO, type QueryAgainstBaseline } from './run-change';

/** A query the baseline had, with the same cost and no recommendation: nothing to flag. */
const unchanged: QueryAgainstBaseline = {
  hasBaseline: true,
  inBaseline: true,
  cost: 100,
  previousCost: 100,
  recommendationCount: 0,
  previousRecommendationCount: 0,
};

describe('classifyChange', () => {
  it('flags nothing for a query whose cost and recommendations stayed the same', () => {
    expect(classifyChange(unchanged)).toBeNull();
  });

  it('flags cost_rose only past the noise ratio', () => {
    expect(classifyChange({ ...unchanged, cost: 100 * COST_RISE_RATIO })).toBeNull();
    expect(classifyChange({ ...unchanged, cost: 100 * COST_RISE_RATIO + 0.01 })).toBe('cost_rose');
    expect(classifyChange({ ...unchanged, cost: 50 })).toBeNull(); // cheaper is not flagged
  });

  it('needs both costs to say a cost rose', () => {
    expect(classifyChange({ ...unchanged, cost: 500, previousCost: null })).toBeNull();
    expect(classifyChange({ ...unchanged, cost: null, previousCost: 10 })).toBeNull();
  });

  it('prefers cost_rose over a gained recommendation', () => {
    expect(classifyChange({ ...unchanged, cost: 300, recommendationCount: 1 })).toBe('cost_rose');
  });

  it('flags gained_recommendation when an index is recommended now and was not in the baseline', () => {
    expect(classifyChange({ ...unchanged, recommendationCount: 2 })).toBe('gained_recommendation');
    expect(classifyChange({ ...unchanged, recommendationCount: 2, previousRecommendationCount: null })).toBe('gained_recommendation');
    // already recommended in the baseline: not news
    expect(classifyChange({ ...unchanged, recommendationCount: 2, previousRecommendationCount: 1 })).toBeNull();
  });

  it('flags a recommended query of a run without a baseline, and nothing else there', () => {
    const first = { ...unchanged, hasBaseline: false, inBaseline: false, previousCost: null, previousRecommendationCount: null };
    expect(classifyChange({ ...first, recommendationCount: 1 })).toBe('gained_recommendation');
    expect(classifyChange(first)).toBeNull(); // every query would be "new": none is flagged
  });

  it('flags new_query for a query the baseline did not have, unless it gained a recommendation', () => {
    const fresh = { ...unchanged, inBaseline: false, previousCost: null, previousRecommendationCount: null };
    expect(classifyChange(fresh)).toBe('new_query');
    expect(classifyChange({ ...fresh, recommendationCount: 1 })).toBe('gained_recommendation');
  });
});
