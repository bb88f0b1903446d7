// What production history tells the environment's webhooks: a query production runs that it had
// never run before, and a query whose mean time over the last hour rose by more than half against
// the hour before. history_events remembers what was told, so a new query is told once (a query that
// vanishes in a reset and comes back is not new) and a regression at most once a day.
import { and, eq, sql } from 'drizzle-orm';
import type { ProductionEvent } from '../../shared/history';
import { rowsOf } from '../catalog/sql';
import { catalogQueries } from '../db/schema';
import type { Services } from '../services-type';
import { emitEvent } from '../webhooks/events';
import { regressedQueries } from './read';
import { rememberEvents, textArray } from './announce.sql';

/** At most this many events of one kind per reading: a first deployment of many queries is not a flood. */
const MAX_EVENTS_PER_READING = 20;
const REGRESSION_WINDOW_MS = 3_600_000;
const REGRESSION_THRESHOLD_PERCENT = 50;
/** A mean over fewer calls than this, in either hour, is too noisy to call a regression. */
const REGRESSION_MIN_CALLS = 5;
const REGRESSION_REPEAT_MS = 86_400_000;

const NEW: ProductionEvent = 'production.query.new';
const REGRESSED: ProductionEvent = 'production.query.regressed';

async function remember(
  services: Services,
  environmentId: string,
  event: ProductionEvent,
  at: Date,
  hashes: string[],
  repeatAfterMs?: number,
): Promise<string[]> {
  if (hashes.length === 0) return [];
  const repeatBefore = repeatAfterMs === undefined ? undefined : new Date(at.getTime() - repeatAfterMs);
  const rows = await rowsOf<{ hash: string }>(services.store.db, rememberEvents(environmentId, event, at, hashes, repeatBefore));
  return rows.map((row) => row.hash);
}

/** Remembers a first reading's queries silently; tells the webhooks of the ones never seen before. */
export async function announceNewQueries(services: Services, environmentId: string, at: Date, appeared: string[], firstReading: Set<string>): Promise<void> {
  await remember(services, environmentId, NEW, at, [...firstReading]);
  const fresh = await remember(services, environmentId, NEW, at, appeared);
  if (fresh.length === 0) return;
  const texts = await textsOf(services, environmentId, fresh);
  for (const hash of fresh.slice(0, MAX_EVENTS_PER_READING)) {
    await emitEvent(services, environmentId, NEW, { hash, query: texts.get(hash) ?? null, at: at.toISOString() });
  }
}

/** Tells the webhooks of queries whose last hour's mean time rose by more than half against the hour before. */
export async function announceRegressions(services: Services, environmentId: string, at: Date): Promise<void> {
  const window = { from: new Date(at.getTime() - REGRESSION_WINDOW_MS), to: at };
  const regressed = (await regressedQueries(services.store.db, environmentId, window, REGRESSION_THRESHOLD_PERCENT, MAX_EVENTS_PER_READING)).filter(
    (q) => q.calls >= REGRESSION_MIN_CALLS && q.previousCalls >= REGRESSION_MIN_CALLS,
  );
  const told = new Set(
    await remember(
      services,
      environmentId,
      REGRESSED,
      at,
      regressed.map((q) => q.hash),
      REGRESSION_REPEAT_MS,
    ),
  );
  for (const query of regressed.filter((q) => told.has(q.hash))) {
    await emitEvent(services, environmentId, REGRESSED, {
      hash: query.hash,
      query: query.formattedQuery,
      meanTimeMs: query.meanTimeMs,
      previousMeanTimeMs: query.previousMeanTimeMs,
      changePercent: Math.round(query.changePercent),
      calls: query.calls,
      window: { from: window.from.toISOString(), to: window.to.toISOString() },
    });
  }
}

async function textsOf(services: Services, environmentId: string, hashes: string[]): Promise<Map<string, string>> {
  // = ANY of one array parameter: a first deployment's queries would pass the parameter limit as an IN list
  const rows = await services.store.db
    .select({ hash: catalogQueries.hash, formattedQuery: catalogQueries.formattedQuery })
    .from(catalogQueries)
    .where(and(eq(catalogQueries.environmentId, environmentId), sql`${catalogQueries.hash} = ANY(${textArray(hashes)}::text[])`));
  return new Map(rows.map((row) => [row.hash, row.formattedQuery]));
}
