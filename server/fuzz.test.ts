// Malformed input on every route, on PGlite and on PostgreSQL: every answer is a 4xx in the one
// error shape, never a 5xx, and the store is exactly as it was. The REST routes are read from the
// OpenAPI document the server serves and the tRPC procedures from the router, so a new route is
// fuzzed without touching this file. Every request carries at least one value its route must
// refuse (a NUL, a lone surrogate, a dot segment, a number beyond its column, an impossible date,
// a wrong type, 10,000 levels of nesting, ...), often beside other odd but acceptable values.
// Seeded and bounded: FUZZ_SEED and FUZZ_PER_ROUTE change the run; a failure names its case.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { appRouter } from './routers/root';
import { rowsOf } from './catalog/sql';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 60);
const PER_PROCEDURE = Number(process.env.FUZZ_PER_PROCEDURE ?? 20);
/** Thousands of requests: seconds on a quiet machine, minutes on one busy with other work. */
const FUZZ_TIMEOUT_MS = 300_000;

afterAll(() => stopTestPostgres());

// ------------------------------------------------------------------------------ seeded choices

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof random>;

// ------------------------------------------------------------------------------ values

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  anyOf?: Schema[];
}

/** What the seeded store holds, so that everything but the one bad value can be right. */
interface Known {
  envId: string;
  connectionId: string;
  runId: string;
  hash: string;
  repo: string;
  /** A member of the environment and one of its CI tokens (the members and ci-tokens routes). */
  email: string;
  tokenId: string;
}

/** Stands for 10,000 nested arrays; swapped in when the body is written (JSON.stringify would overflow). */
const DEEP = '\u0001DEEP\u0001';
const deepJson = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

const NUL_AND_SURROGATES = ['a\u0000b', '\u0000', 'x\ud800', '\udfffx', 'a\ud800\ud800b'];
const CONTROL = ['a\u0001b', 'tab\there', 'a\u007fb', 'a\u0085b', 'line\nbreak', 'bell\u0007'];
const DOTS = ['..', '.', '../..', 'a/../b', 'é', '😀', 'has space'];
const BAD_SQL = ["SELECT 'abc", 'SELECT 1 /* open', 'SELECT $$x', `SELECT ${'('.repeat(20_000)}1${')'.repeat(20_000)}`, ';', '-- only a comment', "SELECT 'x"];
const BAD_DATES = [
  '2026-02-30T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '2026-01-01T00:00:60Z',
  '2026-01-01',
  'yesterday',
  '',
  '9999-12-31T23:59:59-23:59',
  '2026-13-01T00:00:00Z',
  '2026-01-01T00:00:00+24:00',
];
/** Odd but acceptable text: a server must store or ignore these, not fail on them. */
const ODD_TEXT = ['Ünïcödé 🚀', '\u202Eevil', 'zero\u200Bwidth', "O'Brien; DROP TABLE environments; --", '%00', '${jndi:x}', '\\', '\uFEFFbom'];

/** Paging numbers (and history's threshold) come from query strings, so they are coerced on purpose ("7" is 7, null is 0, [] is 0). */
const COERCED = new Set(['limit', 'offset', 'threshold']);

/** Fields whose value is one line of plain text or a token: any control character is wrong there. */
const LINE_FIELDS = new Set([
  'name',
  'label',
  'runId',
  'branch',
  'slug',
  'repo',
  'commitSha',
  'id',
  'connectionId',
  'environmentId',
  'hash',
  'connectionString',
  'email',
  'tokenId',
]);

interface Target {
  /** true where a query that does not parse must be refused (a query typed by hand). */
  parsesQuery: boolean;
  /** Which kind of thing an `id` names on this route. */
  idOf: 'env' | 'run';
  /** A read: its `repo` is a filter, where any text simply matches nothing. */
  readOnly: boolean;
}

function validValue(name: string, schema: Schema, known: Known, target: Target): unknown {
  switch (name) {
    case 'id':
      return target.idOf === 'run' ? known.runId : known.envId;
    case 'connectionId':
      return known.connectionId;
    case 'email':
      return known.email;
    case 'tokenId':
      return known.tokenId;
    case 'environmentId':
      return known.envId;
    case 'hash':
      return known.hash;
    case 'repo':
      return known.repo;
    case 'name':
    case 'label':
      return 'Fuzzed';
    case 'slug':
      return 'fuzzed';
    case 'connectionString':
      return 'postgres://fuzz:pw@localhost:5432/fuzz';
    case 'query':
      return 'SELECT 42';
    case 'runId':
      return 'fuzz-run';
    case 'branch':
      return 'main';
    case 'commitSha':
      return 'abc1234';
    case 'startedAt':
      return '2026-01-01T00:00:00Z';
  }
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return schema.items ? [validValue('', schema.items, known, target)] : [];
    case 'object':
      return validObject(schema, known, target);
    default:
      return 'x';
  }
}

