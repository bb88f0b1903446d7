// How many analyses may use a shadow PostgreSQL at once. Each one is a whole cluster (or a
// database on a shared one) that takes memory and a core while it plans; without a cap, every
// POST /postgres/analyze would start another. Analyses beyond the cap wait in a short queue; when
// that is full too the request is refused at once with ShadowBusyError (HTTP 503) instead of
// queueing without end.
import { ShadowBusyError } from './busy.js';

export interface ShadowLimits {
  /** Analyses running at once. */
  maxConcurrent: number;
  /** Analyses waiting for a slot; one more is refused. */
  queue: number;
}

const DEFAULT_SHADOW_LIMITS: ShadowLimits = { maxConcurrent: 2, queue: 8 };

/** The one place the limits are read from the environment: SHADOW_MAX_CONCURRENT, SHADOW_QUEUE. */
export function shadowLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ShadowLimits {
  const read = (name: string, fallback: number, min: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
    return Number(raw);
  };
  return {
    maxConcurrent: read('SHADOW_MAX_CONCURRENT', DEFAULT_SHADOW_LIMITS.maxConcurrent, 1),
    queue: read('SHADOW_QUEUE', DEFAULT_SHADOW_LIMITS.queue, 0),
  };
}

export class ShadowSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limits: ShadowLimits) {}

  /**
   * Runs `fn` in a slot. Takes a free slot synchronously, so of two calls made back to back with
   * one slot left the second is the one that waits or is refused.
   */
  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.limits.maxConcurrent) {
      this.active++;
      return this.release(fn);
    }
    if (this.waiting.length >= this.limits.queue) return Promise.reject(new ShadowBusyError());
    // The slot is handed over by the finishing analysis: `active` stays as it is.
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.release(fn));
  }

  private async release<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

let shared: ShadowSlots | undefined;

/** The process-wide slots every analysis takes unless its options bring their own. */
export function sharedShadowSlots(): ShadowSlots {
  shared ??= new ShadowSlots(shadowLimitsFromEnv());
  return shared;
}
