// Production snapshots: the schema and planner statistics of an environment's production database
// as read at one moment (advisor's Snapshot type), stored so that plans made against it can be
// cached by its id, also across restarts. A snapshot is reused while younger than the configured
// age and read from the same production connection; one read per environment at a time, whoever
// asks (two CI runs arriving together share one read of production).
//
// A verdict reads only what its queries need (advisor's scope.ts): with no fresh snapshot, a read
// scoped to its queries; with a fresh one that lacks some of what they need, that much read now
// and added to it, under the same id (a query's plan depends on its own relations only, so the
// plans cached against it stay valid). Analyze asks for everything: a snapshot of everything
// serves every verdict too.
import { createHash } from 'node:crypto';
import { and, desc, eq, notInArray, sql } from 'drizzle-orm';
import {
  mergeSnapshots,
  missingFrom,
  readSnapshot,
  refsOfScope,
  unchangedFor,
  type MissingScope,
  type QueryRefs,
  type SnapshotScope,
  type Snapshot,
} from '../../advisor/index';
import { redactConnectionString } from '../../gateway/index';
import type { SnapshotRefresh } from '../../shared/snapshot';
import type { SchemaFilters } from '../../shared/schema-filters';
import { productionSnapshots } from '../db/schema';
import { newId } from '../ids';
import type { Services } from '../services-type';
import type { RunningQueue } from '../queue/index';
import { requireProductionConnections } from '../domain/connections';

export interface StoredSnapshot {
  id: string;
  environmentId: string;
  connectionId: string;
  readAt: Date;
  digest: string;
  snapshot: Snapshot;
}

export interface SnapshotOptions {
  /** Reuse a stored snapshot younger than this. */
  maxAgeMs: number;
  /** Read production now, whatever the age of the stored one. */
  force?: boolean;
  /**
   * The names a verdict's queries use: the snapshot needs to hold only what they need (read
   * scoped, or added to a fresh stored snapshot that lacks it). Without: everything.
   */
  scope?: QueryRefs;
  /** A refresh: read again what the stored snapshot holds (the names it was read for), or everything. */
  refresh?: boolean;
}

/** Snapshots kept per environment; older ones go, with the plans cached against them. */
const KEPT_PER_ENVIRONMENT = 3;

/**
 * Per environment, the last call in line: calls are taken one after the other, so a caller arriving
 * while production is being read waits for that read and then finds its snapshot fresh.
 */
const queues = new Map<string, Promise<StoredSnapshot>>();
/** The latest snapshot per environment, parsed, so a warm run does not re-read a large jsonb. */
const latest = new Map<string, StoredSnapshot>();

/**
 * The environment's current snapshot: the stored one when fresh enough, else a new read of
 * production. 404 for an unknown environment, 409 when it has no production connection.
 */
export function currentSnapshot(services: Services, environmentId: string, options: SnapshotOptions): Promise<StoredSnapshot> {
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
      await currentSnapshot(services, environmentId, { maxAgeMs: 0, force: true, refresh: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const connections = await requireProductionConnections(services.store.db, services.secrets, environmentId, '').catch(() => []);
      console.error(`[snapshot] environment ${environmentId}: ${connections.reduce((text, c) => redactConnectionString(text, c.connectionString), message)}`);
    }
  });
}