function validObject(schema: Schema, known: Known, target: Target): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (schema.required?.includes(name)) out[name] = validValue(name, property, known, target);
  }
  return out;
}

/** A value the field must refuse, whatever else the request holds. */
function invalidValue(r: Random, name: string, schema: Schema, known: Known, target: Target): unknown {
  // null is a value a nullable field accepts (it clears it), not a malformed one
  const pool: unknown[] = schema.anyOf?.some((s) => s.type === 'null') ? [DEEP] : [DEEP, null];
  // a nullable number is anyOf [number, null]: its bounds are the number's
  if (!schema.type && schema.anyOf?.some((s) => s.type === 'integer' || s.type === 'number')) schema = schema.anyOf.find((s) => s.type !== 'null')!;
  const type = schema.enum ? 'string' : (schema.type ?? 'string');
  if (type === 'string') {
    pool.push(123, true, [], {}, ...NUL_AND_SURROGATES);
    if (schema.maxLength !== undefined) pool.push('x'.repeat(schema.maxLength + 1));
    if ((schema.minLength ?? 0) >= 1) pool.push('', '   ');
    if (LINE_FIELDS.has(name)) pool.push(...CONTROL);
    const storedRepo = name === 'repo' && !target.readOnly;
    if (schema.pattern || schema.enum || storedRepo) pool.push(...DOTS, 'bogus value!');
    if (schema.format === 'date-time') pool.push(...BAD_DATES);
    if (name === 'query' && target.parsesQuery) pool.push(...BAD_SQL);
    if (name === 'connectionString') pool.push('mysql://u@h/d', 'postgres://', 'postgres://u@h/d\u0001');
    if (storedRepo) pool.push('acme', 'a//c', 'acme/..', '-acme/x', 'acme/app.git/x', `acme/${'x'.repeat(256)}`);
  } else if (type === 'integer' || type === 'number') {
    if (COERCED.has(name)) pool.splice(0, pool.length, 'seven', [1, 2]);
    else pool.push('7', true, [], [7]);
    pool.push({});
    if (type === 'integer') pool.push(1.5);
    if (schema.maximum !== undefined) pool.push(schema.maximum + 1, 1e308);
    else pool.push(2147483648, 2 ** 63, 1e308);
    if (schema.minimum !== undefined) pool.push(schema.minimum - 1);
    if (schema.exclusiveMinimum !== undefined) pool.push(schema.exclusiveMinimum);
  } else if (type === 'array') {
    pool.push('x', 5, {});
    if (schema.maxItems !== undefined && schema.items) {
      pool.push(Array.from({ length: schema.maxItems + 1 }, () => validValue('', schema.items!, known, target)));
    }
    if (schema.items) pool.push([invalidValue(r, '', schema.items, known, target)]);
  } else if (type === 'object') {
    pool.push('x', 5, []);
    const names = Object.keys(schema.properties ?? {});
    if (names.length > 0) {
      const victim = r.pick(names);
      pool.push({ ...validObject(schema, known, target), [victim]: invalidValue(r, victim, schema.properties![victim]!, known, target) });
    }
  } else if (type === 'boolean') {
    pool.push('true', 1);
  }
  return r.pick(pool);
}

/** A value that may well be accepted: it rides along with the invalid one and must not break anything either. */
function oddValue(r: Random, name: string, schema: Schema, known: Known, target: Target): unknown {
  const pool: unknown[] = [validValue(name, schema, known, target)];
  if (schema.type === 'string' || schema.type === undefined) pool.push(...ODD_TEXT, 'x'.repeat(5000));
  if (schema.format === 'date-time') pool.push('2026-01-01T00:00:00+23:59', '2026-06-30T12:00:00.123456789-15:59', '1970-01-01T00:00:00Z');
  if (schema.type === 'integer' || schema.type === 'number') pool.push(0, schema.maximum ?? 2147483647, 2147483647);
  if (name === 'queries') {
    // repeats of one fingerprint whose calls add up beyond bigint, unparseable and control-laden SQL
    pool.push(
      Array.from({ length: 1100 }, (_, i) => ({ query: `SELECT ${i}`, calls: Number.MAX_SAFE_INTEGER })),
      BAD_SQL.map((query) => ({ query })),
      [{ query: 'SELECT\t1\u0001 -- \u0085', meanTimeMs: 1e300 }],
    );
  }
  return r.pick(pool);
}

