// Which SQLSTATE a failure carries, however it was wrapped: a duplicate slug must answer 409 and a
// deadlock must be retried whether pg, PGlite, drizzle or tRPC threw it. Pure: no PostgreSQL.
import { describe, expect, it } from 'vitest';
import { causeChain, databaseErrorOf } from './database-error';

const uniqueViolation = Object.assign(new Error('duplicate key value violates unique constraint "environments_slug"'), {
  code: '23505',
  severity: 'ERROR',
  constraint: 'environments_slug',
});

describe('the SQLSTATE of a failure', () => {
  it('is found on the error itself or on any cause it wraps', () => {
    expect(databaseErrorOf(uniqueViolation)).toEqual({ code: '23505', message: uniqueViolation.message, constraint: 'environments_slug' });
    const drizzle = new Error('Failed query: insert ...', { cause: uniqueViolation });
    const trpc = new Error('Internal server error', { cause: drizzle });
    expect(databaseErrorOf(trpc)?.code).toBe('23505');
  });

  it('is only what PostgreSQL said: a Node error code of five letters (EPIPE) is not one', () => {
    expect(databaseErrorOf(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBeUndefined();
    expect(databaseErrorOf(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', severity: 'ERROR' }))).toBeUndefined();
    expect(databaseErrorOf('just a string')).toBeUndefined();
    expect(databaseErrorOf(undefined)).toBeUndefined();
  });

  it('is looked for a few levels deep only, so an error that causes itself cannot loop', () => {
    const looped: Error & { cause?: unknown } = new Error('loop');
    looped.cause = looped;
    expect(causeChain(looped)).toHaveLength(6);
    expect(databaseErrorOf(looped)).toBeUndefined();
  });
});
