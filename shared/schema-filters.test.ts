import { describe, expect, it } from 'vitest';
import { likePattern, schemaFilterParams, schemaFiltersSchema, schemaMatcher } from './schema-filters';

describe('schema filter patterns', () => {
  it('turn globs into LIKE patterns where _ and % stand for themselves', () => {
    expect(likePattern('tenant_*')).toBe('tenant\\_%');
    expect(likePattern('t?%')).toBe('t_\\%');
    expect(schemaFilterParams({ includeSchemas: ['a*'] })).toEqual([['a%'], []]);
    expect(schemaFilterParams(undefined)).toEqual([[], []]);
  });

  it('allow a schema that matches an include pattern (or there is none) and no exclude pattern', () => {
    const allowed = schemaMatcher({ includeSchemas: ['tenant_*', 'public'], excludeSchemas: ['tenant_9?'] });
    expect(['public', 'tenant_1', 'tenant_', 'tenant_9', 'tenant_90', 'tenantX1', 'Tenant_1', 'audit'].filter(allowed)).toEqual([
      'public',
      'tenant_1',
      'tenant_',
      'tenant_9',
    ]);
    expect(schemaMatcher({ excludeSchemas: ['a.b'] })('aXb')).toBe(true);
    expect(schemaMatcher(undefined)('anything')).toBe(true);
  });

  it('refuse what is not a glob, with a message saying what is', () => {
    for (const bad of ['', '  ', '^tenant_.*$', 'a|b', '[ab]', 'x'.repeat(64), 'é'.repeat(32), 'a\u0000b']) {
      expect(schemaFiltersSchema.safeParse({ includeSchemas: [bad] }).success, bad).toBe(false);
    }
    const refused = schemaFiltersSchema.safeParse({ excludeSchemas: ['tenant_(1)'] });
    expect(refused.error?.issues[0]?.message).toMatch(/globs, not regular expressions: \* matches any characters/);
    expect(schemaFiltersSchema.parse({ includeSchemas: [' tenant_* '] })).toEqual({ includeSchemas: ['tenant_*'], excludeSchemas: [] });
  });
});