/** Bodies no route can parse, whatever its inputs. */
const BROKEN_BODIES = ['not json', '{"name":', '{"a":1}}', '\u0000', '['.repeat(100_000), deepJson(10_000), `{"name":${deepJson(10_000)}}`, '{"a":"\\ud800"'];

// ------------------------------------------------------------------------------ HTTP

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  text: string;
}

/** A request with the path sent byte for byte as given (fetch would resolve dot segments first). */
function send(base: URL, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const request = http.request({ host: base.hostname, port: base.port, method, path, headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const writeJson = (value: unknown, deepLevels = 10_000) => JSON.stringify(value).replaceAll(JSON.stringify(DEEP), deepJson(deepLevels));

/** The REST API's one error shape: { error: { code, message, issues? } } and nothing else. */
function restShapeProblem(answer: Answer): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `not JSON: ${answer.text.slice(0, 80)}`;
  }
  const parsed = z
    .strictObject({
      error: z.strictObject({
        code: z.string().regex(/^[a-z_]+$/),
        message: z.string().min(1),
        issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
      }),
    })
    .safeParse(body);
  if (!parsed.success) return `not the error shape: ${answer.text.slice(0, 120)}`;
  if (/\n\s+at /.test(answer.text)) return 'stack trace in the body';
  return undefined;
}

/** tRPC's envelope with our formatter's data: an apiCode, no stack. */
function trpcShapeProblem(answer: Answer): string | undefined {
  let body: { error?: { message?: unknown; data?: { apiCode?: unknown; stack?: unknown } } };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    return `not JSON: ${answer.text.slice(0, 80)}`;
  }
  if (typeof body.error?.message !== 'string' || typeof body.error.data?.apiCode !== 'string') return `not the error shape: ${answer.text.slice(0, 120)}`;
  if (body.error.data.stack !== undefined || /\n\s+at /.test(answer.text)) return 'stack trace in the body';
  return undefined;
}

// ------------------------------------------------------------------------------ the store

