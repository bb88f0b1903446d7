// Production snapshots: the schema and planner statistics of an environment's production database
// as read at one moment (advisor's SourceSnapshot), stored so that plans made against it can be
// cached by its id, also across restarts. A snapshot is reused while younger than the configured
// age and read from the same production connection; one read per environment at a time, whoever
// asks (two CI runs arriving together share one read of production).
import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { readProductionSnapshot, type SourceSnapshot } from '../../advisor/index';
import { redactConnectionString } from '../../gateway/index';
import type { SnapshotRefresh } from '../../shared/snapshot';
import { productionSnapshots } from '../db/schema';
import { newId } from '../ids';
import type { Services } from '../trpc';
import type { RunningQueue } from '../queue/index';
import { requireProductionConnections } from '../domain/connections';

export interface Snapshot {
  id: string;
  environmentId: string;
  connectionId: string;
  readAt: Date;
  digest: string;
  snapshot: SourceSnapshot;
}

export interface SnapshotOptions {
  /** Reuse a stored snapshot younger than this. */
  maxAgeMs: number;
  /** Read production now, whatever the age of the stored one. */
  force?: boolean;
}

/** Snapshots kept per environment; older ones go, with the plans cached against them. */
const KEPT_PER_ENVIRONMENT = 3;

/**
 * Per environment, the last call in line: calls are taken one after the other, so a caller arriving
 * while production is being read waits for that read and then finds its snapshot fresh.
 */
const queues = new Map<string, Promise<Snapshot>>();
/** The latest snapshot per environment, parsed, so a warm run does not re-read a large jsonb. */
const latest = new Map<string, Snapshot>();

/**
 * The environment's current snapshot: the stored one when fresh enough, else a new read of
 * production. 404 for an unknown environment, 409 when it has no production connection.
 */
export function currentSnapshot(services: Services, environmentId: string, options: SnapshotOptions): Promise<Snapshot> {
  const previous = queues.get(environmentId);
  const next = (previous ?? Promise.resolve()).catch(() => undefined).then(() => decide(services, environmentId, options));
  queues.set(environmentId, next);
  const forget = () => {
    if (queues.get(environmentId) === next) queues.delete(environmentId);
  };
  next.then(forget, forget);
  return next;
}

const REFRESH_JOB = 'snapshot-refresh';
/** Refreshes queued by this process, by environment, so tests can wait for them whoever runs them. */
const refreshes = new Map<string, { queue: RunningQueue; jobId: string }>();

/** The snapshot read in progress for the environment (a refresh this process queued, or a read here), if any: tests wait for it. */
export function snapshotInProgress(environmentId: string): Promise<unknown> | undefined {
  const refresh = refreshes.get(environmentId);
  if (!refresh) return queues.get(environmentId)?.catch(() => undefined);
  return refresh.queue.settled(REFRESH_JOB, refresh.jobId).then(() => {
    if (refreshes.get(environmentId) === refresh) refreshes.delete(environmentId);
  });
}

/**
 * Every server process reads production for a refresh asked of any of them. A read that fails is
 * logged without the connection string and not retried: the next CI run reads again and reports it.
 */
