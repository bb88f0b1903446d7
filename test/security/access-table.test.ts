// The role table: every tRPC procedure and every OpenAPI route, called as every kind of caller, on
// PGlite and on PostgreSQL, answers as this table says. The table is written here a second time,
// in the words of the roles (not read from server/auth/access.ts), so a rule changed by mistake in
// one place fails here. A procedure of the router missing from this table, or from the server's
// access table, fails the first test.
//
// A change is sent with one field its schema refuses whenever the procedure has one besides the
// identifiers: access is decided before the input is parsed, so a caller who may call it gets 400
// and one who may not gets 401, 403 or 404, and nothing changes either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../server/routers/root';
import { ACCESS } from '../../server/auth/access';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../support/services';
import { anonymous, BREAK_GLASS, breakGlass, ciToken, grant, personalToken, requestAs, signedIn, type Caller } from '../support/team';

afterAll(() => stopTestPostgres());

/** About a thousand requests one after another: under a minute on a quiet machine, minutes on one busy with other work. */
const TABLE_TIMEOUT_MS = 300_000;

const ROLES = ['admin', 'owner', 'editor', 'viewer', 'outsider', 'readToken', 'ci', 'breakGlass', 'anonymous'] as const;
type Role = (typeof ROLES)[number];

// who may call, in the words of the role model
const ADMIN: Role[] = ['admin', 'breakGlass'];
const OWNER: Role[] = [...ADMIN, 'owner'];
const EDITOR: Role[] = [...OWNER, 'editor'];
const VIEWER: Role[] = [...EDITOR, 'viewer'];
const PERSON: Role[] = [...VIEWER, 'outsider'];
/** A read-only token of the owner may read what its person reads; never change anything. */
const read = (roles: Role[]) => [...roles, ...(roles.includes('owner') ? (['readToken'] as Role[]) : [])];

interface Known {
  env: string;
  otherEnv: string;
  run: string;
  hash: string;
  connection: string;
  webhook: string;
  repo: string;
}

interface Case {
  /** What the input names: a refused outsider gets 404 for an environment or a run, 403 for the rest. */
  scope: 'env' | 'run' | 'none';
  allowed: Role[];
  input: (k: Known) => Record<string, unknown> | string | undefined;
  /** false where the REST route reads the malformed input as no input and would really do it (start a demo). */
  rest?: false;
}

const BAD = '\u0000'; // refused by every text schema

const TABLE: Record<string, Case> = {
  'me.get': { scope: 'none', allowed: read(PERSON), input: () => undefined },
  'me.users': { scope: 'none', allowed: ADMIN, input: () => undefined },
  'me.setUserRole': { scope: 'none', allowed: ADMIN, input: () => ({ email: 'someone@acme.test', role: 'boss' }) },

  'env.create': { scope: 'none', allowed: PERSON, input: () => ({ name: 'New', slug: 'Not A Slug' }) },
  'env.list': { scope: 'none', allowed: read(PERSON), input: () => undefined },
  'env.get': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'env.update': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, name: BAD }) },
  'env.delete': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env }) }, // checked last, on environments of their own
  'env.refreshSnapshot': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env }) },

  'members.list': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'members.set': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, email: 'new@acme.test', role: 'king' }) },
  'members.remove': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, email: 'not an email' }) },

  'tokens.create': { scope: 'none', allowed: ['admin', 'owner', 'editor', 'viewer', 'outsider'], input: () => ({ name: BAD, scopes: ['read'] }) },
  'tokens.list': { scope: 'none', allowed: read(PERSON), input: () => undefined },
  'tokens.revoke': { scope: 'none', allowed: PERSON, input: () => ({ id: 'no such token!' }) },
  'ciTokens.create': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, name: BAD }) },
  'ciTokens.list': { scope: 'env', allowed: read(OWNER), input: (k) => ({ id: k.env }) },
  'ciTokens.revoke': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, tokenId: 'bad id!' }) },

  'audit.list': { scope: 'env', allowed: read(OWNER), input: (k) => ({ environmentId: k.env }) },

  'connections.add': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, label: 'x', role: 'production', connectionString: 'mysql://x@y/z' }) },
  'connections.update': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, connectionId: k.connection, excludeSchemas: ['^tenant_.*$'] }) },
  'connections.remove': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, connectionId: 'bad id!' }) },
  'repos.link': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, repo: 'not-a-repo' }) },
  'repos.unlink': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, repo: 'not-a-repo' }) },

  'queries.list': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'queries.count': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'queries.get': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env, hash: k.hash }) },
  'queries.add': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, query: "SELECT 'unterminated" }) },
  'queries.syncProduction': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env }) },

  'history.query': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env, hash: k.hash }) },
  'history.top': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'history.regressed': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'history.snapshot': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env }) },

  'analysis.start': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, maxIndexes: -1 }) },
  'analysis.latest': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'analysis.indexHealth': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'analysis.query': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env, hash: k.hash }) },
  'analysis.explain': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env, sql: BAD }) },
  'analysis.ciRun': { scope: 'run', allowed: read(VIEWER), input: (k) => ({ id: k.run }) },

  'ci.ingest': { scope: 'none', allowed: [...EDITOR, 'ci'], input: (k) => ({ repo: k.repo, runId: BAD, queries: [] }) },
  'ci.list': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ environmentId: k.env }) },
  'ci.count': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ environmentId: k.env }) },
  'ci.get': { scope: 'run', allowed: [...read(VIEWER), 'ci'], input: (k) => ({ id: k.run }) },
  'ci.verdict': { scope: 'run', allowed: [...read(VIEWER), 'ci'], input: (k) => ({ id: k.run }) },

  'policy.get': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'policy.update': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, conditions: { cost_regression: 'never' } }) },
  'policy.acknowledge': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, hash: k.hash, note: BAD }) },
  'policy.unacknowledge': { scope: 'env', allowed: EDITOR, input: (k) => ({ id: k.env, hash: 'not-a-hash' }) },
  'policy.acknowledgements': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },

  'demo.start': { scope: 'none', allowed: ADMIN, input: () => 'not an object', rest: false },
  'demo.status': { scope: 'none', allowed: read(PERSON), input: () => undefined },
  'demo.remove': { scope: 'none', allowed: ADMIN, input: () => 'not an object' },
  'demo.sync': { scope: 'none', allowed: ADMIN, input: () => 'not an object', rest: false },

  'webhooks.add': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, url: 'ftp://example.com/hook', events: ['verdict'] }) },
  'webhooks.list': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
  'webhooks.remove': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, webhookId: 'bad id!' }) },
  'webhooks.test': { scope: 'env', allowed: OWNER, input: (k) => ({ id: k.env, webhookId: 'bad id!' }) },
  'webhooks.deliveries': { scope: 'env', allowed: read(VIEWER), input: (k) => ({ id: k.env }) },
};

