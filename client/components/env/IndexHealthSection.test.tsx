// @vitest-environment jsdom
// Index health on the environment page, against the real web server (PGlite store) and a real
// production PostgreSQL, over the real tRPC client.
import { cleanup, screen, within } from '@testing-library/react';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({ production: true });
  // Two indexes production never scans: one no catalog query reads, one the catalog's query plans with.
  const client = new pg.Client({ connectionString: server.productionUrl });
  await client.connect();
  await client.query(
    `CREATE INDEX orders_total_idx ON orders (total_cents); CREATE INDEX "Orders ""Customer"" idx" ON orders (customer_id); SELECT pg_stat_reset()`,
  );
  await client.end();
}, 120_000);
afterAll(() => server?.close());
afterEach(cleanup);

async function environment(slug: string, production: boolean) {
  const id = (await server.api<{ id: string }>('POST', '/env', { name: slug, slug })).body.id;
  if (production) await server.api('POST', `/env/${id}/connections`, { label: 'Primary', role: 'production', connectionString: server.productionUrl });
  return id;
}

describe('Index health', () => {
  it('says it is read by Analyze before any analysis ran', async () => {
    const id = await environment('fresh', false);
    renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Index Health' });
    expect(await within(section).findByText('Not read yet.')).toBeTruthy();
  });

  it('lists the unused indexes with size, DROP statement and what dropping each would slow down', async () => {
    const id = await environment('shop-health', true);
    await server.api('POST', `/env/${id}/queries`, { query: 'SELECT id FROM orders WHERE customer_id = $1' });
    const started = await server.api<{ id: string }>('POST', `/env/${id}/analyze`);
    expect(started.status).toBe(202);
    for (let i = 0; i < 240; i++) {
      const latest = await server.api<{ status: string }>('GET', `/env/${id}/analyze`);
      if (latest.body.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Index Health' });
    expect(await within(section).findByText(/since statistics were reset/)).toBeTruthy();

    const total = within(section).getByRole('listitem', { name: 'public.orders_total_idx' });
    expect(within(total).getByText('unused')).toBeTruthy();
    expect(within(total).getByText('DROP INDEX CONCURRENTLY public.orders_total_idx;')).toBeTruthy();
    expect(within(total).getByRole('button', { name: 'Copy DROP statement for orders_total_idx' })).toBeTruthy();
    expect(within(total).getByText('Safe to drop')).toBeTruthy();
    expect(within(total).getByText(/kB|MB/)).toBeTruthy();

    const customer = within(section).getByRole('listitem', { name: 'public.Orders "Customer" idx' });
    expect(within(customer).getByText('DROP INDEX CONCURRENTLY public."Orders ""Customer"" idx";')).toBeTruthy();
    expect(within(customer).queryByText('Safe to drop')).toBeNull();
    const slower = within(customer).getByRole('list', { name: 'Queries slower without Orders "Customer" idx' });
    expect(await within(slower).findByText(/customer_id/)).toBeTruthy();
    expect(within(slower).getByText(/cost [\d,.]+ → [\d,.]+/)).toBeTruthy();
  }, 120_000);
});
