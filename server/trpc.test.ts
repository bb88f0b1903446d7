// The same procedures through the tRPC transports internal tools use: the in-process caller and
// the typed HTTP client at /trpc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { appRouter, type AppRouter } from './routers/root';
import { createContext } from './trpc';
import { checkExposure } from './config';
import { BACKENDS, openTestServices, startTestServer, stopTestPostgres, testConfig, type TestServer } from '../test/support/services';

afterAll(stopTestPostgres);

describe.each(BACKENDS)('tRPC (%s)', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(await openTestServices(backend));
  });
  afterAll(() => server?.close());

  it('runs every environment procedure through the caller with the shared schemas', async () => {
    const caller = appRouter.createCaller(createContext(server.services));
    const { id } = await caller.env.create({ name: 'Billing', slug: 'billing' });
    await caller.connections.add({ id, label: 'CI db', role: 'ci', connectionString: 'postgres://ci:pw@localhost:5432/app_test' });
    await caller.repos.link({ id, repo: 'acme/billing' });
    const env = await caller.env.get({ id });
    expect(env.connections).toEqual([
      expect.objectContaining({ label: 'CI db', role: 'ci', maskedConnectionString: 'postgres://ci:****@localhost:5432/app_test' }),
    ]);
    expect(env.repos.map((r) => r.repo)).toEqual(['acme/billing']);
    // tRPC callers pass the repo unencoded; REST passes org%2Frepo: both reach the same link
    await caller.repos.unlink({ id, repo: 'acme/billing' });
    expect((await caller.env.get({ id })).repos).toEqual([]);

    await expect(caller.env.create({ name: 'Again', slug: 'billing' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(caller.env.get({ id: 'env_missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('gives typed HTTP clients field-level issues and no stack traces', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.url}/trpc` })] });
    const { id } = await client.env.create.mutate({ name: 'Typed', slug: 'typed' });
    expect((await client.env.list.query()).map((e) => e.id)).toContain(id);

    const error = await client.env.create.mutate({ name: 'x', slug: 'Not A Slug' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data as { apiCode: string; issues: { path: string }[]; stack?: string };
    expect(data.apiCode).toBe('validation_failed');
    expect(data.issues[0]!.path).toBe('slug');
    expect(data.stack).toBeUndefined();
  });
});

describe('exposure check', () => {
  it('refuses a non-loopback HOST without API_TOKEN unless ALLOW_UNAUTHENTICATED=1', () => {
    expect(checkExposure(testConfig({ host: '127.0.0.1' }))).toBeUndefined();
    expect(checkExposure(testConfig({ host: '0.0.0.0' }))).toMatch(/API_TOKEN/);
    expect(checkExposure(testConfig({ host: '0.0.0.0', apiToken: 't' }))).toBeUndefined();
    expect(checkExposure(testConfig({ host: '0.0.0.0', allowUnauthenticated: true }))).toBeUndefined();
  });
});
