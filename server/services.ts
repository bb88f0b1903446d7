import { openStore, type Store } from './db/store';
import { createSecrets, loadKey, type Secrets } from './secrets';
import type { Config } from './config';
import type { Services } from './services-type';
import { openQueue } from './queue/index';
import { registerAnalysisJobs } from './analysis/jobs';
import { registerVerdictJobs } from './verdict/jobs';
import { registerSnapshotJobs } from './verdict/snapshots';
import { registerWebhookJobs } from './webhooks/jobs';
import { registerHistoryJobs } from './history/jobs';

/** Opens the store (applying migrations), loads the encryption key and starts taking jobs. */
export async function openServices(config: Config, options: { inMemory?: boolean } = {}): Promise<Services> {
  // the key first: a server that could not read the shared store's secrets must not start on it
  const secrets = createSecrets(loadKey({ secretKey: config.secretKey, dataDir: config.dataDir, sharedStore: Boolean(config.databaseUrl) }));
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: options.inMemory ? undefined : config.dataDir });
  return withJobs(store, secrets, config);
}

/**
 * The services of a server process on an open store: the job queue started on it and every kind of
 * background job registered, as every process does (any of them may run any job). Closing the store
 * stops taking jobs first; jobs running then are retried by another process (server/queue/).
 */
export async function withJobs(store: Store, secrets: Secrets, config: Config): Promise<Services> {
  const queue = await openQueue(store, config.jobs).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const close = async () => {
    await queue.stop();
    await store.close();
  };
  const services: Services = { store: { ...store, close }, secrets, config, queue };
  try {
    await registerVerdictJobs(services);
    await registerAnalysisJobs(services);
    await registerSnapshotJobs(services);
    await registerWebhookJobs(services);
    await registerHistoryJobs(services);
  } catch (error) {
    await close();
    throw error;
  }
  return services;
}
