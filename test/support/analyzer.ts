// The analyzer as tests and benchmarks use it: which PostgreSQL majors to run, loading the real
// schema dumps with psql, and calling the analyzer over real HTTP (node:http, because fetch may not
// set Host).
import { SHARED_DATA_DIR } from './data';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PgMajor } from './postgres';
import { startAnalyzer, type RunningAnalyzer, type StartAnalyzerOptions } from '../../analyzer/app';

const run = promisify(execFile);

export const DATA_DIR = SHARED_DATA_DIR;
export const PAGILA_SQL = path.join(DATA_DIR, 'pagila-schema-no-pgvector.sql');
export const GITLAB_SQL = path.join(DATA_DIR, 'gitlab-structure.sql');

/**
 * GitLab's structure.sql as one tenant (written once into `folder`): its two partition schemas
 * folded into the schema it loads into, its extensions left out (created once, in schema
 * `extensions`, on the database's search_path: the dump names their operator classes unqualified).
 */
export function gitlabTenantSql(folder: string): string {
  const file = path.join(folder, 'gitlab-tenant.sql');
  if (!existsSync(file)) {
    const text = readFileSync(GITLAB_SQL, 'utf8')
      .replace(/^CREATE SCHEMA gitlab_partitions_(dynamic|static);\n\nCOMMENT ON SCHEMA gitlab_partitions_\1 IS .*\n/gm, '')
      .replace(/^CREATE EXTENSION IF NOT EXISTS \w+;\n/gm, '')
      .replaceAll('gitlab_partitions_dynamic.', '')
      .replaceAll('gitlab_partitions_static.', '');
    writeFileSync(file, text);
  }
  return file;
}

/** `npm test` runs 14 and 18; `npm run test:matrix` sets PG_MATRIX=14,15,16,17,18. */
export function majorsUnderTest(): PgMajor[] {
  const majors = (process.env.PG_MATRIX ?? '14,18')
    .split(',')
    .map((m) => Number(m.trim()))
    .filter((m): m is PgMajor => [14, 15, 16, 17, 18].includes(m));
  return majors.length ? majors : [14, 18];
}

/**
 * Loads a dump with psql as the README says. Pagila uses two PostgreSQL 18 features (uuidv7() and a
 * VIRTUAL generated column); on older servers they become gen_random_uuid() and STORED, which
 * create the same objects.
 */
export async function loadSqlFile(url: string, file: string, major: PgMajor): Promise<void> {
  let target = file;
  let tempDir: string | undefined;
  if (file === PAGILA_SQL && major < 18) {
    tempDir = mkdtempSync(path.join(tmpdir(), 'qt-pagila-'));
    target = path.join(tempDir, 'pagila.sql');
    const adapted = readFileSync(file, 'utf8')
      .replaceAll('uuidv7()', 'gen_random_uuid()')
      .replace(/\) VIRTUAL$/m, ') STORED');
    writeFileSync(target, adapted);
  }
  try {
    await run('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-q', '-d', url, '-f', target], { maxBuffer: 16 * 1024 * 1024 });
  } finally {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // The tests narrow it with the shared zod schemas or read fields they assert on.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One HTTP request to the analyzer, any header allowed (Host and Origin included). */
export function request(baseUrl: string, { method = 'GET', path: urlPath, headers = {}, body }: RawRequest): Promise<HttpAnswer> {
  const url = new URL(urlPath, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** POST /postgres with a JSON body, as the SPA sends it. */
export function postSync(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return request(baseUrl, { method: 'POST', path: '/postgres', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** An analyzer on a free port, logging into `logs` so tests can read what it wrote. */
export async function startTestAnalyzer(options: StartAnalyzerOptions = {}): Promise<RunningAnalyzer & { logs: string[] }> {
  const logs: string[] = [];
  const analyzer = await startAnalyzer({ port: 0, host: '127.0.0.1', webPort: 3000, env: {}, log: (line) => logs.push(line), ...options });
  return { ...analyzer, logs };
}

export interface TenantsOptions {
  /** Superuser SQL on the database being loaded (test/support/postgres.ts's server.query). */
  query: (sql: string) => Promise<unknown>;
  count: number;
  /** Schema names: `${prefix}1` ... */
  prefix?: string;
  /** The first number to load (the ones before are there already). Default 1. */
  first?: number;
  /** Runs after each copy is loaded and renamed, with its schema's name. */
  after?: (schema: string) => Promise<void>;
}

/**
 * Loads `count` copies of a dump whose objects go to schema public (Pagila, GitLab with its
 * partition schemas folded in) into schemas t1, t2...: each copy is loaded into a fresh public,
 * which is then renamed. Ends with an empty public, as a new database has.
 */
export async function loadTenants(url: string, file: string, major: PgMajor, options: TenantsOptions): Promise<void> {
  const prefix = options.prefix ?? 't';
  for (let i = options.first ?? 1; i < (options.first ?? 1) + options.count; i++) {
    await options.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public');
    await loadSqlFile(url, file, major);
    await options.query(`ALTER SCHEMA public RENAME TO ${prefix}${i}; CREATE SCHEMA public`);
    await options.after?.(`${prefix}${i}`);
  }
}

/** POST a JSON body to one of the analyzer's routes. */
export function postJson(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return request(baseUrl, { method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/**
 * The tests' stand-in for a database of tenants: Pagila in schemas t1..t{count - 1} and a last copy
 * with one more index (the same structure but for that), rows and statistics in t1, and
 * pg_stat_statements (in public, otherwise empty). Database `name` on `server`.
 */
export async function loadPagilaTenants(
  server: { major: PgMajor; createDatabase(name: string): Promise<string>; query(sql: string, params?: unknown[], database?: string): Promise<unknown> },
  { name = 'tenants', count = 4 }: { name?: string; count?: number } = {},
): Promise<string> {
  const url = await server.createDatabase(name);
  const query = (sql: string) => server.query(sql, [], name);
  await loadTenants(url, PAGILA_SQL, server.major, { count, query });
  await query(`CREATE INDEX actor_first_name_idx ON t${count}.actor (first_name)`);
  await query(`INSERT INTO t1.actor (first_name, last_name) SELECT 'First' || i, 'Last' || (i % 7) FROM generate_series(1, 300) i`);
  await query(`INSERT INTO t1.language (name) VALUES ('English'), ('Italian'), ('Japanese')`);
  await query('ANALYZE t1.actor, t1.language');
  await query('CREATE EXTENSION pg_stat_statements');
  return url;
}
