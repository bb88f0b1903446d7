// Timestamps on the wire: ISO 8601 in UTC, as Date.prototype.toISOString writes them, whatever
// form the database handed them over in.
import { z } from 'zod';

export const isoDate = z.string().meta({ description: 'ISO 8601 timestamp (UTC)', example: '2026-11-22T10:00:00.000Z' });

/** A timestamp as the wire carries it, from a Date or the text a raw SQL query returns. */
export function toIsoDate(value: Date | string): string {
  return new Date(value).toISOString();
}

/**
 * A UTC timestamp as PostgreSQL writes a `timestamp` into JSON ("2026-11-24T08:53:36.62881", the
 * fraction 0-6 digits with trailing zeros dropped), in the wire's form, cut to milliseconds as
 * Date does. The store's timestamps are the server's clock, so always of that shape; anything else
 * is read by Date.
 */
export function isoFromUtcText(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  if (text.length >= 19 && text.length <= 26 && text[10] === 'T' && last >= 48 && last <= 57) {
    return text.length === 19 ? `${text}.000Z` : `${text.slice(0, 19)}.${text.slice(20, 23).padEnd(3, '0')}Z`;
  }
  return new Date(`${text}Z`).toISOString();
}
