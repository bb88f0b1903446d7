// Production history in a real browser: a week of points for two queries (one got slower two days
// ago) beside real readings of a production PostgreSQL; the environment page lists the top and the
// regressed queries, the query page draws its chart with uPlot and switches ranges.
import type { Page } from 'playwright-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, type TestServer } from '../support/services';
import { BY_CUSTOMER, BY_ID, createShopDatabase } from '../support/shop';
import { requestJson } from '../support/api';
import { storePoints } from '../../server/history/reading';

let app: BrowserApp;
let server: TestServer;
let production: PostgresServer;
let page: Page;
let pageErrors: string[] = [];
let envId = '';
let byCustomer = '';

const api = <T = any>(method: string, route: string, body?: unknown) => requestJson<T>(`${server.url}/api${route}`, { method, json: body });

beforeAll(async () => {
  [app, production] = await Promise.all([startBrowserApp(openTestServices('pglite')), startPostgres({ statStatements: true })]);
  ({ server, page, pageErrors } = app);
  const { services } = server;
  const productionUrl = await createShopDatabase(production);
  await production.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements', [], 'shop');
  envId = (await api('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl });
  byCustomer = (await api('POST', `/env/${envId}/queries`, { query: BY_CUSTOMER })).body.hash;
  const byId = (await api('POST', `/env/${envId}/queries`, { query: BY_ID })).body.hash;

  // a week of 10-minute points: by customer runs 4 ms a call, 9 ms over the last day; by id stays at 0.1 ms
  const now = Date.now();
  for (let t = now - 7 * 86_400_000; t < now - 600_000; t += 600_000) {
    const hourOfDay = new Date(t).getUTCHours();
    const calls = 200 + Math.round(150 * Math.sin((hourOfDay / 24) * 2 * Math.PI));
    const slow = t > now - 86_400_000;
    await storePoints(
      services.store.db,
      envId,
      new Date(t),
      new Map([
        [
          byCustomer,
          { calls, totalTimeMs: calls * (slow ? 9 : 4) * (0.9 + 0.2 * Math.random()), rows: calls * 10, sharedBlksHit: calls * 30, sharedBlksRead: 5 },
        ],
        [byId, { calls: calls * 5, totalTimeMs: calls * 5 * 0.1, rows: calls * 5, sharedBlksHit: calls * 15, sharedBlksRead: 0 }],
      ]),
    );
  }
  // and two real readings around a real workload
  expect((await api('POST', `/env/${envId}/history/snapshot`)).body.connections[0].result).toBe('baseline');
  const client = new pg.Client({ connectionString: productionUrl });
  await client.connect();
  for (let i = 1; i <= 30; i++) await client.query(BY_CUSTOMER, [i, 10]);
  await client.end();
  expect((await api('POST', `/env/${envId}/history/snapshot`)).body.points).toBeGreaterThan(0);
}, 240_000);

afterAll(async () => {
  await app?.close();
  await production?.stop();
});

describe('production history in Chromium', () => {
  it('lists top and regressed queries on the environment page', async () => {
    await page.goto(`${server.url}/environments/${envId}`);
    const section = page.getByRole('region', { name: 'Production History' });
    await visible(section.getByRole('table', { name: 'Top queries' }));
    const regressed = await visible(section.getByRole('table', { name: 'Regressed queries' }));
    expect(await regressed.getByRole('row').count()).toBe(2); // the header and the by-customer query
    expect(await regressed.getByRole('link').first().textContent()).toContain('customer_id');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'history-environment', { fullPage: false });
  });

  it("draws the query's calls and mean time and switches ranges", async () => {
    await page.goto(`${server.url}/environments/${envId}/queries/${byCustomer}`);
    const section = page.getByRole('region', { name: 'Production History' });
    await visible(section.locator('.history-chart canvas'));
    await visible(section.getByText(/calls, mean .* over the last 24 hours/));
    await section.getByRole('radio', { name: '7 d' }).click();
    await visible(section.getByText(/calls, mean .* over the last 7 days/));
    await page.waitForTimeout(300); // the chart redraws on the next frame
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'history-query', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
