// The analyzer hands a database's contents to whoever calls it, so no web page the user happens to
// visit may call it. Three checks, before any route runs:
// - Host: a page on evil.example can rebind its DNS name to 127.0.0.1 and become "same origin";
//   its requests still carry Host: evil.example, which we refuse (DNS rebinding).
// - Origin: a browser request from an origin not configured is refused outright, not only left
//   unreadable by CORS, so it cannot even trigger a connection to a database.
// - Preflight: allowed origins get CORS and Private Network Access answers (Chrome asks before a
//   public page reaches a local address).
// Callers without an Origin header (curl, the web server, tests) pass the Origin check.
import type { RequestHandler } from 'express';
import { sendError } from '../shared/errors';

interface AccessOptions {
  allowedOrigins: string[];
  allowedHosts: string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Origins compare as scheme://host[:port], lower case, without a trailing slash. */
function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** Host header value without its port: "localhost:2345" -> "localhost", "[::1]:2345" -> "[::1]". */
function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  return value.split(':')[0] ?? '';
}

export interface AccessConfigInput {
  /** Port of the web app the analyzer runs beside (env PORT, default 3000). */
  webPort?: number;
  /** The address the analyzer listens on: a specific one is also a valid Host. */
  listenHost?: string;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  env?: NodeJS.ProcessEnv;
}

/** Defaults plus ANALYZER_ALLOWED_ORIGINS and ANALYZER_ALLOWED_HOSTS (comma-separated lists). */
export function accessOptions(input: AccessConfigInput = {}): AccessOptions {
  const env = input.env ?? process.env;
  const webPort = input.webPort ?? (Number(env.PORT) || 3000);
  const origins = [`http://localhost:${webPort}`, `http://127.0.0.1:${webPort}`, ...list(env.ANALYZER_ALLOWED_ORIGINS), ...(input.allowedOrigins ?? [])];
  const listen =
    input.listenHost && !['0.0.0.0', '::'].includes(input.listenHost) ? [input.listenHost.includes(':') ? `[${input.listenHost}]` : input.listenHost] : [];
  const hosts = [...LOOPBACK_HOSTS, ...listen, ...list(env.ANALYZER_ALLOWED_HOSTS), ...(input.allowedHosts ?? [])];
  return {
    allowedOrigins: [...new Set(origins.map(normalizeOrigin))],
    allowedHosts: [...new Set(hosts.map((h) => h.toLowerCase()))],
  };
}

export function accessGuard(options: AccessOptions): RequestHandler {
  const origins = new Set(options.allowedOrigins);
  const hosts = new Set(options.allowedHosts);
  return (req, res, next) => {
    res.vary('Origin');
    const host = hostnameOf(req.headers.host ?? '');
    if (!hosts.has(host)) {
      sendError(res, {
        status: 403,
        code: 'host_not_allowed',
        message: `Host "${host}" is not allowed. Add it to ANALYZER_ALLOWED_HOSTS to reach the analyzer under that name.`,
      });
      return;
    }
    const origin = req.headers.origin;
    if (origin === undefined) {
      next();
      return;
    }
    if (!origins.has(normalizeOrigin(origin))) {
      sendError(res, {
        status: 403,
        code: 'origin_not_allowed',
        message: `Origin ${origin} is not allowed. Add it to ANALYZER_ALLOWED_ORIGINS to call the analyzer from that page.`,
      });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
      res.setHeader('Access-Control-Max-Age', '600');
      if (req.headers['access-control-request-private-network'] === 'true') {
        res.setHeader('Access-Control-Allow-Private-Network', 'true');
      }
      res.status(204).end();
      return;
    }
    next();
  };
}
