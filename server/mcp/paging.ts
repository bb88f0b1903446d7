// Pages of the MCP tools' lists: answers are sized for a model's context, so every list is cut to a
// page and names the cursor of the next one. A cursor is opaque to the client: the offset of the
// next page, base64url-encoded, as MCP's own list methods hand out cursors.
import { z } from 'zod';
import { badRequest } from '../errors';

export const cursorInput = z.string().max(200).optional().describe('nextCursor from the previous page, as it was given; leave out for the first page');

export const pageFields = {
  total: z.number().int().describe('How many there are in all'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page'),
};

export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
}

export const cursorAt = (offset: number) => Buffer.from(JSON.stringify({ offset })).toString('base64url');

/** The offset a cursor names; 0 without one. A cursor that is not one of ours is refused. */
export function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { offset?: unknown };
    if (Number.isSafeInteger(offset) && (offset as number) >= 0) return offset as number;
  } catch {
    // refused below
  }
  throw badRequest('Invalid cursor: pass nextCursor from the previous page as it was given', [{ path: 'cursor', message: 'Not a cursor of this server' }]);
}

/** One page of a list held whole. */
export function pageOf<T>(all: readonly T[], offset: number, size: number): Page<T> {
  const items = all.slice(offset, offset + size);
  return { items, total: all.length, nextCursor: offset + size < all.length ? cursorAt(offset + size) : null };
}

/** One page of a list read a page at a time, `total` counted by the store. */
export function pageFromStore<T>(items: T[], offset: number, total: number): Page<T> {
  return { items, total, nextCursor: offset + items.length < total ? cursorAt(offset + items.length) : null };
}

/** A text cut to `max` characters for a list (the single read has the whole). */
export function clip(text: string, max: number): { text: string; truncated: boolean } {
  return text.length <= max ? { text, truncated: false } : { text: `${text.slice(0, max)}…`, truncated: true };
}