const procedures = appRouter._def.procedures as unknown as Record<
  string,
  { _def: { type: 'query' | 'mutation'; meta?: { openapi?: { method: string; path: string } } } }
>;

describe('the role table', () => {
  it('declares every procedure of the router, in the server and in this table', () => {
    const paths = Object.keys(procedures).sort();
    expect(
      paths.filter((p) => !ACCESS[p]),
      'procedures without an access rule',
    ).toEqual([]);
    expect(
      paths.filter((p) => !TABLE[p]),
      'procedures missing from this table',
    ).toEqual([]);
    expect(
      Object.keys(ACCESS).filter((p) => !procedures[p]),
      'rules of procedures that do not exist',
    ).toEqual([]);
  });
});

/** What the answer says of access: allowed (anything but a refusal), or the refusal's status. */
function verdictOf(answer: { status: number; text: string }): 'allowed' | 401 | 403 | 404 {
  if (answer.status === 401 || answer.status === 403) return answer.status;
  // a 404 is a refusal when it hides the environment or run asked about; another 404 (a token id
  // that does not exist) is the procedure's own answer
  if (answer.status === 404 && /(Environment|CI run) [A-Za-z0-9_-]+ not found/.test(answer.text)) return 404;
  expect(answer.status, answer.text).toBeLessThan(500);
  return 'allowed';
}

function expectedRefusal(role: Role, rule: Case): 401 | 403 | 404 {
  if (role === 'anonymous') return 401;
  if (role === 'readToken') return 403;
  if (role === 'outsider' && rule.scope !== 'none') return 404;
  return 403;
}

