// The ci-report command, spawned for real (bin/querytrail.mjs) against a real PostgreSQL with
// pg_stat_statements and the real HTTP server: every statement of the workload ends up in the
// catalog with the right counts; nothing of other databases or of PostgreSQL itself does. The run
// carries the CI database's schema (unless --no-schema), read without running any of its code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { rowsOf } from '../server/catalog/sql';
import { ingestRunInput } from '../shared/ci';
import type { RunSchema } from '../shared/run-schema';
import { runCli as run } from '../test/support/cli';
import { createHostileDatabase } from '../test/support/hostile';
import { freePort, startPostgres, type PostgresServer } from '../test/support/postgres';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../test/support/services';
import { decodeJwt } from 'jose';
import { startOidcIssuer } from '../test/support/oidc-issuer';
import { CliError, credentialOf, fetchIdToken, idTokenRequestUrl, ingestUrl, refusalHint, splitStatements } from './ci-report';
import { githubDefaults } from './github-actions';

// The workload of a test suite: statement -> how often it runs.
const WORKLOAD: [sql: string, params: unknown[][], expectedStart: string][] = [
  ['SELECT id, email FROM users WHERE id = $1', [[1], [2], [3], [4]], 'SELECT id, email'],
  [
    'INSERT INTO orders (user_id, total) VALUES ($1, $2)',
    [
      [1, 10],
      [2, 20],
      [3, 30],
    ],
    'INSERT INTO orders',
  ],
  [
    'UPDATE users SET email = $1 WHERE id = $2',
    [
      ['a@b.c', 1],
      ['d@e.f', 2],
    ],
    'UPDATE users',
  ],
  ['SELECT u.email, count(o.id) FROM users u LEFT JOIN orders o ON o.user_id = u.id GROUP BY u.email', [[]], 'SELECT u.email'],
  ['DELETE FROM orders WHERE total < $1', [[15]], 'DELETE FROM orders'],
];

let ciServer: PostgresServer;
let ciUrl: string;

beforeAll(async () => {
  ciServer = await startPostgres({ statStatements: true });
  ciUrl = await ciServer.createDatabase('app_test');
  const other = await ciServer.createDatabase('other_app');
  await ciServer.query('CREATE TABLE decoy (id int)', [], 'other_app');
  await ciServer.query('SELECT * FROM decoy WHERE id = 1', [], 'other_app');
  void other;

  const client = new pg.Client({ connectionString: ciUrl });
  await client.connect();
  // what a test suite's setup does: extension, migrations
  await client.query('CREATE EXTENSION pg_stat_statements');
  await client.query('CREATE TABLE users (id int PRIMARY KEY, email text)');
  await client.query('CREATE TABLE orders (id serial PRIMARY KEY, user_id int REFERENCES users, total numeric)');
  await client.query('CREATE INDEX orders_user_id ON orders (user_id)');
  await client.query("INSERT INTO users SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 10) g");
  await client.query('SELECT pg_stat_statements_reset()');
  for (const [sql, paramSets] of WORKLOAD) {
    for (const params of paramSets) await client.query(sql, params);
  }
  await client.query('BEGIN');
  await client.query('SELECT relname FROM pg_class WHERE relkind = $1', ['r']); // a driver's introspection
  await client.query('COMMIT');
  await client.end();
});

afterAll(async () => {
  await ciServer?.stop();
  await stopTestPostgres();
});

