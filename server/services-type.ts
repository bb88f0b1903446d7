// What every server process holds once started, and every job and domain function is handed: its own
// module so that they need not import the transport (tRPC) to name it.
import type { Config } from './config';
import type { Store } from './db/store';
import type { RunningQueue } from './queue/index';
import type { Secrets } from './secrets';

export interface Services {
  store: Store;
  secrets: Secrets;
  config: Config;
  /** The durable job queue shared by every server process on the store (server/queue/). */
  queue: RunningQueue;
}
