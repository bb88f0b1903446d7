// Production history stays bounded: points older than the full-resolution retention are dropped,
// their hours' sums staying in history_hour_sums (the triggers on history_points wrote them with
// the points, so every total over any whole hour is unchanged), and hourly sums older than theirs
// are dropped.
import { lt, type SQL } from 'drizzle-orm';
import type { Db } from '../db/store';
import { historyTableFacts } from '../db/schema';
import { rowsOf, withRetry } from '../catalog/sql';
import type { Services } from '../services-type';
import { dropHourSumsBefore, dropPointsBefore } from './retention.sql';

const HOUR_MS = 3_600_000;

/** The one row of a counted delete (retention.sql.ts): how many rows it removed. */
async function deleted(tx: Pick<Db, 'execute'>, statement: SQL): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(tx, statement);
  return row?.n ?? 0;
}

export interface PruneOutcome {
  /** Full-resolution points past their retention, removed (their hours' sums stay). */
  pointsDropped: number;
  /** Hourly sums past their retention, removed. */
  hourSumsDropped: number;
}

/**
 * Drops by the configured retentions. The full-resolution cutoff is on an hour's start, so an
 * hour's points go whole, at once: an hour is read either from its points or, once they are gone,
 * from its sums (read.ts), never half from each.
 */
export async function pruneHistory(services: Services, options: { now?: Date } = {}): Promise<PruneOutcome> {
  const now = (options.now ?? new Date()).getTime();
  const { historyFullDays, historyHourlyDays } = services.config;
  const fullCutoff = new Date(Math.floor((now - historyFullDays * 86_400_000) / HOUR_MS) * HOUR_MS).toISOString();
  const hourlyCutoff = new Date(now - historyHourlyDays * 86_400_000).toISOString();
  return withRetry(() =>
    services.store.db.transaction(async (tx) => {
      const pointsDropped = await deleted(tx, dropPointsBefore(fullCutoff));
      const hourSumsDropped = await deleted(tx, dropHourSumsBefore(hourlyCutoff));
      // the tables' sizes serve windows as far back as the hourly sums go
      await tx.delete(historyTableFacts).where(lt(historyTableFacts.at, new Date(hourlyCutoff)));
      return { pointsDropped, hourSumsDropped };
    }),
  );
}