describe.each(BACKENDS)('every procedure as every role (%s)', (backend) => {
  let server: TestServer;
  let known: Known;
  const callers = {} as Record<Role, Caller>;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { apiToken: BREAK_GLASS }));
    const admin = async (method: string, path: string, json?: unknown) => {
      const answer = await requestAs(server, breakGlass, `/api${path}`, { method, json });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
      return answer.body as Record<string, string>;
    };
    const env = (await admin('POST', '/env', { name: 'Shop', slug: 'shop' })).id!;
    const otherEnv = (await admin('POST', '/env', { name: 'Other', slug: 'other' })).id!;
    const repo = 'acme/shop';
    await admin('POST', `/env/${env}/repos`, { repo });
    await admin('POST', `/env/${otherEnv}/repos`, { repo: 'acme/other' });
    const connection = (await admin('POST', `/env/${env}/connections`, { label: 'CI', role: 'ci', connectionString: 'postgres://ci:pw@localhost:5432/app' }))
      .id!;
    const hash = (await admin('POST', `/env/${env}/queries`, { query: 'SELECT id FROM orders WHERE id = 1' })).hash!;
    const run = (await admin('POST', '/ci/runs', { repo, runId: 'run-1', queries: [{ query: 'SELECT name FROM teams', calls: 3 }] })).id!;
    known = { env, otherEnv, run, hash, connection, webhook: 'none', repo };

    const owner = await signedIn(server, 'owner@acme.test');
    const people = {
      admin: await signedIn(server, 'admin@acme.test', { admin: true }),
      owner,
      editor: await signedIn(server, 'editor@acme.test'),
      viewer: await signedIn(server, 'viewer@acme.test'),
      outsider: await signedIn(server, 'outsider@acme.test'),
    };
    await grant(server, env, 'owner@acme.test', 'owner');
    await grant(server, env, 'editor@acme.test', 'editor');
    await grant(server, env, 'viewer@acme.test', 'viewer');
    // the outsider owns the other environment: a role elsewhere gives nothing here
    await grant(server, otherEnv, 'outsider@acme.test', 'owner');
    Object.assign(callers, people, {
      readToken: await personalToken(server, owner, ['read']),
      ci: await ciToken(server, env),
      breakGlass,
      anonymous,
    });
  });
  afterAll(() => server?.close());

  const callTrpc = (caller: Caller, path: string, type: 'query' | 'mutation', input: unknown) =>
    type === 'query'
      ? requestAs(server, caller, `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`)
      : requestAs(server, caller, `/trpc/${path}`, { method: 'POST', json: input ?? {} });

  /** The same call through its REST route: path parameters in the path, the rest in the query (GET) or the body. */
  const callRest = (caller: Caller, route: { method: string; path: string }, input: unknown) => {
    const fields = { ...(input && typeof input === 'object' ? (input as Record<string, unknown>) : {}) };
    const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = encodeURIComponent(String(fields[name]));
      delete fields[name];
      return value;
    });
    if (route.method === 'GET' || route.method === 'DELETE') {
      const query = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
      return requestAs(server, caller, `/api${path}${query ? `?${query}` : ''}`, { method: route.method });
    }
    return requestAs(server, caller, `/api${path}`, { method: route.method, json: typeof input === 'string' ? input : fields });
  };

  it(
    'answers each procedure, through tRPC and through its REST route, as the table says for each role; nothing refused changed anything',
    async () => {
      const problems: string[] = [];
      for (const [path, rule] of Object.entries(TABLE)) {
        if (path === 'env.delete') continue;
        const { type, meta } = procedures[path]!._def;
        const input = rule.input(known);
        for (const role of ROLES) {
          const want = rule.allowed.includes(role) ? 'allowed' : expectedRefusal(role, rule);
          const viaTrpc = verdictOf(await callTrpc(callers[role], path, type, input));
          if (viaTrpc !== want) problems.push(`tRPC ${path} as ${role}: ${viaTrpc}, expected ${want}`);
          if (meta?.openapi && rule.rest !== false) {
            const route = { method: meta.openapi.method.toUpperCase(), path: meta.openapi.path };
            const viaRest = verdictOf(await callRest(callers[role], route, input));
            if (viaRest !== want) problems.push(`${route.method} ${route.path} as ${role}: ${viaRest}, expected ${want}`);
          }
        }
      }
      expect(problems).toEqual([]);
      // the changes above were each refused or malformed: the environment is as it was
      const detail = await requestAs(server, breakGlass, `/api/env/${known.env}`);
      expect(detail.body).toMatchObject({ name: 'Shop', slug: 'shop', connections: [{ id: known.connection }], repos: [{ repo: known.repo }] });
    },
    TABLE_TIMEOUT_MS,
  );

  it('deletes an environment for its owners and admins only', async () => {
    for (const role of ROLES.filter((r) => !OWNER.includes(r))) {
      const answer = await callTrpc(callers[role], 'env.delete', 'mutation', { id: known.env });
      expect(verdictOf(answer), `${role}: ${answer.text}`).toBe(expectedRefusal(role, TABLE['env.delete']!));
    }
    expect((await requestAs(server, breakGlass, `/api/env/${known.env}`)).status).toBe(200);
    for (const role of OWNER) {
      const own = (await requestAs(server, breakGlass, '/api/env', { method: 'POST', json: { name: `Mine ${role}`, slug: `mine-${role.toLowerCase()}` } })).body
        .id as string;
      if (role === 'owner') await grant(server, own, 'owner@acme.test', 'owner');
      const answer = await requestAs(server, callers[role], `/api/env/${own}`, { method: 'DELETE' });
      expect(answer.status, `${role}: ${answer.text}`).toBe(204);
      expect((await requestAs(server, breakGlass, `/api/env/${own}`)).status).toBe(404);
    }
  });
});
