// The demo's life: made once (idempotent by its marker), its PostgreSQL started with the server and
// stopped with it while the demo's environment exists, removed whole (environment, runs, folder).
// One state per DATA_DIR in this process; one making at a time.
import { rmSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { environments } from '../db/schema';
import type { Db } from '../db/store';
import { addConnection, removeConnection } from '../domain/connections';
import { deleteEnvironment, readEnvironment } from '../domain/environments';
import { conflict, upstream } from '../errors';
import { AnalyzerHttpError } from '../../analyzer/errors';
import { syncDatabase } from '../../analyzer/sync';
import { syncRequestSchema, type RemoteSyncResponse } from '../../shared/analyzer-schema';
import type { Services } from '../services-type';
import { readMarker, removeMarker, writeMarker, type DemoMarker } from './marker';
import { closeDataDir, demoDataDir, freePort, startDemoPostgres, type DemoPostgres } from './postgres';
import { freshSteps, type DemoStatus, type DemoStep } from './status';
import { DEMO_CONNECTION_LABEL, deleteDemoRuns, makeDemo, readerConnectionString, stepRunner } from './steps';

interface DemoState {
  making?: Promise<void>;
  removing?: boolean;
  steps?: DemoStep[];
  startedAt?: string;
  error?: string;
  postgres?: DemoPostgres;
  /** The server being started again (at boot, or when the demo is asked for while it is stopped). */
  restarting?: Promise<void>;
  /** The server is shutting down: a making cut short is left for the next start to clean up. */
  closing?: boolean;
}

const states = new Map<string, DemoState>();
const stateOf = (dataDir: string): DemoState => {
  let state = states.get(dataDir);
  if (!state) states.set(dataDir, (state = {}));
  return state;
};

const log = (line: string) => console.log(line);

async function environmentExists(db: Db, id: string | null): Promise<boolean> {
  if (!id) return false;
  const [row] = await db.select({ id: environments.id }).from(environments).where(eq(environments.id, id));
  return Boolean(row);
}

/** Stops the server and removes everything a demo made: its runs, its environment, its folder, its marker. */
async function tearDown(services: Services, marker: DemoMarker | undefined): Promise<void> {
  const { db } = services.store;
  const { dataDir } = services.config;
  const state = stateOf(dataDir);
  await state.restarting?.catch(() => undefined);
  await state.postgres?.stop();
  state.postgres = undefined;
  const environmentId = marker?.environmentId ?? null;
  await deleteDemoRuns(db, environmentId);
  if (environmentId && (await environmentExists(db, environmentId))) await deleteEnvironment(db, environmentId);
  rmSync(demoDataDir(dataDir), { recursive: true, force: true });
  removeMarker(dataDir);
  closeDataDir(dataDir);
}

/**
 * Starts the demo's server from its marker, on its port when free, else on another one (and the
 * environment's connection is replaced to say so).
 */
async function restart(services: Services, marker: DemoMarker): Promise<void> {
  const { dataDir } = services.config;
  const state = stateOf(dataDir);
  if (state.postgres && !state.postgres.exited()) return;
  state.restarting ??= (async () => {
    const port = await freePort(marker.port);
    // the superuser password is needed only by initdb, which does not run again
    state.postgres = await startDemoPostgres(dataDir, port, '');
    if (port !== marker.port && marker.environmentId) {
      const env = await readEnvironment(services.store.db, marker.environmentId, services.config.snapshotIntervalSeconds);
      const old = env.connections.find((c) => c.label === DEMO_CONNECTION_LABEL);
      const password = services.secrets.decrypt(marker.readerPasswordSealed);
      await addConnection(services.store.db, services.secrets, {
        id: marker.environmentId,
        label: DEMO_CONNECTION_LABEL,
        role: 'production',
        connectionString: readerConnectionString(port, password),
      });
      if (old) await removeConnection(services.store.db, marker.environmentId, old.id);
      writeMarker(dataDir, { ...marker, port });
    }
    log(`demo: PostgreSQL of "Pagila demo" started on 127.0.0.1:${port}`);
  })().finally(() => (state.restarting = undefined));
  await state.restarting;
}

export async function demoStatus(services: Services): Promise<DemoStatus> {
  const { dataDir } = services.config;
  const state = stateOf(dataDir);
  const marker = readMarker(dataDir);
  const database: DemoStatus['database'] = state.postgres && !state.postgres.exited() ? 'running' : state.restarting || state.making ? 'starting' : 'stopped';
  const base = {
    database,
    environmentId: marker?.environmentId ?? null,
    baselineRunId: marker?.baselineRunId ?? null,
    pullRequestRunId: marker?.pullRequestRunId ?? null,
    startedAt: marker?.startedAt ?? state.startedAt ?? null,
    durationMs: marker?.durationMs ?? null,
    error: state.error ?? null,
  };
  if (state.removing) return { ...base, state: 'removing', steps: state.steps ?? marker?.steps ?? [] };
  if (state.making) return { ...base, state: 'starting', steps: state.steps! };
  if (state.error) return { ...base, state: 'failed', steps: state.steps ?? [] };
  if (marker?.state === 'ready' && (await environmentExists(services.store.db, marker.environmentId))) {
    return { ...base, state: 'ready', steps: marker.steps };
  }
  return {
    ...base,
    state: 'absent',
    database: 'stopped',
    environmentId: null,
    baselineRunId: null,
    pullRequestRunId: null,
    startedAt: null,
    durationMs: null,
    steps: freshSteps(),
  };
}

/**
 * Makes the demo in the background and answers at once; when it is made already, starts its
 * server if stopped and changes nothing else. What a failed or interrupted making left (or a demo
 * whose environment was deleted by hand) is removed first.
 */
export async function startDemo(services: Services): Promise<DemoStatus> {
  const { dataDir } = services.config;
  const state = stateOf(dataDir);
  state.closing = false;
  if (state.making) return demoStatus(services);
  if (state.removing) throw conflict('The demo is being removed; start it again once that is done');
  const marker = readMarker(dataDir);
  if (marker?.state === 'ready' && (await environmentExists(services.store.db, marker.environmentId))) {
    state.error = undefined;
    void restart(services, marker).catch((error: unknown) => (state.error = `The demo's PostgreSQL did not start: ${(error as Error).message}`));
    return demoStatus(services);
  }
  const steps = freshSteps();
  Object.assign(state, { steps, startedAt: new Date().toISOString(), error: undefined });
  state.making = (async () => {
    try {
      await tearDown(services, marker);
      const made = await makeDemo(services, stepRunner(steps, log), (postgres) => (state.postgres = postgres));
      state.postgres = made.postgres;
      log(`demo: ready in ${((made.marker.durationMs ?? 0) / 1000).toFixed(1)} s`);
    } catch (error) {
      state.error = (error as Error).message;
      if (state.closing) return;
      log(`demo: failed: ${state.error}`);
      // nothing half made stays: the next start begins from scratch
      await tearDown(services, readMarker(dataDir)).catch((e: unknown) => log(`demo: cleaning up failed: ${(e as Error).message}`));
    } finally {
      state.making = undefined;
    }
  })();
  return demoStatus(services);
}

/** Removes the demo: its environment (and catalog), its CI runs, its server and its data folder. */
export async function removeDemo(services: Services): Promise<void> {
  const { dataDir } = services.config;
  const state = stateOf(dataDir);
  if (state.making) throw conflict('The demo is being made; remove it once it is ready');
  if (state.removing) return;
  state.removing = true;
  try {
    await tearDown(services, readMarker(dataDir));
    Object.assign(state, { steps: undefined, error: undefined, startedAt: undefined });
  } finally {
    state.removing = false;
  }
}

/**
 * At server start: a made demo whose environment still exists gets its server back; anything else
 * a demo left (an interrupted making, an environment deleted by hand) is removed.
 */
export async function restoreDemo(services: Services): Promise<void> {
  stateOf(services.config.dataDir).closing = false;
  const marker = readMarker(services.config.dataDir);
  if (!marker) return;
  if (marker.state === 'ready' && (await environmentExists(services.store.db, marker.environmentId))) {
    await restart(services, marker);
    return;
  }
  await tearDown(services, marker);
  log('demo: removed what an unfinished or deleted demo left');
}

/** Stops every demo server this process started (at shutdown); their folders stay for the next start. */
export async function closeDemos(): Promise<void> {
  await Promise.all(
    [...states.values()].map(async (state) => {
      state.closing = true;
      await state.restarting?.catch(() => undefined);
      await state.postgres?.stop();
      state.postgres = undefined;
    }),
  );
}

/**
 * The analyzer's read of the demo database (POST /postgres), run by the server: the demo's
 * connection string stays sealed on the server, the browser gets the schema and statistics.
 */
export async function syncDemo(services: Services): Promise<RemoteSyncResponse> {
  const marker = readMarker(services.config.dataDir);
  if (marker?.state !== 'ready' || !(await environmentExists(services.store.db, marker.environmentId))) {
    throw conflict('There is no demo database yet: start the demo first (POST /demo)');
  }
  await restart(services, marker);
  const port = readMarker(services.config.dataDir)?.port ?? marker.port;
  const db = readerConnectionString(port, services.secrets.decrypt(marker.readerPasswordSealed));
  try {
    return await syncDatabase(syncRequestSchema.parse({ db }));
  } catch (error) {
    if (error instanceof AnalyzerHttpError) throw upstream(`The demo database could not be read: ${error.message}`);
    throw error;
  }
}