/** Row count and a digest of every table's content, so any change at all shows. */
async function snapshot(server: TestServer): Promise<Record<string, string>> {
  const { db } = server.services.store;
  const tables = await rowsOf<{ name: string }>(db, sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`);
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await rowsOf<{ n: number; digest: string }>(
      db,
      sql.raw(`SELECT count(*)::int AS n, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS digest FROM "${name}" t`),
    );
    out[name] = `${row!.n} rows, ${row!.digest}`;
  }
  return out;
}

interface Tally {
  requests: number;
  serverErrors: number;
  badShape: number;
  accepted: number;
  examples: string[];
}

function record(tallies: Map<string, Tally>, route: string, answer: Answer, described: string, shape: (a: Answer) => string | undefined) {
  const tally = tallies.get(route) ?? { requests: 0, serverErrors: 0, badShape: 0, accepted: 0, examples: [] };
  tallies.set(route, tally);
  tally.requests++;
  let problem: string | undefined;
  if (answer.status >= 500) {
    tally.serverErrors++;
    problem = `${answer.status}`;
  } else if (answer.status < 400) {
    tally.accepted++;
    problem = `${answer.status} (accepted)`;
  } else {
    problem = shape(answer);
    if (problem) tally.badShape++;
  }
  if (problem && tally.examples.length < 3) tally.examples.push(`${problem} <- ${described.slice(0, 240)}`);
}

function report(label: string, tallies: Map<string, Tally>): string[] {
  const failing = [...tallies].filter(([, t]) => t.serverErrors + t.badShape + t.accepted > 0);
  const lines = failing.map(
    ([route, t]) =>
      `${route}: ${t.serverErrors} of ${t.requests} answered 5xx, ${t.badShape} not in the error shape, ${t.accepted} accepted\n    ${t.examples.join('\n    ')}`,
  );
  const total = [...tallies.values()].reduce((sum, t) => sum + t.requests, 0);
  console.log(
    `${label}: ${total} malformed requests on ${tallies.size} routes, ${failing.length} routes failing${lines.length ? `\n  ${lines.join('\n  ')}` : ''}`,
  );
  return lines;
}

const show = (value: unknown) => {
  const text = (typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined')).replaceAll(
    JSON.stringify(DEEP),
    '<10,000 nested arrays>',
  );
  return text.length > 120 ? `${text.slice(0, 100)}...(${text.length} chars)` : text;
};

// ------------------------------------------------------------------------------ the runs

describe.each(BACKENDS)('malformed input on every route (%s)', (backend) => {
  let server: TestServer;
  let base: URL;
  let known: Known;

  const json = async (method: string, path: string, body?: unknown) => {
    const answer = await send(base, method, `/api${path}`, body === undefined ? undefined : JSON.stringify(body));
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
    return JSON.parse(answer.text) as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
    base = new URL(server.url);
    const envId = (await json('POST', '/env', { name: 'Fuzz target', slug: 'fuzz-target' })).id as string;
    const connectionId = (await json('POST', `/env/${envId}/connections`, { label: 'CI', role: 'ci', connectionString: 'postgres://ci:pw@localhost:5432/app' }))
      .id as string;
    const repo = 'acme/fuzz';
    await json('POST', `/env/${envId}/repos`, { repo });
    const hash = (await json('POST', `/env/${envId}/queries`, { query: 'SELECT id FROM users WHERE id = 1' })).hash as string;
    const runId = (await json('POST', '/ci/runs', { repo, runId: 'seeded-1', queries: [{ query: 'SELECT name FROM teams', calls: 3 }] })).id as string;
    const email = 'member@acme.test';
    await json('PUT', `/env/${envId}/members/${encodeURIComponent(email)}`, { role: 'viewer' });
    const tokenId = (await json('POST', `/env/${envId}/ci-tokens`, { name: 'fuzz' })).id as string;
    known = { envId, connectionId, runId, hash, repo, email, tokenId };
  });
  afterAll(() => server?.close());

  it(
    `REST: ${PER_ROUTE} malformed requests per route of the OpenAPI document, no 5xx, the one error shape, nothing changed`,
    async () => {
      const document = JSON.parse((await send(base, 'GET', '/api/openapi.json')).text) as {
        paths: Record<
          string,
          Record<string, { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>
        >;
      };
      const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
      );
      expect(routes.length).toBeGreaterThanOrEqual(20);

      const before = await snapshot(server);
      const tallies = new Map<string, Tally>();
      const r = random(SEED);
      for (const { method, path, operation } of routes) {
        const route = `${method} ${path}`;
        const target: Target = {
          parsesQuery: method === 'POST' && path === '/env/{id}/queries',
          idOf: path.startsWith('/ci/runs') ? 'run' : 'env',
          readOnly: method === 'GET',
        };
        const parameters = operation.parameters ?? [];
        const pathParams = parameters.filter((p) => p.in === 'path');
        const queryParams = parameters.filter((p) => p.in === 'query');
        const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
        const bodyFields = Object.keys(bodySchema?.properties ?? {});
        // where the one value that must be refused goes
        const slots = [
          ...pathParams.map((p) => ({ kind: 'path' as const, name: p.name })),
          ...queryParams.map((p) => ({ kind: 'query' as const, name: p.name })),
          ...bodyFields.map((name) => ({ kind: 'body' as const, name })),
          { kind: 'whole body' as const, name: '' },
        ];

        for (let n = 0; n < PER_ROUTE; n++) {
          const slot = r.pick(slots);
          const segments: Record<string, string> = {};
          for (const p of pathParams) segments[p.name] = encodeURIComponent(String(validValue(p.name, p.schema, known, target)));
          const query: string[] = [];
          const body: Record<string, unknown> | undefined = bodySchema ? validObject(bodySchema, known, target) : undefined;
          let rawBody: string | undefined;

          if (slot.kind === 'path') {
            segments[slot.name] = r.pick(PATH_SEGMENTS);
          } else if (slot.kind === 'query') {
            query.push(...r.pick(queryValues(slot.name, queryParams.find((p) => p.name === slot.name)!.schema)));
          } else if (slot.kind === 'body') {
            body![slot.name] = invalidValue(r, slot.name, bodySchema!.properties![slot.name]!, known, target);
          } else {
            rawBody = r.pick(BROKEN_BODIES);
          }
          // often, odd but acceptable company: another field, an unknown field, an unknown parameter
          if (body && bodyFields.length > 1 && r.chance(0.5)) {
            const other = r.pick(bodyFields.filter((f) => slot.kind !== 'body' || f !== slot.name));
            body[other] = oddValue(r, other, bodySchema!.properties![other]!, known, target);
          }
          if (body && r.chance(0.2)) {
            // an own property even for __proto__, as JSON.parse makes it
            const key = r.pick(['__proto__', 'constructor', 'x\u0000y', 'toString']);
            Object.defineProperty(body, key, { value: r.pick([{ polluted: true }, 'x', 1]), enumerable: true, configurable: true, writable: true });
          }
          if (r.chance(0.2)) query.push(r.pick(['%00=%00', 'limit=1&limit=2', 'x=%ED%A0%80', '__proto__[a]=1']));

          const url = `/api${path.replace(/\{(\w+)\}/g, (_, name: string) => segments[name]!)}${query.length ? `?${query.join('&')}` : ''}`;
          const text = rawBody ?? (body && (method !== 'GET' || r.chance(0.1)) ? writeJson(body) : undefined);
          const answer = await send(base, method, url, text);
          const described = `${method} ${url.length > 160 ? `${url.slice(0, 140)}...` : url} ${slot.kind}${slot.name ? ` ${slot.name}` : ''}${
            slot.kind === 'body' ? `=${show(body![slot.name])}` : slot.kind === 'whole body' ? `=${show(rawBody)}` : ''
          }`;
          record(tallies, route, answer, described, restShapeProblem);
        }
      }
      const problems = report(`REST on ${backend}, seed ${SEED}`, tallies);
      expect(await snapshot(server), 'the store changed').toEqual(before);
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    `tRPC: ${PER_PROCEDURE} malformed calls per procedure, no 5xx, an apiCode and no stack, nothing changed`,
    async () => {
      const before = await snapshot(server);
      const tallies = new Map<string, Tally>();
      const r = random(SEED + 1);
      for (const [path, procedure] of Object.entries(appRouter._def.procedures)) {
        const def = (procedure as unknown as { _def: { type: 'query' | 'mutation'; inputs: z.ZodType[] } })._def;
        const schema = (def.inputs[0] ? z.toJSONSchema(def.inputs[0], { io: 'input', unrepresentable: 'any' }) : {}) as Schema;
        const target: Target = {
          parsesQuery: path === 'queries.add',
          idOf: path.startsWith('ci.') || path === 'analysis.ciRun' ? 'run' : 'env',
          readOnly: def.type === 'query',
        };
        const fields = Object.keys(schema.properties ?? {});
        for (let n = 0; n < PER_PROCEDURE; n++) {
          let input: unknown;
          if (fields.length === 0 || r.chance(0.15)) {
            input = r.pick(['x', 5, [], DEEP, [{}]]);
          } else {
            const field = r.pick(fields);
            const object = validObject(schema, known, target);
            object[field] = invalidValue(r, field, schema.properties![field]!, known, target);
            input = object;
          }
          // a GET carries its input in the URL: nesting stays within what a URL may hold
          const answer =
            def.type === 'query'
              ? await send(base, 'GET', `/trpc/${path}?input=${encodeURIComponent(writeJson(input, 1500))}`)
              : await send(base, 'POST', `/trpc/${path}`, writeJson(input));
          record(tallies, `trpc ${path}`, answer, `${path} ${show(input)}`, trpcShapeProblem);
        }
      }
      const problems = report(`tRPC on ${backend}, seed ${SEED + 1}`, tallies);
      expect(await snapshot(server), 'the store changed').toEqual(before);
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );
});

/** Raw path segments (sent as they are): each is an id, hash or repo no route may accept. */
const PATH_SEGMENTS = [
  '%00',
  'a%00b',
  '..',
  '%2e%2e',
  '%2E%2e',
  '.',
  '%2e',
  '%01',
  'x%1Fy',
  '%7F',
  '%C2%85',
  'x'.repeat(300),
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%C3%A9t%C3%A9',
  '%',
  '%zz',
  '%2F',
  '..%2F..',
  '%2e%2e%2F%2e%2e',
  '%20',
  '%0A',
  'a%2Fb%2Fc',
  '%2e%2e%2fenv',
];

/** Query strings (already encoded) that the named parameter must refuse. */
function queryValues(name: string, schema: Schema): string[][] {
  const set = (value: string) => [`${name}=${value}`];
  const out: string[][] = [set('%00'), set('a%00b'), [`${name}=a`, `${name}=b`]];
  if (schema.type === 'integer' || schema.type === 'number') {
    out.push(set('abc'), set('1e400'), set('Infinity'), set('NaN'), set(String((schema.maximum ?? 2147483647) + 1)));
    // a fraction is malformed only where an integer is asked for (a threshold of 1.5 % is fine)
    if (schema.type === 'integer') out.push(set('1.5'));
    if (schema.minimum !== undefined) out.push(set(String(schema.minimum - 1)));
  } else {
    if (schema.maxLength !== undefined) out.push(set('x'.repeat(schema.maxLength + 1)));
    if (schema.pattern || schema.enum) out.push(set('..'), set('%C3%A9'), set('%01'), set('bogus%20value'));
  }
  return out;
}
