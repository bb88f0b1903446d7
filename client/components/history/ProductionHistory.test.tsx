// @vitest-environment jsdom
// Production history in the SPA, against the real web server (PGlite store) and a real production
// PostgreSQL with pg_stat_statements, over the real tRPC client: two readings around a workload, then
// the environment's top queries and the query's own history.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BY_ID } from '../../../test/support/shop';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';

let server: ApiServer;
let envId: string;
let hash: string;

beforeAll(async () => {
  server = await startApiServer({ production: true, statStatements: true });
  envId = (await server.api<{ id: string }>('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  await server.api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: server.productionUrl });
  const added = await server.api<{ hash: string }>('POST', `/env/${envId}/queries`, { query: BY_ID });
  hash = added.body.hash;
  expect((await server.api<{ connections: { result: string }[] }>('POST', `/env/${envId}/history/snapshot`)).body.connections[0]!.result).toBe('baseline');
  const client = new pg.Client({ connectionString: server.productionUrl });
  await client.connect();
  for (let i = 1; i <= 12; i++) await client.query(BY_ID, [i]);
  await client.end();
  expect((await server.api<{ points: number }>('POST', `/env/${envId}/history/snapshot`)).body.points).toBeGreaterThan(0);
}, 120_000);
afterAll(() => server?.close());
afterEach(cleanup);

describe('Production history', () => {
  it('lists the heaviest queries of the last 24 hours on the environment page, linked to their page', async () => {
    renderApp(`/environments/${envId}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Production History' });
    const top = await within(section).findByRole('table', { name: 'Top queries' });
    const row = within(top)
      .getByRole('link', { name: /FROM orders WHERE id/ })
      .closest('tr')!;
    expect(within(row).getByText('12')).toBeTruthy();
    expect(await within(section).findByText('No query got slower.')).toBeTruthy();
    expect(within(section).getByRole('radio', { name: '24 h' }).getAttribute('aria-checked')).toBe('true');
  });

  it("shows the query's calls over the chosen range on its page, and says when a range has none", async () => {
    renderApp(`/environments/${envId}/queries/${hash}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Production History' });
    expect(await within(section).findByText(/^12 calls, mean .* over the last 24 hours$/)).toBeTruthy();
    expect(within(section).getByRole('img', { name: 'Calls and mean time per reading over the last 24 hours' })).toBeTruthy();

    await userEvent.click(within(section).getByRole('radio', { name: '90 d' }));
    expect(await within(section).findByText(/^12 calls, mean .* over the last 90 days$/)).toBeTruthy();

    // a query production never ran
    const other = await server.api<{ hash: string }>('POST', `/env/${envId}/queries`, { query: 'SELECT 1 FROM orders WHERE status = $1' });
    cleanup();
    renderApp(`/environments/${envId}/queries/${other.body.hash}`, { trpcUrl: server.trpcUrl });
    const empty = await screen.findByRole('region', { name: 'Production History' });
    expect(await within(empty).findByText('No production calls in the last 24 hours')).toBeTruthy();
  });

  it('sets how often production is read for the environment, saved as it is picked', async () => {
    const interval = async () => (await server.api<{ snapshotIntervalSeconds: number | null }>('GET', `/env/${envId}`)).body.snapshotIntervalSeconds;
    renderApp(`/environments/${envId}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Production History' });
    const select = within(section).getByLabelText<HTMLSelectElement>('Readings');
    expect(select.value).toBe('default');
    // the server's default, named with its value while the environment follows it
    expect(within(select).getByRole('option', { name: "Server's default (every 10 min)" })).toBeTruthy();

    await userEvent.selectOptions(select, 'Off');
    await waitFor(async () => expect(await interval()).toBe(0));
    await waitFor(() => expect(select.disabled).toBe(false));
    await userEvent.selectOptions(select, 'Every 5 minutes');
    await waitFor(async () => expect(await interval()).toBe(300));
    await waitFor(() => expect(select.disabled).toBe(false));
    await userEvent.selectOptions(select, "Server's default");
    await waitFor(async () => expect(await interval()).toBeNull());

    // an interval set through the API that the list does not offer shows as itself
    await server.api('PATCH', `/env/${envId}`, { snapshotIntervalSeconds: 45 });
    cleanup();
    renderApp(`/environments/${envId}`, { trpcUrl: server.trpcUrl });
    const again = await screen.findByRole('region', { name: 'Production History' });
    await waitFor(() => expect(within(again).getByLabelText<HTMLSelectElement>('Readings').value).toBe('45'));
    expect(within(again).getByRole('option', { name: 'Every 45 s' })).toBeTruthy();
    await server.api('PATCH', `/env/${envId}`, { snapshotIntervalSeconds: null });
  });
});
