// One reading of an environment's production history: every production connection's
// pg_stat_statements read through the gateway (read only; the user's statistics are never reset),
// each entry compared with the connection's previous reading (deltas.ts), the work summed per query
// over primary and replicas and stored as one point per query at the reading's time.
import { eq, sql } from 'drizzle-orm';
import { readStatementCounters, StatementsReadError, type StatementCounters } from '../../analyzer/statements';
import type { TableFact } from '../../analyzer/catalog/table-facts.sql';
import { environments, historyCounters, historyPreviousReadings, historyTableFacts } from '../db/schema';
import { productionConnectionRows } from '../domain/connections';
import type { Db } from '../db/store';
import { withRetry } from '../catalog/sql';
import type { Services } from '../services-type';
import { diffCounters, sumByHash, type Counter, type Figures } from './deltas';
import type { SchemaFilters } from '../../shared/schema-filters';
import { announceNewQueries, announceRegressions } from './announce';
import { insertCounters, upsertPoints } from './reading.sql';

export interface ConnectionOutcome {
  id: string;
  label: string;
  /** baseline (the API's word, kept for compatibility): a first reading (or one after a reset mid-read), no points; points: compared with the previous one. */
  result: 'baseline' | 'points' | 'stale' | 'error';
  error?: string;
}

export interface ReadingOutcome {
  environmentId: string;
  at: Date;
  connections: ConnectionOutcome[];
  /** Queries with a point at `at`. */
  points: number;
}

type Target = { id: string; label: string; connectionString: string | null; schemaFilters?: SchemaFilters; error?: string };

async function productionTargets(services: Services, environmentId: string): Promise<Target[]> {
  const rows = await productionConnectionRows(services.store.db, environmentId);
  return rows.map(({ id, label, sealed, includeSchemas, excludeSchemas }) => {
    try {
      return { id, label, connectionString: services.secrets.decrypt(sealed), schemaFilters: { includeSchemas, excludeSchemas } };
    } catch (error) {
      return { id, label, connectionString: null, error: `The connection string cannot be decrypted: ${(error as Error).message}` };
    }
  });
}

/**
 * Reads every production connection of the environment. A connection that cannot be read is
 * reported and keeps its previous reading (the next one covers both intervals). Null when the
 * environment no longer exists.
 */
export async function takeHistoryReading(services: Services, environmentId: string, options: { now?: Date } = {}): Promise<ReadingOutcome | null> {
  const [env] = await services.store.db.select({ id: environments.id }).from(environments).where(eq(environments.id, environmentId));
  if (!env) return null;
  const targets = await productionTargets(services, environmentId);
  const at = options.now ?? new Date();
  const readings = await Promise.all(
    targets.map(async (target, i): Promise<StatementCounters | Error> => {
      if (target.connectionString === null) return new Error(target.error);
      try {
        // entries naming a schema the connection's filters leave out are dropped (analyzer/statement-schemas.ts);
        // the tables' sizes are the first connection's (replicas hold the same tables)
        return await readStatementCounters(target.connectionString, { schemaFilters: target.schemaFilters, withTables: i === 0 });
      } catch (error) {
        if (!(error instanceof StatementsReadError)) console.error('[history]', error);
        return error instanceof StatementsReadError ? error : new Error('Reading pg_stat_statements failed');
      }
    }),
  );

  const outcomes: ConnectionOutcome[] = [];
  const { points, known, firstReadingHashes } = await withRetry(() =>
    services.store.db.transaction(async (tx) => {
      outcomes.length = 0;
      const parts: Map<string, Figures>[] = [];
      const known = new Set<string>();
      const firstReadingHashes = new Set<string>();
      for (const [i, target] of targets.entries()) {
        const reading = readings[i]!;
        if (reading instanceof Error) {
          outcomes.push({ id: target.id, label: target.label, result: 'error', error: reading.message });
          continue;
        }
        const previous = await previousReading(tx, target.id);
        if (previous && previous.takenAt >= at) {
          // another process stored a later reading meanwhile: this one is older than its previous reading
          outcomes.push({ id: target.id, label: target.label, result: 'stale' });
          continue;
        }
        for (const counter of previous?.counters.values() ?? []) known.add(counter.hash);
        const current = { counters: reading.counters, statsReset: reading.info?.statsReset ?? null, resetDuringRead: reading.resetDuringRead };
        const delta = diffCounters(previous, current);
        if (delta) parts.push(delta);
        else for (const counter of reading.counters) firstReadingHashes.add(counter.hash);
        await keepAsPrevious(tx, environmentId, target.id, at, reading);
        outcomes.push({ id: target.id, label: target.label, result: delta ? 'points' : 'baseline' });
      }
      const points = sumByHash(parts);
      await storePoints(tx, environmentId, at, points);
      const first = readings[0];
      if (first && !(first instanceof Error) && first.tables) await storeTableFacts(tx, environmentId, at, first.tables);
      return { points, known, firstReadingHashes };
    }),
  );

  // A query is new when no connection's previous reading had it; announced once per environment.
  const appeared = [...points.keys()].filter((hash) => !known.has(hash));
  await announceNewQueries(services, environmentId, at, appeared, firstReadingHashes);
  await announceRegressions(services, environmentId, at);
  return { environmentId, at, connections: outcomes, points: points.size };
}

