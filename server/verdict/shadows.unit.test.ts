// The warm shadow pool's bookkeeping, with stand-in servers that only count starts and stops (the
// real servers are exercised by jobs.test.ts): bounded, reused, stopped when idle, when their
// analysis failed, and on close.
import { describe, expect, it } from 'vitest';
import type { ShadowServer } from '../../advisor/index';
import { WarmShadows } from './shadows';

function counter() {
  const stats = { started: 0, stopped: 0 };
  const start = async (): Promise<ShadowServer> => {
    stats.started++;
    return { dataDir: `/tmp/shadow-${stats.started}`, connection: () => ({}), stop: async () => void stats.stopped++ };
  };
  return { stats, start };
}

describe('warm shadow servers', () => {
  it('reuses an idle server, and past the bound lends none', async () => {
    const { stats, start } = counter();
    const pool = new WarmShadows({ max: 1, idleMs: 60_000 }, start);
    const first = await pool.use(async (s) => s);
    expect(await pool.use(async (s) => s)).toBe(first);
    expect(stats.started).toBe(1);
    await pool.use(async (outer) => {
      expect(outer).toBe(first);
      // a second analysis at the same time gets none: the advisor starts and stops its own
      expect(await pool.use(async (inner) => inner)).toBeUndefined();
    });
    expect(pool.size).toBe(1);
    await pool.close();
    expect(stats.stopped).toBe(1);
    expect(await pool.use(async (s) => s)).toBeUndefined();
  });

  it('stops a server whose analysis threw, and one left idle too long', async () => {
    const { stats, start } = counter();
    const pool = new WarmShadows({ max: 2, idleMs: 1 }, start);
    await expect(pool.use(async () => Promise.reject(new Error('shadow broke')))).rejects.toThrow('shadow broke');
    expect(stats).toEqual({ started: 1, stopped: 1 });
    await pool.use(async () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stats).toEqual({ started: 2, stopped: 2 });
    expect(pool.size).toBe(0);
  });

  it('keeps none with a bound of 0', async () => {
    const { stats, start } = counter();
    const pool = new WarmShadows({ max: 0, idleMs: 60_000 }, start);
    expect(await pool.use(async (s) => s)).toBeUndefined();
    expect(stats.started).toBe(0);
  });

  it('lends the idle server that keeps the database of the asked key, else the most recent one', async () => {
    const { start } = counter();
    const keys = new Map<ShadowServer, string>();
    const pool = new WarmShadows({ max: 2, idleMs: 60_000 }, start, (s) => keys.get(s));
    // two servers at once, one keeping the run's schema, the other production's own
    const [runServer, productionServer] = await pool.use(async (a) => [a!, await pool.use(async (b) => b!)]);
    keys.set(runServer, 'run-schema');
    keys.set(productionServer, 'production');
    expect(await pool.use(async (s) => s, 'run-schema')).toBe(runServer);
    expect(await pool.use(async (s) => s, 'production')).toBe(productionServer);
    expect(await pool.use(async (s) => s, 'run-schema')).toBe(runServer);
    // an unknown key takes the most recently used one
    expect(await pool.use(async (s) => s, 'another')).toBe(runServer);
    await pool.close();
  });
});
