// The real web server in a child process, for component tests running in jsdom.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A person signed in on a team server: the cookie their browser would hold and the session's CSRF token. */
export interface TestSession {
  email: string;
  cookie: string;
  csrfToken: string;
}

export interface ApiServer {
  url: string;
  /** The real analyzer, when started with { analyzer: true }. */
  analyzerUrl?: string;
  /** A real PostgreSQL database with 20,000 orders (test/support/shop.ts), when started with { production: true }. */
  productionUrl?: string;
  trpcUrl: string;
  /** A REST call as curl would make it, for arranging data (on a team server, with the break-glass API_TOKEN: as an admin). */
  api<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A REST call as a signed-in person's browser makes it (cookie, Origin and CSRF token). */
  apiAs<T = unknown>(session: TestSession, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Team servers ({ team: true }): signs a person in as the identity provider's callback does; `admin` as ADMIN_EMAILS would. */
  signIn(email: string, options?: { name?: string; admin?: boolean }): Promise<TestSession>;
  close(): Promise<void>;
}

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'api-server.ts');

/**
 * statStatements: production preloads pg_stat_statements (with the extension created), for
 * production history. team: a team server (API_TOKEN set) where people sign in (signIn);
 * identityProvider: one whose /auth/config says it has an identity provider (none answers there).
 */
export async function startApiServer({
  analyzer = false,
  production = false,
  statStatements = false,
  team = false,
  identityProvider = false,
} = {}): Promise<ApiServer> {
  const args = [
    '--import',
    'tsx',
    script,
    ...(analyzer ? ['--analyzer'] : []),
    ...(production ? ['--production'] : []),
    ...(statStatements ? ['--stat-statements'] : []),
    ...(team || identityProvider ? ['--team'] : []),
    ...(identityProvider ? ['--oidc'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  type Started = { url: string; analyzerUrl?: string; productionUrl?: string; controlUrl?: string; apiToken?: string };
  const { url, analyzerUrl, productionUrl, controlUrl, apiToken } = await new Promise<Started>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Started);
    });
    child.on('exit', (code) => reject(new Error(`API server exited with ${code}`)));
  });
  const request = async <T>(method: string, route: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${url}/api${route}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return {
    url,
    analyzerUrl,
    productionUrl,
    trpcUrl: `${url}/trpc`,
    api: (method, route, body) => request(method, route, body, apiToken ? { authorization: `Bearer ${apiToken}` } : {}),
    apiAs: (session, method, route, body) => request(method, route, body, { cookie: session.cookie, origin: url, 'x-csrf-token': session.csrfToken }),
    async signIn(email, options = {}) {
      if (!controlUrl) throw new Error('signIn needs a team server: startApiServer({ team: true })');
      const response = await fetch(controlUrl, { method: 'POST', body: JSON.stringify({ email, ...options }) });
      if (!response.ok) throw new Error(`Signing in ${email} failed: ${await response.text()}`);
      return { email, ...((await response.json()) as { cookie: string; csrfToken: string }) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
