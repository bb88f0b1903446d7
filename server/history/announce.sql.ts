// The announcements' one set-based write (announce.ts runs it).
import { sql, type SQL } from 'drizzle-orm';
import type { ProductionEvent } from '../../shared/history';

/**
 * Remembers that `event` was told for each hash at `at`, answering the hashes it is now to be told
 * of: a row per hash inserted, or (with `repeatBefore`) one whose last telling was at or before that
 * time and is told again. The hashes travel as one array parameter, however many a first deployment
 * brings; they go in hash order, so two readings lock the same rows in the same order.
 */
export function rememberEvents(environmentId: string, event: ProductionEvent, at: Date, hashes: readonly string[], repeatBefore?: Date): SQL {
  const again =
    repeatBefore === undefined
      ? sql`DO NOTHING`
      : sql`DO UPDATE SET sent_at = excluded.sent_at WHERE history_events.sent_at <= ${repeatBefore.toISOString()}::timestamptz`;
  return sql`INSERT INTO history_events (environment_id, hash, event, sent_at)
        SELECT ${environmentId}, hash, ${event}, ${at.toISOString()}::timestamptz FROM unnest(${textArray(hashes)}::text[]) AS hash
        ORDER BY hash
        ON CONFLICT (environment_id, hash, event) ${again}
        RETURNING hash`;
}

/** The hashes as one PostgreSQL text array literal (hashes are hex: nothing to quote). */
export const textArray = (hashes: readonly string[]): string => `{${hashes.join(',')}}`;
