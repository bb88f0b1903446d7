// Connection strings come from users and point at databases we treat as hostile, so we accept only
// what we need to reach a server and nothing that makes us read a file, pick a service definition or
// set session options: a libpq-style parser would open `sslrootcert=/some/fifo` while validating.
// Parsed with the WHATWG URL parser only (no Node imports), so the SPA, the server's zod schemas
// and the gateway all accept exactly the same strings.

/** How TLS is used: off, encrypted without checking the certificate, or encrypted and verified. */
export type TlsMode = 'disable' | 'no-verify' | 'verify-full';

export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
  tls: TlsMode;
  /** connect_timeout from the string, in seconds (the caller's own limit still applies). */
  connectTimeoutSeconds?: number;
}

export type ConnectionStringResult = { ok: true; value: PostgresTarget } | { ok: false; message: string };

/** Query parameters accepted, with what each may hold. application_name is accepted and ignored. */
export const ACCEPTED_PARAMETERS = ['sslmode', 'ssl', 'uselibpqcompat', 'connect_timeout', 'application_name'] as const;

const ACCEPTED_LIST = ACCEPTED_PARAMETERS.join(', ');

// Parameters that name a file (certificates, keys, password and service files): never read.
const FILE_PARAMETERS = new Set(['sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'sslcrl', 'sslcrldir', 'passfile', 'service', 'servicefile']);
// Parts of the URL itself, given a second time as a parameter.
const URL_PARTS: Record<string, string> = {
  host: 'host',
  hostaddr: 'host',
  port: 'port',
  user: 'user name',
  password: 'password',
  dbname: 'database',
  database: 'database',
};

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
type SslMode = (typeof SSL_MODES)[number];

// Host names, IPv4 addresses, and IPv6 addresses in brackets. Anything else (a Unix socket path,
// several hosts separated by commas, percent-encoded bytes) is refused.
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252})$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function refuseParameter(name: string): string {
  if (FILE_PARAMETERS.has(name)) {
    return `Connection string parameter "${name}" is not accepted: querytrail never reads files named in a connection string (certificates, keys, password or service files). Accepted parameters: ${ACCEPTED_LIST}.`;
  }
  if (name in URL_PARTS) {
    return `Connection string parameter "${name}" is not accepted: give the ${URL_PARTS[name]} in the URL itself (postgresql://user:password@host:5432/database).`;
  }
  if (name === 'options') {
    return `Connection string parameter "options" is not accepted: querytrail sets the session's options itself. Accepted parameters: ${ACCEPTED_LIST}.`;
  }
  return `Connection string parameter "${name.slice(0, 64)}" is not accepted. Accepted parameters: ${ACCEPTED_LIST}.`;
}

function decode(part: string, what: string): string | { error: string } {
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    return { error: `Connection string could not be parsed: the ${what} has an invalid percent-encoding` };
  }
  if (CONTROL.test(value)) return { error: `Connection string could not be parsed: the ${what} contains a control character` };
  return value;
}

/**
 * TLS from sslmode the way the pg driver reads it: by default every mode but disable verifies the
 * certificate; with uselibpqcompat=true, prefer and require encrypt without verifying, as libpq does.
 * verify-ca needs a CA file, which we never read.
 */
function tlsOf(params: Map<string, string>): TlsMode | { error: string } {
  const sslmode = params.get('sslmode');
  const ssl = params.get('ssl');
  const compat = params.get('uselibpqcompat');
  if (compat !== undefined && compat !== 'true' && compat !== 'false') return { error: 'Connection string parameter uselibpqcompat must be true or false' };
  if (ssl !== undefined && !['true', 'false', '1', '0', 'no-verify'].includes(ssl))
    return { error: 'Connection string parameter ssl must be true, false, 1, 0 or no-verify' };
  if (sslmode !== undefined) {
    if (!(SSL_MODES as readonly string[]).includes(sslmode)) return { error: `Connection string parameter sslmode must be one of ${SSL_MODES.join(', ')}` };
    const mode = sslmode as SslMode;
    if (mode === 'disable') return 'disable';
    if (mode === 'no-verify') return 'no-verify';
    if (compat === 'true') {
      if (mode === 'verify-ca') {
        return {
          error:
            'sslmode=verify-ca needs a CA file (sslrootcert), which querytrail does not accept; use sslmode=verify-full, which checks the certificate against the system CAs.',
        };
      }
      return mode === 'prefer' || mode === 'require' ? 'no-verify' : 'verify-full';
    }
    return 'verify-full';
  }
  if (ssl === 'true' || ssl === '1') return 'verify-full';
  if (ssl === 'no-verify') return 'no-verify';
  return 'disable';
}

/** Parses and checks a postgres:// URL without touching anything outside this function. */
export function parseConnectionString(input: string): ConnectionStringResult {
  const value = input.trim();
  if (!/^postgres(ql)?:\/\//i.test(value)) return { ok: false, message: 'Connection string must start with postgres:// or postgresql://' };
  if (CONTROL.test(value)) return { ok: false, message: 'Connection string could not be parsed: it contains a control character' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return {
      ok: false,
      message:
        'Connection string could not be parsed: it is not a valid URL (is the port a number up to 65535, and are special characters in the password percent-encoded?)',
    };
  }
  if (url.hash) return { ok: false, message: 'Connection string could not be parsed: it has a #fragment' };

  const params = new Map<string, string>();
  for (const [name, paramValue] of url.searchParams) {
    if (!(ACCEPTED_PARAMETERS as readonly string[]).includes(name)) return { ok: false, message: refuseParameter(name) };
    if (params.has(name)) return { ok: false, message: `Connection string parameter "${name}" is given twice` };
    if (CONTROL.test(paramValue)) return { ok: false, message: `Connection string parameter "${name}" contains a control character` };
    params.set(name, paramValue);
  }

  const hostname = url.hostname;
  if (!hostname) return { ok: false, message: 'Connection string must name a host' };
  if (!HOST_NAME.test(hostname) && !IPV6.test(hostname)) {
    return {
      ok: false,
      message:
        'Connection string must name one host: a host name, an IPv4 address or an IPv6 address in brackets (Unix socket paths and lists of hosts are not accepted)',
    };
  }
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const port = url.port ? Number(url.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, message: 'Connection string has an invalid port' };

  const database = decode(url.pathname.slice(1), 'database name');
  if (typeof database !== 'string') return { ok: false, message: database.error };
  if (!database) return { ok: false, message: 'Connection string must name a database' };
  const user = decode(url.username, 'user name');
  if (typeof user !== 'string') return { ok: false, message: user.error };
  const password = decode(url.password, 'password');
  if (typeof password !== 'string') return { ok: false, message: password.error };

  const tls = tlsOf(params);
  if (typeof tls !== 'string') return { ok: false, message: tls.error };

  let connectTimeoutSeconds: number | undefined;
  const timeout = params.get('connect_timeout');
  if (timeout !== undefined) {
    if (!/^\d{1,6}$/.test(timeout)) return { ok: false, message: 'Connection string parameter connect_timeout must be a whole number of seconds' };
    connectTimeoutSeconds = Number(timeout);
  }

  return {
    ok: true,
    value: {
      host,
      port,
      database,
      ...(user ? { user } : {}),
      ...(password ? { password } : {}),
      tls,
      ...(connectTimeoutSeconds !== undefined ? { connectTimeoutSeconds } : {}),
    },
  };
}
