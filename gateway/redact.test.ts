// Messages about a user's database never carry its connection string or password. Pure.
import { describe, expect, it } from 'vitest';
import { redactConnectionString } from './redact';

describe('redactConnectionString', () => {
  const url = 'postgres://app:hunter2@db.internal:5432/shop';

  it('replaces the whole connection string, and the password wherever it appears alone', () => {
    expect(redactConnectionString(`could not connect to ${url}`, url)).toBe('could not connect to <connection string>');
    expect(redactConnectionString('password "hunter2" was refused for app', url)).toBe('password "****" was refused for app');
  });

  it('hides a percent-encoded password in its decoded and its written form', () => {
    const encoded = 'postgres://app:p%40ss%3Aword@db/shop';
    expect(redactConnectionString('auth failed for p@ss:word', encoded)).toBe('auth failed for ****');
    expect(redactConnectionString('auth failed for p%40ss%3Aword', encoded)).toBe('auth failed for ****');
  });

  it('leaves a message alone when there is nothing secret in it', () => {
    expect(redactConnectionString('timeout expired', url)).toBe('timeout expired');
    expect(redactConnectionString('timeout expired', 'postgres://app@db/shop')).toBe('timeout expired');
    expect(redactConnectionString('timeout expired', 'not a url')).toBe('timeout expired');
    expect(redactConnectionString('timeout expired', '')).toBe('timeout expired');
  });
});
