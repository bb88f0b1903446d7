// Reading the environment: what an operator sets is taken, misspelt values are refused at start.
import { describe, expect, it } from 'vitest';
import { readConfig } from './config';

describe('VERDICT_SNAPSHOT', () => {
  it('scopes verdicts to what their queries touch unless set to full', () => {
    expect(readConfig({}).verdictSnapshot).toBe('scoped');
    expect(readConfig({ VERDICT_SNAPSHOT: '' }).verdictSnapshot).toBe('scoped');
    expect(readConfig({ VERDICT_SNAPSHOT: 'scoped' }).verdictSnapshot).toBe('scoped');
    expect(readConfig({ VERDICT_SNAPSHOT: 'full' }).verdictSnapshot).toBe('full');
    expect(readConfig({ VERDICT_SNAPSHOT: ' Full ' }).verdictSnapshot).toBe('full');
  });

  it('refuses a value it does not know rather than silently scope', () => {
    expect(() => readConfig({ VERDICT_SNAPSHOT: 'whole' })).toThrow('VERDICT_SNAPSHOT must be "scoped" or "full", got "whole"');
  });
});
