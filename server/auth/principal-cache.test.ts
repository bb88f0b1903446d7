// Resolved principals are kept in memory on both stores: a change to a token, a session, a person or
// a membership must still take effect with the request after it (on PostgreSQL, on every server of
// the store), and a credential that expires by itself must stop working when it expires, not when
// the kept answer ages out.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTokens, users } from '../db/schema';
import { openStore } from '../db/store';
import { createSecrets } from '../secrets';
import { withJobs } from '../services';
import { openTestServices, startTestServer, type TestServer } from '../../test/support/services';
import { BREAK_GLASS, breakGlass, grant, personalToken, requestAs, signedIn } from '../../test/support/team';
import { openPrincipalCache } from './principal-cache';
import type { Principal } from './principal';

describe.each(['pglite', 'postgres'] as const)('principals kept in memory on the %s store', (backend) => {
  let server: TestServer;
  let envId: string;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend, { apiToken: BREAK_GLASS }));
    const created = await requestAs(server, breakGlass, '/api/env', { method: 'POST', json: { name: 'Cache', slug: 'cache' } });
    expect(created.status, created.text).toBe(201);
    envId = (created.body as { id: string }).id;
  });
  afterAll(() => server?.close());

  it('forgets a person at once when a membership, a role, a token or a session changes', async () => {
    const viewer = await signedIn(server, 'viewer@acme.test');
    await grant(server, envId, viewer.name, 'viewer');
    const token = await personalToken(server, viewer, ['read']);
    for (const caller of [viewer, token]) expect((await requestAs(server, caller, `/api/env/${envId}`)).status, caller.name).toBe(200);
    // asked twice: the second answer came from memory
    for (const caller of [viewer, token]) expect((await requestAs(server, caller, `/api/env/${envId}`)).status, caller.name).toBe(200);

    const removed = await requestAs(server, breakGlass, `/api/env/${envId}/members/${encodeURIComponent(viewer.name)}`, { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(204);
    for (const caller of [viewer, token]) expect((await requestAs(server, caller, `/api/env/${envId}`)).status, caller.name).toBe(404);

    await grant(server, envId, viewer.name, 'viewer');
    expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(200);
    // an instance role changed in the store by hand (as `npm run admin` does): admins see every environment
    const other = await requestAs(server, breakGlass, '/api/env', { method: 'POST', json: { name: 'Other', slug: 'other' } });
    const otherId = (other.body as { id: string }).id;
    expect((await requestAs(server, viewer, `/api/env/${otherId}`)).status).toBe(404);
    await server.services.store.db
      .update(users)
      .set({ role: 'admin' })
      .where(sql`id = ${viewer.userId}`);
    expect((await requestAs(server, viewer, `/api/env/${otherId}`)).status).toBe(200);

    expect((await requestAs(server, viewer, `/api/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(401);

    const out = await requestAs(server, viewer, '/auth/logout', { method: 'POST' });
    expect(out.status, out.text).toBe(204);
    expect((await requestAs(server, viewer, `/api/env/${envId}`)).status).toBe(401);
  });

  it('stops a token the moment it expires, though its answer was kept', async () => {
    const person = await signedIn(server, 'short@acme.test');
    await grant(server, envId, person.name, 'viewer');
    const token = await personalToken(server, person, ['read'], 'short-lived');
    const expiresAt = new Date(Date.now() + 1500);
    await server.services.store.db
      .update(apiTokens)
      .set({ expiresAt })
      .where(sql`id = ${token.id}`);
    const before = await requestAs(server, token, `/api/env/${envId}`);
    // on a machine too busy to ask within the token's life, there is nothing left to show
    if (Date.now() < expiresAt.getTime()) expect(before.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now() + 20)));
    expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(401);
  });

  it('does not keep an answer read before a change that was announced while it was read', async () => {
    const cache = await openPrincipalCache(server.services.store);
    const principal: Principal = { kind: 'ci-token', tokenId: 'tok_x', name: 'x', environmentId: envId };
    await cache.remember('kept', async () => ({ principal, validUntilMs: null }));
    expect(await cache.get('kept')).toBe(principal);
    await cache.remember('raced', async () => {
      // the revocation lands between the lookup and its being kept
      await server.services.store.db
        .update(apiTokens)
        .set({ revokedAt: new Date() })
        .where(sql`false`);
      return { principal, validUntilMs: null };
    });
    expect(await cache.get('raced')).toBeUndefined();
    expect(await cache.get('kept')).toBeUndefined();
  });
});

describe('principals kept in memory by several servers of one PostgreSQL store', () => {
  let a: TestServer;
  let b: TestServer;
  let envId: string;

  beforeAll(async () => {
    const first = await openTestServices('postgres', { apiToken: BREAK_GLASS });
    a = await startTestServer(first);
    b = await startTestServer(await withJobs(await openStore({ databaseUrl: first.config.databaseUrl }), createSecrets(randomBytes(32)), first.config));
    envId = (await requestAs(a, breakGlass, '/api/env', { method: 'POST', json: { name: 'Shared', slug: 'shared-cache' } })).body.id as string;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('refuses a token on one server the moment another has revoked it, every time', async () => {
    const person = await signedIn(a, 'racer@acme.test');
    await grant(a, envId, person.name, 'viewer');
    // a race lost once in a while would pass a single try: many, each with its answer kept on both servers first
    for (let i = 0; i < 15; i++) {
      const token = await personalToken(a, person, ['read'], `race-${i}`);
      for (const server of [a, b, a, b]) expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(200);
      const [revoker, other] = i % 2 ? [a, b] : [b, a];
      expect((await requestAs(revoker, person, `/api/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await requestAs(other, token, `/api/env/${envId}`)).status, `try ${i}`).toBe(401);
    }
  });

  // The listening backend is stopped (SIGSTOP) while another server notifies and commits, as a busy
  // machine may leave it unscheduled: caughtUp must wait for it rather than trust what has arrived.
  // It signals the server's process, so it needs the tests' own local PostgreSQL.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('has heard, once caught up, every notification committed on another server before it asked', async () => {
    let heard = 0;
    const channel = await a.services.store.listen('qt_test_channel', () => (heard += 1));
    const listeners = await b.services.store.read<{ pid: number }>({
      name: 'test_listener_pids',
      text: `SELECT pid FROM pg_stat_activity WHERE application_name = 'querytrail-listen'`,
      values: [],
    });
    try {
      const opened = heard; // opening forgets whatever was kept before
      for (const { pid } of listeners) process.kill(pid, 'SIGSTOP');
      await b.services.store.read({ name: 'test_notify', text: `SELECT pg_notify('qt_test_channel', 'x')`, values: [] });
      const caughtUp = channel.caughtUp().then(() => heard - opened);
      // let the request reach the stopped backend before it runs again
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const { pid } of listeners) process.kill(pid, 'SIGCONT');
      expect(await caughtUp).toBe(1);
    } finally {
      for (const { pid } of listeners) process.kill(pid, 'SIGCONT');
      await channel.close();
    }
  });

  it('uses nothing kept while it cannot hear the store, and listens again', async () => {
    const person = await signedIn(a, 'deaf@acme.test');
    await grant(a, envId, person.name, 'viewer');
    const token = await personalToken(a, person, ['read']);
    for (const server of [b, b]) expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(200);
    // every listening connection of the store cut, then the token revoked: no notification reaches anyone
    await a.services.store.read({
      name: 'test_cut_listeners',
      text: `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'querytrail-listen'`,
      values: [],
    });
    await a.services.store.db
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(sql`id = ${token.id}`);
    expect((await requestAs(b, token, `/api/env/${envId}`)).status).toBe(401);

    // listening again, the servers keep answers and hear revocations as before
    const next = await personalToken(a, person, ['read'], 'after');
    await expect
      .poll(
        async () => {
          const rows = await a.services.store.read<{ n: number }>({
            name: 'test_count_listeners',
            text: `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'querytrail-listen'`,
            values: [],
          });
          // each request past the retry interval asks for the connection again
          await requestAs(b, next, `/api/env/${envId}`);
          await requestAs(a, next, `/api/env/${envId}`);
          return rows[0]!.n;
        },
        { timeout: 30_000 },
      )
      .toBe(2);
    expect((await requestAs(b, next, `/api/env/${envId}`)).status).toBe(200);
    expect((await requestAs(a, person, `/api/tokens/${next.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await requestAs(b, next, `/api/env/${envId}`)).status).toBe(401);
  });
});