describe.each(BACKENDS)('querytrail ci-report with the catalog on %s', (backend) => {
  let server: TestServer;
  let envId: string;
  const token = 'ci-report-token';
  const http = async (pathname: string) => {
    const response = await fetch(`${server.url}/api${pathname}`, { headers: { authorization: `Bearer ${token}` } });
    return response.json();
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { apiToken: token }));
    const post = (pathname: string, body: unknown) =>
      fetch(`${server.url}/api${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ id: string }>);
    envId = (await post('/env', { name: 'App', slug: 'app' })).id;
    await post(`/env/${envId}/repos`, { repo: 'acme/app' });
  });
  afterAll(() => server.close());

  it('reports the workload of its own database, with the GitHub run details, into the catalog', async () => {
    const github = {
      GITHUB_REPOSITORY: 'acme/app',
      GITHUB_RUN_ID: '9001',
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_SHA: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      GITHUB_REF: 'refs/pull/42/merge',
      GITHUB_REF_NAME: '42/merge',
      GITHUB_HEAD_REF: 'feature/login',
    };
    const result = await run(['ci-report', '--db', ciUrl, '--api', server.url], { ...github, QUERYTRAIL_TOKEN: token });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reported run 9001-2 of acme\/app as run_\w+: 5 queries, 5 new, environment env_/);

    const [listed] = (await http('/ci/runs?limit=1')) as { id: string }[];
    const detail = (await http(`/ci/runs/${listed!.id}`)) as {
      runId: string;
      branch: string;
      commitSha: string;
      pullRequest: number;
      environment: { id: string };
      queries: { hash: string; formattedQuery: string; calls: number }[];
    };
    expect(detail).toMatchObject({ runId: '9001-2', branch: 'feature/login', commitSha: github.GITHUB_SHA, pullRequest: 42, environment: { id: envId } });

    const catalog = (await http(`/env/${envId}/queries`)) as { hash: string; formattedQuery: string; ciRunCount: number; lastSeenSource: string }[];
    expect(catalog).toHaveLength(WORKLOAD.length);
    for (const [sql, paramSets, start] of WORKLOAD) {
      const entry = catalog.find((e) => e.formattedQuery.replace(/\s+/g, ' ').startsWith(start));
      expect(entry, sql).toMatchObject({ ciRunCount: 1, lastSeenSource: 'ci' });
      expect(detail.queries.find((q) => q.hash === entry!.hash)?.calls, sql).toBe(paramSets.length);
    }
    expect(JSON.stringify(catalog)).not.toMatch(/decoy|pg_class|pg_stat_statements|CREATE TABLE|OPERATOR\(pg_catalog/);

    // the same CI run reported again: nothing counted twice
    const again = await run(['ci-report', '--db', ciUrl, '--api', `${server.url}/api/`], { ...github, QUERYTRAIL_TOKEN: token });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already reported run 9001-2');
    const after = (await http(`/env/${envId}/queries`)) as { ciRunCount: number }[];
    expect(after.every((e) => e.ciRunCount === 1)).toBe(true);
  });

  const storedSchema = async (stdout: string) => {
    const id = /as (run_\w+):/.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    const rows = await rowsOf<{ schema: RunSchema }>(server.services.store.db, sql`select schema from ci_run_schemas where run_id = ${id}`);
    return rows[0]?.schema;
  };

  it("sends the CI database's schema with the run, and the server keeps it", async () => {
    const result = await run(['ci-report', '--db', ciUrl, '--api', server.url, '--repo', 'acme/app', '--run-id', 'schema-1', '--branch', 'feature/orders'], {
      QUERYTRAIL_TOKEN: token,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/with the CI database's schema \(2 tables, 3 indexes\)$/m);

    const schema = await storedSchema(result.stdout);
    expect(schema).toEqual({
      tables: [
        ['public', 'orders', 'r', null],
        ['public', 'users', 'r', null],
      ],
      columns: [
        ['public', 'orders', 'id', 'integer', true],
        ['public', 'orders', 'user_id', 'integer', false],
        ['public', 'orders', 'total', 'numeric', false],
        ['public', 'users', 'id', 'integer', true],
        ['public', 'users', 'email', 'text', false],
      ],
      indexes: [
        ['public', 'orders', 'orders_pkey', 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)', 'orders_pkey'],
        ['public', 'orders', 'orders_user_id', 'CREATE INDEX orders_user_id ON public.orders USING btree (user_id)', null],
        ['public', 'users', 'users_pkey', 'CREATE UNIQUE INDEX users_pkey ON public.users USING btree (id)', 'users_pkey'],
      ],
    });
  });

  it('sends no schema with --no-schema', async () => {
    const result = await run(['ci-report', '--db', ciUrl, '--api', server.url, '--repo', 'acme/app', '--run-id', 'schema-2', '--no-schema'], {
      QUERYTRAIL_TOKEN: token,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reported run schema-2 of acme\/app as run_\w+: 5 queries, 0 new, environment env_\w+$/m);
    expect(await storedSchema(result.stdout)).toBeUndefined();
  });

  if (backend === 'pglite') {
    it('reports a file of statements, and fails clearly without the token', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'qt-cli-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const file = path.join(dir, 'statements.sql');
      writeFileSync(file, "-- checkout\nSELECT * FROM carts WHERE id = 1;\nSELECT 'a;b' FROM carts;\nSELEC broken;\n");
      const unauthorized = await run(['ci-report', '--file', file, '--api', server.url, '--repo', 'acme/app', '--run-id', 'file-1']);
      expect(unauthorized.code).toBe(1);
      expect(unauthorized.stderr).toMatch(/answered 401.*QUERYTRAIL_TOKEN/);

      const ok = await run(['ci-report', '--file', file, '--api', server.url, '--repo', 'acme/app', '--run-id', 'file-1'], { QUERYTRAIL_TOKEN: token });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/2 queries/);
      expect(ok.stderr).toMatch(/query 2 rejected: .*syntax error/);

      // A text the parser cannot finish is rejected alone, never filed under its error message.
      const json = path.join(dir, 'queries.json');
      writeFileSync(json, JSON.stringify([{ query: 'SELECT * FROM carts WHERE id = 2' }, { query: "SELECT 'never closed" }, { query: 'SELECT 1 /* open' }]));
      const unfinished = await run(['ci-report', '--file', json, '--api', server.url, '--repo', 'acme/app', '--run-id', 'file-2'], { QUERYTRAIL_TOKEN: token });
      expect(unfinished.code).toBe(0);
      expect(unfinished.stdout).toMatch(/1 queries/);
      expect(unfinished.stderr).toMatch(/query 1 rejected: .*unterminated quoted string/);
      expect(unfinished.stderr).toMatch(/query 2 rejected: .*unterminated \/\* comment/);
    });
  }
});

describe('querytrail ci-report against a hostile CI database', () => {
  it('reads its schema (her types, her expression index) without running any of her code', async () => {
    const hostile = await createHostileDatabase(ciServer);
    try {
      const before = await hostile.observe();
      const result = await run(['ci-report', '--db', hostile.superuserUrl, '--dry-run', '--repo', 'acme/hostile', '--run-id', 'h-1']);
      const { violations, ran } = await hostile.changesSince(before);
      expect(violations, `planted functions that ran meanwhile: ${ran.join(', ') || 'none'}`).toEqual([]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/schema/); // (her SAVEPOINT statements are reported as unparseable)
      const printed = ingestRunInput.parse(JSON.parse(result.stdout));
      expect(printed.schema?.columns).toContainEqual(['mallory', 'items', 'mood', 'mallory.mood', true]);
      expect(printed.schema?.columns).toContainEqual(['mallory', 'items', 'pair', 'mallory.pair', false]);
      expect(printed.schema?.indexes).toContainEqual([
        'mallory',
        'items',
        'items_key',
        'CREATE INDEX items_key ON mallory.items USING btree (mallory.via_index(id))',
        null,
      ]);
      expect(printed.schema?.tables.map(([schema, name]) => `${schema}.${name}`)).toEqual([
        'mallory.canary',
        'mallory.items',
        'mallory.items_view',
        'mallory.secrets',
      ]);
    } finally {
      await hostile.close();
    }
  }, 120_000);
});

describe('querytrail ci-report failures', () => {
  it('exits 1 with a clear message when the database cannot be reached', async () => {
    const result = await run([
      'ci-report',
      '--db',
      'postgres://ci:secret-pw@127.0.0.1:9/nothing',
      '--api',
      'http://127.0.0.1:9/api',
      '--repo',
      'a/b',
      '--run-id',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read pg_stat_statements of the CI database: Connection refused/);
    expect(result.stderr).not.toContain('secret-pw');
  });

  it('sends the run without the schema, with a warning, when the schema is one the API would refuse', async () => {
    const url = await ciServer.createDatabase('long_index');
    const words = Array.from({ length: 1200 }, (_, i) => `'word${i}'`).join(', ');
    await ciServer.query(
      `CREATE EXTENSION pg_stat_statements;
       CREATE TABLE notes (id int PRIMARY KEY, body text);
       CREATE INDEX notes_body ON notes (body) WHERE body <> ALL (ARRAY[${words}]);
       SELECT pg_stat_statements_reset();`,
      [],
      'long_index',
    );
    await ciServer.query('SELECT body FROM notes WHERE id = 1', [], 'long_index');
    const result = await run(['ci-report', '--db', url, '--dry-run', '--repo', 'a/b', '--run-id', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning: the CI database's schema is not sent \(the API would refuse it: indexes\.\d+\.3: Index definition is longer than 10000 characters\)/,
    );
    const printed = ingestRunInput.parse(JSON.parse(result.stdout));
    expect(printed.schema).toBeUndefined();
    expect(printed.queries.map((q) => q.query)).toContain('SELECT body FROM notes WHERE id = $1');
  });

  it("sends the run without the schema, with a warning, when the server's body limit refuses it with the schema", async () => {
    const url = await ciServer.createDatabase('wide');
    await ciServer.query(
      `CREATE EXTENSION pg_stat_statements;
       DO $$ BEGIN FOR i IN 1..300 LOOP EXECUTE format('CREATE TABLE wide_%s (id int PRIMARY KEY, name text, created_at timestamptz)', i); END LOOP; END $$;
       SELECT pg_stat_statements_reset();`,
      [],
      'wide',
    );
    await ciServer.query('SELECT name FROM wide_1 WHERE id = 1', [], 'wide');
    const small = await startTestServer(await openTestServices('pglite', { maxBodyBytes: 16 * 1024 }));
    try {
      const result = await run(['ci-report', '--db', url, '--api', small.url, '--repo', 'acme/wide', '--run-id', 'wide-1']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/warning: the run with the CI database's schema is larger than the API accepts \(413\); sending it without the schema/);
      expect(result.stdout).toMatch(
        /reported run wide-1 of acme\/wide as run_\w+: 1 queries, 0 new, no environment \(the repository is not linked; the catalog is unchanged\)$/m,
      );
    } finally {
      await small.close();
    }
  });

  it('warns clearly and exits 0 when the API cannot be reached (an outage of querytrail blocks no merge), 1 with --strict', async () => {
    const port = await freePort();
    const result = await run(['ci-report', '--db', ciUrl, '--api', `http://127.0.0.1:${port}/api`, '--repo', 'a/b', '--run-id', '1']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`querytrail: warning: cannot reach the querytrail API at http://127.0.0.1:${port}/api/ci/runs: ECONNREFUSED`);
    const strict = await run(['ci-report', '--db', ciUrl, '--api', `http://127.0.0.1:${port}/api`, '--repo', 'a/b', '--run-id', '1', '--strict']);
    expect(strict.code).toBe(1);
  });

  it('exits 2 on usage errors', async () => {
    const result = await run(['ci-report', '--db', ciUrl, '--api', 'http://127.0.0.1:9/api']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--repo org\/repo is required/);
    for (const [flag, value, message] of [
      ['--wait', 'soon', /--wait must be a number of seconds from 0 to 3600, got "soon"/],
      ['--fail-on', 'error', /--fail-on must be one of fail, warn, never, got "error"/],
      ['--comment', 'sometimes', /--comment must be one of always, on-findings, never/],
      ['--format', 'yaml', /--format must be one of text, markdown, json/],
    ] as const) {
      const wrong = await run(['ci-report', '--file', 'x.sql', '--api', 'http://127.0.0.1:9/api', flag, value]);
      expect(wrong.code, flag).toBe(2);
      expect(wrong.stderr).toMatch(message);
    }
  });
});