export async function registerSnapshotJobs(services: Services): Promise<void> {
  await services.queue.work<{ environmentId: string }>(REFRESH_JOB, async ({ environmentId }) => {
    try {
      await currentSnapshot(services, environmentId, { maxAgeMs: 0, force: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const connections = await requireProductionConnections(services.store.db, services.secrets, environmentId, '').catch(() => []);
      console.error(`[snapshot] environment ${environmentId}: ${connections.reduce((text, c) => redactConnectionString(text, c.connectionString), message)}`);
    }
  });
}

async function decide(services: Services, environmentId: string, options: SnapshotOptions): Promise<Snapshot> {
  const [production] = await requireProductionConnections(services.store.db, services.secrets, environmentId, 'so its schema and statistics can be read');
  if (!options.force) {
    const stored = await freshSnapshot(services, environmentId, production.id, options.maxAgeMs);
    if (stored) return stored;
  }
  return readAndStore(services, environmentId, production);
}

async function freshSnapshot(services: Services, environmentId: string, connectionId: string, maxAgeMs: number): Promise<Snapshot | undefined> {
  const { db } = services.store;
  const [row] = await db
    .select({ id: productionSnapshots.id, readAt: productionSnapshots.readAt, digest: productionSnapshots.digest })
    .from(productionSnapshots)
    .where(and(eq(productionSnapshots.environmentId, environmentId), eq(productionSnapshots.connectionId, connectionId)))
    .orderBy(desc(productionSnapshots.readAt), desc(productionSnapshots.id))
    .limit(1);
  if (!row || Date.now() - row.readAt.getTime() > maxAgeMs) return undefined;
  const known = latest.get(environmentId);
  if (known?.id === row.id) return known;
  const [full] = await db.select({ snapshot: productionSnapshots.snapshot }).from(productionSnapshots).where(eq(productionSnapshots.id, row.id));
  if (!full) return undefined; // pruned meanwhile
  const snapshot: Snapshot = { ...row, environmentId, connectionId, snapshot: full.snapshot as SourceSnapshot };
  latest.set(environmentId, snapshot);
  return snapshot;
}

async function readAndStore(
  services: Services,
  environmentId: string,
  production: { id: string; connectionString: string },
): Promise<Snapshot> {
  const { db } = services.store;
  const source = await readProductionSnapshot(production.connectionString);
  const json = JSON.stringify(source);
  // Write counters move with every write to production: they are not what makes plans differ.
  const digest = createHash('sha256').update(JSON.stringify({ ...source, writes: undefined })).digest('hex');
  const readAt = new Date();
  // Production unchanged since the last read: that snapshot, and every plan cached against it, stays valid.
  const [same] = await db
    .update(productionSnapshots)
    .set({ readAt })
    .where(
      and(
        eq(productionSnapshots.environmentId, environmentId),
        eq(productionSnapshots.connectionId, production.id),
        eq(productionSnapshots.digest, digest),
      ),
    )
    .returning({ id: productionSnapshots.id });
  if (same) {
    const kept: Snapshot = { id: same.id, environmentId, connectionId: production.id, readAt, digest, snapshot: source };
    latest.set(environmentId, kept);
    return kept;
  }
  const snapshot: Snapshot = { id: newId('snap'), environmentId, connectionId: production.id, readAt, digest, snapshot: source };
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      INSERT INTO production_snapshots (id, environment_id, connection_id, read_at, digest, snapshot)
      VALUES (${snapshot.id}, ${environmentId}, ${production.id}, ${snapshot.readAt.toISOString()}::timestamptz, ${snapshot.digest}, ${json}::jsonb)`);
    await tx.execute(sql`
      DELETE FROM production_snapshots
      WHERE environment_id = ${environmentId}
        AND id NOT IN (SELECT id FROM production_snapshots WHERE environment_id = ${environmentId}
                       ORDER BY read_at DESC, id DESC LIMIT ${KEPT_PER_ENVIRONMENT})`);
  });
  latest.set(environmentId, snapshot);
  return snapshot;
}

/**
 * Queues a new read of the environment's production database (404 unknown environment, 409 no
 * production connection) and answers with the snapshot in use until it is read. A failed read is
 * logged without the connection string; the next CI run tries again and reports it.
 */
export async function refreshSnapshot(services: Services, environmentId: string): Promise<SnapshotRefresh> {
  const { db } = services.store;
  await requireProductionConnections(db, services.secrets, environmentId, 'so its schema and statistics can be read');
  const [current] = await db
    .select({ id: productionSnapshots.id, readAt: productionSnapshots.readAt })
    .from(productionSnapshots)
    .where(eq(productionSnapshots.environmentId, environmentId))
    .orderBy(desc(productionSnapshots.readAt), desc(productionSnapshots.id))
    .limit(1);
  // one refresh per environment queued or running at a time: a second ask while one is pending shares it
  const jobId = await services.queue.send(REFRESH_JOB, { environmentId }, { singletonKey: environmentId, retryLimit: 0 });
  if (jobId) {
    refreshes.set(environmentId, { queue: services.queue, jobId });
    if (refreshes.size > 500) refreshes.delete(refreshes.keys().next().value!);
  }
  return { environmentId, refreshing: true, current: current ? { id: current.id, readAt: current.readAt.toISOString() } : null };
}
