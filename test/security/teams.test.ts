// Attacks on a team deployment's access rules, on PGlite and on PostgreSQL: another environment's
// data, cross-site requests riding a session, revoked and expired tokens, tokens in the store or in
// a log, and the audit log's record of who did what (without secrets).
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../server/catalog/sql';
import { openStore } from '../../server/db/store';
import { createSecrets } from '../../server/secrets';
import { withJobs } from '../../server/services';
import { apiTokens } from '../../server/db/schema';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, type TestServer } from '../support/services';
import { requestJson } from '../support/api';
import { anonymous, BREAK_GLASS, breakGlass, ciToken, grant, personalToken, requestAs, signedIn, type Caller } from '../support/team';

afterAll(() => stopTestPostgres());

/** Every table's rows as text: what a copy of the store would give away. */
async function storeText(server: TestServer): Promise<string> {
  const { db } = server.services.store;
  const tables = await rowsOf<{ name: string }>(db, sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`);
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await rowsOf<{ t: string }>(db, sql.raw(`SELECT t::text AS t FROM "${name}" t`));
    parts.push(...rows.map((r) => r.t));
  }
  return parts.join('\n');
}

describe.each(BACKENDS)('a team deployment under attack (%s)', (backend) => {
  let server: TestServer;
  let envA: string;
  let envB: string;
  let hashB: string;
  let runB: string;
  let owner: Caller & { userId: string };

  const asAdmin = async (method: string, path: string, json?: unknown) => {
    const answer = await requestAs(server, breakGlass, `/api${path}`, { method, json });
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
    return answer.body as Record<string, string>;
  };

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { apiToken: BREAK_GLASS }));
    envA = (await asAdmin('POST', '/env', { name: 'A', slug: 'env-a' })).id!;
    envB = (await asAdmin('POST', '/env', { name: 'B', slug: 'env-b' })).id!;
    await asAdmin('POST', `/env/${envA}/repos`, { repo: 'acme/a' });
    await asAdmin('POST', `/env/${envB}/repos`, { repo: 'acme/b' });
    hashB = (await asAdmin('POST', `/env/${envB}/queries`, { query: "SELECT secret FROM payroll WHERE name = 'ceo'" })).hash!;
    runB = (await asAdmin('POST', '/ci/runs', { repo: 'acme/b', runId: 'b-1', queries: [{ query: 'SELECT * FROM payroll', calls: 1 }] })).id!;
    owner = await signedIn(server, 'owner-a@acme.test');
    await grant(server, envA, owner.name, 'owner');
  });
  afterAll(() => server?.close());

  it('answers a session or a token of environment A asking about environment B exactly as for an environment that does not exist', async () => {
    const token = await personalToken(server, owner, ['read', 'write']);
    const ci = await ciToken(server, envA);
    const missing = 'env_doesnotexist00';
    const reads = (id: string) => [
      `/api/env/${id}`,
      `/api/env/${id}/queries`,
      `/api/env/${id}/queries/${hashB}`,
      `/api/env/${id}/policy`,
      `/api/env/${id}/analyze`,
      `/api/env/${id}/members`,
      `/api/env/${id}/webhooks`,
      `/api/env/${id}/acknowledgements`,
      `/api/ci/runs?environmentId=${id}`,
    ];
    for (const caller of [owner, token]) {
      const b = reads(envB);
      const none = reads(missing);
      for (let i = 0; i < b.length; i++) {
        const [answerB, answerNone] = [await requestAs(server, caller, b[i]!), await requestAs(server, caller, none[i]!)];
        expect(answerB.status, `${caller.name} ${b[i]}`).toBe(404);
        expect(answerB.text.replaceAll(envB, 'ID'), b[i]).toBe(answerNone.text.replaceAll(missing, 'ID'));
      }
      // a change of B as well
      const rename = await requestAs(server, caller, `/api/env/${envB}`, { method: 'PATCH', json: { name: 'Mine now' } });
      expect(rename.status).toBe(404);
    }
    // B's runs are not listed and cannot be read, by a person of A or by A's CI token
    const listed = await requestAs(server, owner, '/api/ci/runs');
    expect(listed.body.map((r: { id: string }) => r.id)).not.toContain(runB);
    for (const caller of [owner, token, ci]) {
      expect((await requestAs(server, caller, `/api/ci/runs/${runB}`)).status, caller.name).toBe(404);
      expect((await requestAs(server, caller, `/api/ci/runs/${runB}/verdict`)).status, caller.name).toBe(404);
    }
    expect((await asAdmin('GET', `/api/env/${envB}`.slice(4))).name).toBe('B');
  });

  it('refuses a cookie-authenticated change sent from another site, through REST and tRPC, and changes nothing', async () => {
    const attempts: { label: string; path: string; headers: Record<string, string>; json: unknown }[] = [
      { label: 'foreign Origin', path: `/api/env/${envA}`, headers: { origin: 'https://evil.example', 'x-csrf-token': owner.csrf! }, json: { name: 'pwned' } },
      { label: 'no CSRF token', path: `/api/env/${envA}`, headers: { origin: server.url }, json: { name: 'pwned' } },
      { label: 'wrong CSRF token', path: `/api/env/${envA}`, headers: { origin: server.url, 'x-csrf-token': 'x'.repeat(43) }, json: { name: 'pwned' } },
      {
        label: 'no Origin, cross-site fetch',
        path: `/api/env/${envA}`,
        headers: { 'sec-fetch-site': 'cross-site', 'x-csrf-token': owner.csrf! },
        json: { name: 'pwned' },
      },
      { label: 'no Origin at all', path: `/api/env/${envA}`, headers: { 'x-csrf-token': owner.csrf! }, json: { name: 'pwned' } },
    ];
    for (const attempt of attempts) {
      const rest = await requestJson(`${server.url}${attempt.path}`, {
        method: 'PATCH',
        json: attempt.json,
        headers: { ...owner.headers, ...attempt.headers },
      });
      expect(rest.status, attempt.label).toBe(403);
      expect(rest.body.error.code, attempt.label).toBe('origin_not_allowed');
      const trpc = await requestJson(`${server.url}/trpc/env.update`, {
        method: 'POST',
        json: { id: envA, name: 'pwned' },
        headers: { ...owner.headers, ...attempt.headers },
      });
      expect(trpc.status, `tRPC ${attempt.label}`).toBe(403);
    }
    expect((await asAdmin('GET', `/env/${envA}`)).name).toBe('A');
    // the same change from our own page goes through
    const ours = await requestAs(server, owner, `/api/env/${envA}`, { method: 'PATCH', json: { name: 'A renamed' } });
    expect(ours.status, ours.text).toBe(200);
    await asAdmin('PATCH', `/env/${envA}`, { name: 'A' });
  });

  it('stops a revoked or expired token at once, and answers an unknown one like a revoked one', async () => {
    const created = await requestAs(server, owner, '/api/tokens', { method: 'POST', json: { name: 'laptop', scopes: ['read'], expiresInDays: 30 } });
    expect(created.status, created.text).toBe(201);
    const { id, token } = created.body as { id: string; token: string };
    expect(token).toMatch(/^qtp_/);
    const bearer = { name: 'pat', headers: { authorization: `Bearer ${token}` } };
    expect((await requestAs(server, bearer, `/api/env/${envA}`)).status).toBe(200);
    // read scope only: no changes
    const change = await requestAs(server, bearer, `/api/env/${envA}/repos`, { method: 'POST', json: { repo: 'acme/other' } });
    expect(change.status).toBe(403);
    expect(change.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/write scope/) });

    const listed = await requestAs(server, owner, '/api/tokens');
    expect(listed.body).toContainEqual(expect.objectContaining({ id, name: 'laptop', scopes: ['read'], revokedAt: null, lastUsedAt: expect.any(String) }));
    expect(listed.text).not.toContain(token.slice(-20));

    expect((await requestAs(server, owner, `/api/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
    const after = await requestAs(server, bearer, `/api/env/${envA}`);
    expect(after.status).toBe(401);
    const unknown = await requestAs(server, { name: 'x', headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } }, `/api/env/${envA}`);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(after.body);

    const expiring = await personalToken(server, owner, ['read'], 'old');
    await server.services.store.db
      .update(apiTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(sql`id = ${expiring.id}`);
    expect((await requestAs(server, expiring, `/api/env/${envA}`)).status).toBe(401);
  });

  it('keeps tokens out of the store and out of the logs: only a hash of each is stored, and no answer or log line repeats one', async () => {
    const written: string[] = [];
    const capture = (stream: NodeJS.WriteStream) =>
      vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
        written.push(String(chunk));
        return true;
      }) as never);
    const spies = [capture(process.stdout), capture(process.stderr)];
    try {
      const personal = (await requestAs(server, owner, '/api/tokens', { method: 'POST', json: { name: 'ci-script', scopes: ['read', 'write'] } })).body
        .token as string;
      const ci = (await requestAs(server, owner, `/api/env/${envA}/ci-tokens`, { method: 'POST', json: { name: 'github' } })).body.token as string;
      for (const token of [personal, ci]) {
        // used, used wrongly, and used where refused: every path that could log it
        await requestAs(server, { name: 't', headers: { authorization: `Bearer ${token}` } }, `/api/env/${envA}`);
        await requestAs(server, { name: 't', headers: { authorization: `Bearer ${token}x` } }, `/api/env/${envA}`);
        await requestAs(server, { name: 't', headers: { authorization: `Bearer ${token}` } }, `/api/env/${envB}`, { method: 'DELETE' });
      }
      const stored = await storeText(server);
      const audit = (await asAdmin('GET', '/audit?limit=500')) as unknown as unknown[];
      for (const token of [personal, ci]) {
        const secret = token.slice(-43);
        expect(stored).not.toContain(secret);
        expect(JSON.stringify(audit)).not.toContain(secret);
        expect(written.join('')).not.toContain(secret);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('records who changed what, from where, with settings before and after and never a secret; admins read it all, owners their environment', async () => {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    await requestAs(server, owner, `/api/env/${envA}/connections`, {
      method: 'POST',
      json: { label: 'Prod', role: 'production', connectionString: `postgres://app:${password}@db.internal:5432/shop` },
    });
    await requestAs(server, owner, `/api/env/${envA}/policy`, { method: 'PUT', json: { conditions: { cost_regression: 'off' } } });
    await requestAs(server, owner, `/api/env/${envA}/members/${encodeURIComponent('dev@acme.test')}`, { method: 'PUT', json: { role: 'editor' } });

    const log = await requestAs(server, owner, `/api/audit?environmentId=${envA}`);
    expect(log.status, log.text).toBe(200);
    expect(log.text).not.toContain(password);
    expect(log.text).not.toContain('db.internal');
    const policy = log.body.find((e: { action: string }) => e.action === 'policy.update');
    expect(policy).toMatchObject({ actorKind: 'user', actor: owner.name, environmentId: envA, sourceAddress: expect.stringMatching(/127\.0\.0\.1/) });
    expect(policy.before.conditions.cost_regression).not.toBe('off');
    expect(policy.after.conditions.cost_regression).toBe('off');
    expect(log.body.find((e: { action: string }) => e.action === 'members.set')).toMatchObject({
      target: 'dev@acme.test',
      before: null,
      after: { role: 'editor' },
    });
    expect(log.body.find((e: { action: string }) => e.action === 'connections.add')).toMatchObject({ after: { label: 'Prod', role: 'production' } });

    // the owner of A reads nothing of B; without a filter, only A's entries
    expect((await requestAs(server, owner, `/api/audit?environmentId=${envB}`)).status).toBe(404);
    const mine = await requestAs(server, owner, '/api/audit');
    expect(mine.body.length).toBeGreaterThan(0);
    expect(mine.body.every((e: { environmentId: string }) => e.environmentId === envA)).toBe(true);
    // an admin reads everything, including the environments break-glass created
    const all = (await asAdmin('GET', '/audit?limit=500')) as unknown as { action: string; actorKind: string; environmentId: string }[];
    expect(all.some((e) => e.action === 'env.create' && e.actorKind === 'break-glass' && e.environmentId === envB)).toBe(true);
    // a viewer is not an owner
    const viewer = await signedIn(server, 'viewer-a@acme.test');
    await grant(server, envA, viewer.name, 'viewer');
    const refused = await requestAs(server, viewer, `/api/audit?environmentId=${envA}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/owner/);
  });

  it('keeps an owner on every environment, and answers who is asking', async () => {
    const last = await requestAs(server, owner, `/api/env/${envA}/members/${encodeURIComponent(owner.name)}`, { method: 'PUT', json: { role: 'viewer' } });
    expect(last.status).toBe(409);
    expect((await requestAs(server, owner, '/api/me')).body).toMatchObject({ email: owner.name, role: 'member', memberships: { [envA]: 'owner' } });
    expect((await requestAs(server, anonymous, '/api/me')).status).toBe(401);
    // a member who creates an environment owns it
    const created = await requestAs(server, owner, '/api/env', { method: 'POST', json: { name: 'Mine', slug: 'mine-owner' } });
    const members = await requestAs(server, owner, `/api/env/${created.body.id}/members`);
    expect(members.body).toEqual([expect.objectContaining({ email: owner.name, role: 'owner' })]);
  });
});

describe('two servers on one PostgreSQL store', () => {
  it('stop accepting a revoked token and an ended membership at once, on both', async () => {
    const first = await openTestServices('postgres', { apiToken: BREAK_GLASS });
    const a = await startTestServer(first);
    const storeB = await openStore({ databaseUrl: first.config.databaseUrl });
    const b = await startTestServer(await withJobs(storeB, createSecrets(randomBytes(32)), first.config));
    try {
      const env = (await requestAs(a, breakGlass, '/api/env', { method: 'POST', json: { name: 'Shared', slug: 'shared' } })).body.id as string;
      const person = await signedIn(a, 'dev@acme.test');
      await grant(a, env, person.name, 'editor');
      const token = await personalToken(a, person, ['read', 'write']);
      for (const server of [a, b]) {
        expect((await requestAs(server, token, `/api/env/${env}`)).status).toBe(200);
        expect((await requestAs(server, person, `/api/env/${env}`)).status).toBe(200);
      }
      expect((await requestAs(b, token, `/api/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await requestAs(a, token, `/api/env/${env}`)).status).toBe(401);
      expect((await requestAs(b, breakGlass, `/api/env/${env}/members/${encodeURIComponent(person.name)}`, { method: 'DELETE' })).status).toBe(204);
      expect((await requestAs(a, person, `/api/env/${env}`)).status).toBe(404);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
