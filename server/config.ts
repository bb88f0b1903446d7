// Everything the server reads from the environment, read once, with the documented defaults.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  analyzerPort: number;
  dataDir: string;
  databaseUrl?: string;
  secretKey?: string;
  apiToken?: string;
  allowUnauthenticated: boolean;
  /** Host names the server answers to besides loopback and HOST (ALLOWED_HOSTS, lower case; a port given is ignored). */
  allowedHosts: string[];
  /** Largest accepted request body, in bytes (after gzip inflation). */
  maxBodyBytes: number;
  /** A production snapshot (schema + statistics) older than this is read again before a CI run is planned. */
  snapshotMaxAgeSeconds: number;
  /** Shadow servers kept started between analyses (0: each analysis starts and stops its own). */
  warmShadows: number;
  /** A warm shadow unused this long is stopped. */
  warmShadowIdleSeconds: number;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

function count(value: string | undefined, fallback: number, name: string): number {
  const raw = value?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(raw);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: port(env.PORT, 3000, 'PORT'),
    host: env.HOST || '127.0.0.1',
    analyzerPort: port(env.ANALYZER_PORT, 2345, 'ANALYZER_PORT'),
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    secretKey: env.SECRET_KEY || undefined,
    apiToken: env.API_TOKEN || undefined,
    allowUnauthenticated: env.ALLOW_UNAUTHENTICATED === '1',
    allowedHosts: (env.ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    maxBodyBytes: Number(env.MAX_BODY_BYTES) > 0 ? Number(env.MAX_BODY_BYTES) : 5 * 1024 * 1024,
    snapshotMaxAgeSeconds: count(env.SNAPSHOT_MAX_AGE_SECONDS, 3600, 'SNAPSHOT_MAX_AGE_SECONDS'),
    warmShadows: count(env.WARM_SHADOWS, 2, 'WARM_SHADOWS'),
    warmShadowIdleSeconds: count(env.WARM_SHADOW_IDLE_SECONDS, 600, 'WARM_SHADOW_IDLE_SECONDS'),
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || host.startsWith('127.');

/** Refuses to serve data to the network without a token unless the operator said so. */
export function checkExposure(config: Config): string | undefined {
  if (isLoopback(config.host) || config.apiToken || config.allowUnauthenticated) return undefined;
  return `Refusing to listen on ${config.host} without API_TOKEN: anyone on the network could read and change your environments. Set API_TOKEN, or ALLOW_UNAUTHENTICATED=1 to accept that.`;
}
