// The PGlite store keeps resolved principals in memory: a change to a token, a session, a person or a
// membership must still take effect with the request after it, and a credential that expires by
// itself must stop working when it expires, not when the kept answer ages out.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTokens, users } from '../db/schema';
import { openTestServices, startTestServer, type TestServer } from '../../test/support/services';
import { BREAK_GLASS, breakGlass, grant, personalToken, requestAs, signedIn } from '../../test/support/team';
import { openPrincipalCache } from './principal-cache';
import type { Principal } from './principal';

describe('principals kept in memory on the PGlite store', () => {
  let server: TestServer;
  let envId: string;

  beforeAll(async () => {
    server = await startTestServer(await openTestServices('pglite', { apiToken: BREAK_GLASS }));
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
    await server.services.store.db.update(users).set({ role: 'admin' }).where(sql`id = ${viewer.userId}`);
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
    await server.services.store.db.update(apiTokens).set({ expiresAt }).where(sql`id = ${token.id}`);
    const before = await requestAs(server, token, `/api/env/${envId}`);
    // on a machine too busy to ask within the token's life, there is nothing left to show
    if (Date.now() < expiresAt.getTime()) expect(before.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now() + 20)));
    expect((await requestAs(server, token, `/api/env/${envId}`)).status).toBe(401);
  });

  it('does not keep an answer read before a change that was announced while it was read', async () => {
    const cache = (await openPrincipalCache(server.services.store))!;
    expect(cache).toBeDefined();
    const principal: Principal = { kind: 'ci-token', tokenId: 'tok_x', name: 'x', environmentId: envId };
    await cache.remember('kept', async () => ({ principal, validUntilMs: null }));
    expect(cache.get('kept')).toBe(principal);
    await cache.remember('raced', async () => {
      // the revocation lands between the lookup and its being kept
      await server.services.store.db.update(apiTokens).set({ revokedAt: new Date() }).where(sql`false`);
      return { principal, validUntilMs: null };
    });
    expect(cache.get('raced')).toBeUndefined();
    expect(cache.get('kept')).toBeUndefined();
  });
});