async function decide(services: Services, environmentId: string, options: SnapshotOptions): Promise<StoredSnapshot> {
  const [production] = await requireProductionConnections(services.store.db, services.secrets, environmentId, 'so its schema and statistics can be read');
  const latestStored = await latestRow(services, environmentId, production.id);
  // A snapshot read with other schema filters is of other schemas: it is read again, whole or for these queries.
  const row = latestStored && sameFilters(latestStored.schemaFilters, production.schemaFilters) ? latestStored : undefined;
  if (row && !options.force && Date.now() - row.readAt.getTime() <= options.maxAgeMs) {
    const stored = await loadRow(services, environmentId, production.id, row);
    // A snapshot of everything serves every verdict; a scoped one grows with what its verdicts need.
    if (stored && !stored.snapshot.scope) return stored;
    if (stored && options.scope) {
      const missing = missingFrom(stored.snapshot, options.scope);
      if (!missing) return stored;
      const extended = await extendStored(services, stored, production, missing);
      if (extended) return extended;
    }
    // Everything is asked for: read below; an unchanged production keeps the stored snapshot's id.
  }
  // A stored scoped snapshot's names are read again with these: if production has not changed
  // for them, the new read keeps its id and every plan cached against it.
  const previous = row?.scope ? refsOfScope(row.scope) : undefined;
  let names: QueryRefs | undefined;
  if (options.refresh) names = previous;
  else if (options.scope) names = previous ? unionOf(options.scope, previous) : options.scope;
  return readAndStore(services, environmentId, production, names, row?.scope ? row : undefined);
}

const filterKey = (f: SchemaFilters | null | undefined) => JSON.stringify([[...(f?.includeSchemas ?? [])].sort(), [...(f?.excludeSchemas ?? [])].sort()]);
const sameFilters = (a: SchemaFilters | null | undefined, b: SchemaFilters | null | undefined) => filterKey(a) === filterKey(b);

const unionOf = (a: QueryRefs, b: QueryRefs): QueryRefs => {
  const uniq = <T>(list: T[]) => [...new Map(list.map((x) => [JSON.stringify(x), x])).values()];
  return { relations: uniq([...a.relations, ...b.relations]), functions: uniq([...a.functions, ...b.functions]), types: uniq([...a.types, ...b.types]) };
};

interface StoredRow {
  id: string;
  readAt: Date;
  digest: string;
  /** The stored snapshot's scope, read alone (a snapshot of everything can be large): null for one of everything. */
  scope: SnapshotScope | null;
  /** The schema filters it was read with; null for every schema. */
  schemaFilters: SchemaFilters | null;
}

/** The latest snapshot stored for the environment's production connection, whatever its age, without its content. */
async function latestRow(services: Services, environmentId: string, connectionId: string): Promise<StoredRow | undefined> {
  const [row] = await services.store.db
    .select({
      id: productionSnapshots.id,
      readAt: productionSnapshots.readAt,
      digest: productionSnapshots.digest,
      scope: sql<SnapshotScope | null>`${productionSnapshots.snapshot} -> 'scope'`,
      schemaFilters: sql<SchemaFilters | null>`${productionSnapshots.snapshot} -> 'schemaFilters'`,
    })
    .from(productionSnapshots)
    .where(and(eq(productionSnapshots.environmentId, environmentId), eq(productionSnapshots.connectionId, connectionId)))
    .orderBy(desc(productionSnapshots.readAt), desc(productionSnapshots.id))
    .limit(1);
  return row;
}

/** The production connection a snapshot is read from, with the schema filters it is read with. */
interface ProductionConnection {
  id: string;
  connectionString: string;
  schemaFilters?: SchemaFilters;
}

/** Every relation, type and function a scoped snapshot holds: a read that extends it skips them. */
function heldBy(snapshot: Snapshot) {
  const graph = snapshot.graph ?? { relations: {}, types: {}, functions: {} };
  return { relations: Object.keys(graph.relations), types: Object.keys(graph.types), functions: Object.keys(graph.functions) };
}

/**
 * A stored scoped snapshot with what it lacks read from production now and added, under its id.
 * What it held stays as it was read. Undefined when its row is gone (pruned meanwhile).
 */
async function extendStored(
  services: Services,
  stored: StoredSnapshot,
  production: ProductionConnection,
  missing: MissingScope,
): Promise<StoredSnapshot | undefined> {
  const more = await readSnapshot(production.connectionString, {
    schemaFilters: production.schemaFilters,
    scope: {
      names: missing.names,
      used: missing.used,
      needed: missing.needed,
      types: missing.types,
      functions: missing.functions,
      known: heldBy(stored.snapshot),
    },
  });
  const merged = mergeSnapshots(stored.snapshot, more);
  const digest = digestOf(merged);
  const updated = await services.store.db
    .update(productionSnapshots)
    .set({ snapshot: merged, digest })
    .where(eq(productionSnapshots.id, stored.id))
    .returning({ id: productionSnapshots.id });
  if (!updated.length) return undefined;
  const snapshot: StoredSnapshot = { ...stored, digest, snapshot: merged };
  latest.set(stored.environmentId, snapshot);
  return snapshot;
}