describe('ci-report helpers', () => {
  it('takes the run details from GitHub Actions variables', () => {
    expect(
      githubDefaults({
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_RUN_ID: '5',
        GITHUB_RUN_ATTEMPT: '1',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_REF_NAME: 'main',
        GITHUB_HEAD_REF: '',
      }),
    ).toEqual({
      repo: 'o/r',
      runId: '5',
      branch: 'main',
    });
    expect(githubDefaults({ GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '3', GITHUB_REF: 'refs/pull/12/merge' })).toMatchObject({ runId: '5-3', pullRequest: 12 });
  });

  it("authenticates with QUERYTRAIL_TOKEN, else the job's ID token (id-token: write puts its request variables there), else nothing", () => {
    const job = { ACTIONS_ID_TOKEN_REQUEST_URL: 'https://runner.example/idtoken?api-version=2.0', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'rt' };
    expect(credentialOf({ ...job, QUERYTRAIL_TOKEN: 'qt_ci_x' })).toEqual({ kind: 'token', token: 'qt_ci_x' });
    expect(credentialOf(job)).toEqual({ kind: 'id-token', requestUrl: job.ACTIONS_ID_TOKEN_REQUEST_URL, requestToken: 'rt', audience: 'querytrail' });
    expect(credentialOf({ ...job, QUERYTRAIL_AUDIENCE: 'qt-prod' })).toMatchObject({ audience: 'qt-prod' });
    expect(credentialOf({ ...job, QUERYTRAIL_AUDIENCE: 'qt-prod' }, 'qt-flag')).toMatchObject({ audience: 'qt-flag' });
    expect(credentialOf({ ACTIONS_ID_TOKEN_REQUEST_URL: job.ACTIONS_ID_TOKEN_REQUEST_URL })).toEqual({ kind: 'none' });
    expect(credentialOf({ QUERYTRAIL_TOKEN: '' })).toEqual({ kind: 'none' });
  });

  it("asks for the job's ID token as GitHub's toolkit does, and says clearly why it got none", async () => {
    expect(idTokenRequestUrl('https://runner.example/idtoken?api-version=2.0', 'https://qt.example.com')).toBe(
      'https://runner.example/idtoken?api-version=2.0&audience=https%3A%2F%2Fqt.example.com',
    );
    const issuer = await startOidcIssuer();
    try {
      const request = { kind: 'id-token' as const, requestUrl: issuer.tokenRequest.url, requestToken: issuer.tokenRequest.token, audience: 'querytrail' };
      const claims = decodeJwt(await fetchIdToken(request));
      expect(claims).toMatchObject({ iss: issuer.url, aud: 'querytrail', repository: 'acme/app', sub: 'repo:acme/app:ref:refs/heads/main' });
      const refused = fetchIdToken({ ...request, requestToken: 'wrong' });
      await expect(refused).rejects.toBeInstanceOf(CliError);
      await expect(refused).rejects.toThrow(/answered 401: Unauthorized/);
    } finally {
      await issuer.close();
    }
  });

  it('names both ways to authenticate when the API refuses (401, 403)', () => {
    for (const credential of [
      undefined,
      { kind: 'token' as const, token: 'qt_ci_secret' },
      { kind: 'id-token' as const, requestUrl: 'https://runner.example/idtoken', requestToken: 'request-secret', audience: 'querytrail' },
    ]) {
      for (const status of [401, 403]) {
        const hint = refusalHint(status, credential, 'acme/app');
        expect(hint).toMatch(/QUERYTRAIL_TOKEN.*CI token.*`permissions: id-token: write`/);
        expect(hint).not.toMatch(/secret|runner\.example/);
      }
    }
    expect(refusalHint(400, undefined, 'acme/app')).toBe('');
  });

  it('accepts the API with or without /api', () => {
    expect(ingestUrl('http://h:3000')).toBe('http://h:3000/api/ci/runs');
    expect(ingestUrl('https://h/api/')).toBe('https://h/api/ci/runs');
  });

  it('splits a script on semicolons outside strings, comments and dollar quotes', async () => {
    const { loadParser } = await import('../shared/sql-fingerprint');
    await loadParser();
    expect(splitStatements("SELECT ';'; -- x; y\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n-- only a comment;")).toEqual([
      "SELECT ';'",
      '-- x; y\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql',
    ]);
  });
});
