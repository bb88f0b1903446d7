// The one error vocabulary, without a server: how refused fields are named, and which code a
// request body the JSON parser refused gets (the API and the analyzer both answer with these).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { clientErrorAnswer, errorBody, errorBodySchema, invalidInputMessage, issuesOf } from './errors';

describe('refused fields', () => {
  const schema = z.object({ name: z.string(), queries: z.array(z.object({ query: z.string() })) });

  it('are named by their dotted path, the value as a whole by a placeholder, and all listed in the message', () => {
    const nested = issuesOf(schema.safeParse({ name: 'x', queries: [{ query: 1 }] }).error!);
    expect(nested).toEqual([{ path: 'queries.0.query', message: expect.any(String) }]);
    expect(issuesOf(schema.safeParse([]).error!)).toEqual([{ path: '(body)', message: expect.any(String) }]);
    expect(issuesOf(schema.safeParse([]).error!, '(file)')[0]!.path).toBe('(file)');
    expect(
      invalidInputMessage([
        { path: 'a', message: 'too long' },
        { path: 'b.0', message: 'missing' },
      ]),
    ).toBe('Invalid input: a: too long; b.0: missing');
  });

  it('travel in the one error body, which has issues only when there are some', () => {
    expect(errorBody('not_found', 'Not found')).toEqual({ error: { code: 'not_found', message: 'Not found' } });
    const body = errorBody('validation_failed', 'Invalid input: a: x', [{ path: 'a', message: 'x' }]);
    expect(errorBodySchema.parse(body)).toEqual(body);
    expect(errorBodySchema.safeParse({ error: { code: 'invalid_json', message: 'old code' } }).success).toBe(false);
  });
});

describe('a request body refused before any route', () => {
  it.each([
    [{ type: 'entity.parse.failed', status: 400 }, 400, 'malformed_json'],
    [{ type: 'entity.too.large', status: 413 }, 413, 'payload_too_large'],
    [{ type: 'encoding.unsupported', status: 415 }, 415, 'unsupported_media_type'],
    [{ type: 'charset.unsupported', status: 415 }, 415, 'unsupported_media_type'],
    [{ type: 'request.aborted', status: 400 }, 400, 'validation_failed'],
    [{ status: 404 }, 404, 'not_found'],
    [{ statusCode: 413 }, 413, 'payload_too_large'],
  ])('%j answers %i %s', (error, status, code) => {
    expect(clientErrorAnswer(error, 1024)).toMatchObject({ status, code });
  });

  it('names the size limit when it is known', () => {
    expect(clientErrorAnswer({ type: 'entity.too.large', status: 413 }, 65536)?.message).toBe('Request body is larger than 65536 bytes');
  });

  it('is not a client error when it carries no 4xx status: that is our failure, a 500', () => {
    expect(clientErrorAnswer(new Error('boom'))).toBeUndefined();
    expect(clientErrorAnswer({ status: 503 })).toBeUndefined();
    expect(clientErrorAnswer(undefined)).toBeUndefined();
  });
});