/** Write counters move with every write to production: they are not what makes plans differ. */
const digestOf = (snapshot: Snapshot) =>
  createHash('sha256')
    .update(JSON.stringify({ ...snapshot, writes: undefined }))
    .digest('hex');

/** A stored snapshot with its content (kept in memory for the latest one). Undefined when pruned meanwhile. */
async function loadRow(services: Services, environmentId: string, connectionId: string, row: StoredRow): Promise<StoredSnapshot | undefined> {
  const { db } = services.store;
  const known = latest.get(environmentId);
  if (known?.id === row.id && known.digest === row.digest) return { ...known, readAt: row.readAt };
  const [full] = await db.select({ snapshot: productionSnapshots.snapshot }).from(productionSnapshots).where(eq(productionSnapshots.id, row.id));
  if (!full) return undefined; // pruned meanwhile
  const snapshot: StoredSnapshot = { id: row.id, readAt: row.readAt, digest: row.digest, environmentId, connectionId, snapshot: full.snapshot as Snapshot };
  latest.set(environmentId, snapshot);
  return snapshot;
}

async function readAndStore(
  services: Services,
  environmentId: string,
  production: ProductionConnection,
  scope?: QueryRefs,
  previous?: StoredRow,
): Promise<StoredSnapshot> {
  const { db } = services.store;
  const read = await readSnapshot(production.connectionString, { schemaFilters: production.schemaFilters, ...(scope && { scope: { names: scope } }) });
  const digest = digestOf(read);
  const readAt = new Date();
  // The stored scoped snapshot, unchanged for all it holds: it takes this read's content (which
  // holds at least as much) under its id, so the plans cached against it stay.
  const before = previous ? await loadRow(services, environmentId, production.id, previous) : undefined;
  if (before && unchangedFor(before.snapshot, read)) {
    const [kept] = await db
      .update(productionSnapshots)
      .set({ readAt, digest, snapshot: read })
      .where(eq(productionSnapshots.id, before.id))
      .returning({ id: productionSnapshots.id });
    if (kept) {
      const snapshot: StoredSnapshot = { id: kept.id, environmentId, connectionId: production.id, readAt, digest, snapshot: read };
      latest.set(environmentId, snapshot);
      return snapshot;
    }
  }
  // Production unchanged since the last read: that snapshot, and every plan cached against it, stays valid.
  const [same] = await db
    .update(productionSnapshots)
    .set({ readAt })
    .where(
      and(eq(productionSnapshots.environmentId, environmentId), eq(productionSnapshots.connectionId, production.id), eq(productionSnapshots.digest, digest)),
    )
    .returning({ id: productionSnapshots.id });
  if (same) {
    const kept: StoredSnapshot = { id: same.id, environmentId, connectionId: production.id, readAt, digest, snapshot: read };
    latest.set(environmentId, kept);
    return kept;
  }
  const snapshot: StoredSnapshot = { id: newId('snap'), environmentId, connectionId: production.id, readAt, digest, snapshot: read };
  await db.transaction(async (tx) => {
    await tx.insert(productionSnapshots).values(snapshot);
    const newest = tx
      .select({ id: productionSnapshots.id })
      .from(productionSnapshots)
      .where(eq(productionSnapshots.environmentId, environmentId))
      .orderBy(desc(productionSnapshots.readAt), desc(productionSnapshots.id))
      .limit(KEPT_PER_ENVIRONMENT);
    await tx.delete(productionSnapshots).where(and(eq(productionSnapshots.environmentId, environmentId), notInArray(productionSnapshots.id, newest)));
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