interface PreviousReading {
  takenAt: Date;
  statsReset: string | null;
  counters: Map<string, Counter>;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

async function previousReading(tx: Tx, connectionId: string): Promise<PreviousReading | null> {
  // the row lock: two readings of one connection never interleave their read-compare-write
  const [previous] = await tx
    .select({ takenAt: historyPreviousReadings.takenAt, statsReset: historyPreviousReadings.statsReset })
    .from(historyPreviousReadings)
    .where(eq(historyPreviousReadings.connectionId, connectionId))
    .for('update');
  if (!previous) return null;
  const rows: Counter[] = await tx
    .select({
      entry: historyCounters.entry,
      hash: historyCounters.hash,
      calls: historyCounters.calls,
      totalTimeMs: historyCounters.totalTimeMs,
      rows: historyCounters.rows,
      sharedBlksHit: historyCounters.sharedBlksHit,
      sharedBlksRead: historyCounters.sharedBlksRead,
    })
    .from(historyCounters)
    .where(eq(historyCounters.connectionId, connectionId));
  return {
    takenAt: previous.takenAt,
    statsReset: previous.statsReset,
    counters: new Map(rows.map((row) => [row.entry, row])),
  };
}

/**
 * Keeps this reading as the connection's previous reading: its counters replace the last ones (the
 * builder deletes them by key; the new ones go in bulk, reading.sql.ts).
 */
async function keepAsPrevious(tx: Tx, environmentId: string, connectionId: string, at: Date, reading: StatementCounters): Promise<void> {
  await tx.delete(historyCounters).where(eq(historyCounters.connectionId, connectionId));
  if (reading.counters.length > 0) {
    const counters = reading.counters.map((c) => ({
      entry: c.entry,
      hash: c.hash,
      calls: c.calls,
      total_time_ms: c.totalTimeMs,
      rows: c.rows,
      shared_blks_hit: c.sharedBlksHit,
      shared_blks_read: c.sharedBlksRead,
    }));
    await tx.execute(insertCounters(connectionId, counters));
  }
  await tx
    .insert(historyPreviousReadings)
    .values({ connectionId, environmentId, takenAt: at, statsReset: reading.info?.statsReset ?? null, dealloc: reading.info?.dealloc ?? null })
    .onConflictDoUpdate({
      target: historyPreviousReadings.connectionId,
      set: { takenAt: sql`excluded.taken_at`, statsReset: sql`excluded.stats_reset`, dealloc: sql`excluded.dealloc` },
    });
}

/** The tables' sizes at `at` (data_growth in read.ts compares two of them). */
async function storeTableFacts(tx: Tx, environmentId: string, at: Date, tables: readonly TableFact[]): Promise<void> {
  const facts = Object.fromEntries(tables.map((t): [string, [number, number]] => [t.table, [t.rows, t.bytes]]));
  await tx
    .insert(historyTableFacts)
    .values({ environmentId, at, tables: facts })
    .onConflictDoUpdate({ target: [historyTableFacts.environmentId, historyTableFacts.at], set: { tables: sql`excluded.tables` } });
}

/** One point per query at `at`; a point already there (another connection's part) is added to. */
export async function storePoints(tx: Pick<Db, 'execute'>, environmentId: string, at: Date, points: Map<string, Figures>): Promise<void> {
  if (points.size === 0) return;
  const rows = [...points].map(([hash, f]) => ({
    hash,
    calls: Math.round(f.calls),
    total_time_ms: f.totalTimeMs,
    rows: Math.round(f.rows),
    shared_blks_hit: Math.round(f.sharedBlksHit),
    shared_blks_read: Math.round(f.sharedBlksRead),
  }));
  await tx.execute(upsertPoints(environmentId, at, rows));
}
