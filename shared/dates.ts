// Timestamps on the wire: ISO 8601 in UTC, as Date.prototype.toISOString writes them, whatever
// form the database handed them over in.
import { z } from 'zod';

export const isoDate = z.string().meta({ description: 'ISO 8601 timestamp (UTC)', example: '2026-11-22T10:00:00.000Z' });

/** A timestamp as the wire carries it, from a Date or the text a raw SQL query returns. */
export function toIsoDate(value: Date | string): string {
  return new Date(value).toISOString();
}
