import { describe, expect, it } from 'vitest';
import { isoFromUtcText, toIsoDate } from './dates';

describe('isoFromUtcText', () => {
  // the shapes PostgreSQL writes a timestamp into JSON in: trailing zeros of the fraction dropped
  it.each([
    ['2026-11-24T08:53:36', '2026-11-24T08:53:36.000Z'],
    ['2026-11-24T08:53:36.5', '2026-11-24T08:53:36.500Z'],
    ['2026-11-24T08:53:36.05', '2026-11-24T08:53:36.050Z'],
    ['2026-11-24T08:53:36.123', '2026-11-24T08:53:36.123Z'],
    ['2026-11-24T08:53:36.62881', '2026-11-24T08:53:36.628Z'],
    ['2026-01-01T00:00:00.999999', '2026-01-01T00:00:00.999Z'],
  ])('%s is %s, as Date reads it', (text, iso) => {
    expect(isoFromUtcText(text)).toBe(iso);
    expect(isoFromUtcText(text)).toBe(toIsoDate(`${text}Z`));
  });
});
