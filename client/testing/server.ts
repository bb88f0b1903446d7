// The real web server in a child process, for component tests running in jsdom.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ApiServer {
  url: string;
  /** The real analyzer, when started with { analyzer: true }. */
  analyzerUrl?: string;
  /** A real PostgreSQL database with 20,000 orders (test/support/shop.ts), when started with { production: true }. */
  productionUrl?: string;
  trpcUrl: string;
  /** A REST call as curl would make it, for arranging data. */
  api<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'api-server.ts');

/** statStatements: production preloads pg_stat_statements (with the extension created), for production history. */
export async function startApiServer({ analyzer = false, production = false, statStatements = false } = {}): Promise<ApiServer> {
  const args = ['--import', 'tsx', script, ...(analyzer ? ['--analyzer'] : []), ...(production ? ['--production'] : []), ...(statStatements ? ['--stat-statements'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  type Started = { url: string; analyzerUrl?: string; productionUrl?: string };
  const { url, analyzerUrl, productionUrl } = await new Promise<Started>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Started);
    });
    child.on('exit', (code) => reject(new Error(`API server exited with ${code}`)));
  });
  return {
    url,
    analyzerUrl,
    productionUrl,
    trpcUrl: `${url}/trpc`,
    async api<T>(method: string, route: string, body?: unknown) {
      const response = await fetch(`${url}/api${route}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
