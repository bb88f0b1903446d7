// Warm shadow servers: started scratch PostgreSQL clusters kept between analyses, so a CI run's
// verdict does not wait for initdb and a server start (seconds) before its first plan. Bounded: at
// most `max` exist at once (idle or lent); past that an analysis gets none and the advisor starts
// and stops its own, as it always did. An idle one is stopped after `idleMs`; all are stopped when
// the server shuts down. A server holds no user data (see docs/security.md), only what an
// analysis left in its own database, which the advisor drops when it finishes.
import { keptKeyOf, startShadowServer, type ShadowServer } from '../../advisor/index';
import type { Config } from '../config';

export interface WarmShadowLimits {
  /** Servers kept (idle plus lent); 0 keeps none. */
  max: number;
  idleMs: number;
}

interface Idle {
  server: ShadowServer;
  timer: NodeJS.Timeout;
}

export class WarmShadows {
  private idle: Idle[] = [];
  /** Lent out, or being started for a borrower. */
  private inUse = 0;
  private closed = false;
  private readonly stopping = new Set<Promise<void>>();

  constructor(
    readonly limits: WarmShadowLimits,
    private readonly start: () => Promise<ShadowServer> = () => startShadowServer(),
    /** Which kept database a server holds (advisor's kept-shadows.ts). */
    private readonly keyOf: (server: ShadowServer) => string | undefined = keptKeyOf,
  ) {}

  /** How many servers are started now (idle or lent), for tests and the bench. */
  get size(): number {
    return this.idle.length + this.inUse;
  }

  /**
   * Runs `fn` with a warm server (an idle one keeping the database of `reuseKey`, else the most
   * recently used idle one, else a new one while under the bound), or with none past the bound. A
   * server whose analysis threw is stopped rather than kept: whatever went wrong may have been the
   * server.
   */
  async use<T>(fn: (shadow: ShadowServer | undefined) => Promise<T>, reuseKey?: string): Promise<T> {
    const server = await this.take(reuseKey);
    if (!server) return fn(undefined);
    let ok = false;
    try {
      const result = await fn(server);
      ok = true;
      return result;
    } finally {
      this.inUse--;
      if (ok && !this.closed) this.keep(server);
      else this.stop(server);
    }
  }

  /** Stops every idle server now, and each lent one when it comes back. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { server, timer } of this.idle.splice(0)) {
      clearTimeout(timer);
      this.stop(server);
    }
    await Promise.all([...this.stopping]);
  }

  private async take(reuseKey: string | undefined): Promise<ShadowServer | undefined> {
    // A run's own schema and production's are two keys: with two servers each keeps one.
    const holding = reuseKey === undefined ? -1 : this.idle.findIndex((i) => this.keyOf(i.server) === reuseKey);
    const [last] = holding >= 0 ? this.idle.splice(holding, 1) : this.idle.splice(-1, 1);
    if (last) {
      clearTimeout(last.timer);
      this.inUse++;
      return last.server;
    }
    if (this.closed || this.size >= this.limits.max) return undefined;
    this.inUse++;
    try {
      return await this.start();
    } catch (error) {
      this.inUse--;
      throw error;
    }
  }

  private keep(server: ShadowServer): void {
    const timer = setTimeout(() => {
      this.idle = this.idle.filter((i) => i.server !== server);
      this.stop(server);
    }, this.limits.idleMs);
    // an idle shadow must not keep the process alive
    timer.unref();
    this.idle.push({ server, timer });
  }

  private stop(server: ShadowServer): void {
    const stopped = server
      .stop()
      .catch(() => undefined)
      .finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }
}

let shared: WarmShadows | undefined;

/** The process-wide pool, sized from the config the first time it is asked for. */
export function warmShadows(config: Pick<Config, 'warmShadows' | 'warmShadowIdleSeconds'>): WarmShadows {
  shared ??= new WarmShadows({ max: config.warmShadows, idleMs: config.warmShadowIdleSeconds * 1000 });
  return shared;
}

/** Stops the process-wide pool's servers (on shutdown); a later warmShadows() starts a new pool. */
export async function closeWarmShadows(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
