import { openStore } from './db/store';
import { createSecrets, loadKey } from './secrets';
import type { Config } from './config';
import type { Services } from './trpc';
import { failInterruptedAnalyses } from './analysis/jobs';

/** Opens the store (applying migrations) and loads the encryption key. */
export async function openServices(config: Config, options: { inMemory?: boolean } = {}): Promise<Services> {
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: options.inMemory ? undefined : config.dataDir });
  const secrets = createSecrets(loadKey({ secretKey: config.secretKey, dataDir: config.dataDir }));
  await failInterruptedAnalyses(store.db);
  return { store, secrets, config };
}
