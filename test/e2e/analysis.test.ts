// Query analysis in a real browser: an environment whose production connection is a real
// PostgreSQL with 20,000 orders; a CI run reports queries as pg_stat_statements gives them; Analyze
// plans them with production's statistics and the SPA shows costs, the index, both plans and what
// changed in each CI run. A second environment reads the same database through a monitoring role
// that may not read the orders' column statistics: its query page says so, with the fix.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, type TestServer } from '../support/services';
import { BY_CUSTOMER, BY_ID, REFUNDS, createShopDatabase } from '../support/shop';
import { requestJson } from '../support/api';
import { hiddenStatisticsWarning } from '../../shared/statistics-warnings';

const REPO = 'acme/shop';

let app: BrowserApp;
let server: TestServer;
let production: PostgresServer;
let page: Page;
let pageErrors: string[] = [];
let envId = '';
let mainRunId = '';
let monitorUrl = '';

function api<T = any>(method: string, route: string, body?: unknown) {
  return requestJson<T>(`${server.url}/api${route}`, { method, json: body });
}

async function ingest(runId: string, branch: string, queries: string[]) {
  const res = await api('POST', '/ci/runs', { repo: REPO, runId, branch, queries: queries.map((query) => ({ query, calls: 100 })) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Opens the customer_id query's page from the environment's catalog; returns its Production Analysis. */
async function openQueryByCustomer() {
  await page
    .getByRole('table', { name: 'Query catalog' })
    .getByRole('link', { name: /customer_id/ })
    .click();
  await page.waitForURL(/\/queries\/[^/]+$/);
  return page.getByRole('region', { name: 'Production Analysis' });
}

beforeAll(async () => {
  [app, production] = await Promise.all([startBrowserApp(openTestServices('pglite')), startPostgres({ statStatements: false })]);
  ({ server, page, pageErrors } = app);
  const productionUrl = await createShopDatabase(production);
  // pg_monitor without SELECT on orders: pg_stats shows this role none of the orders' columns
  await production.query(`CREATE ROLE querytrail_monitor LOGIN PASSWORD 'monitor' IN ROLE pg_monitor`);
  monitorUrl = productionUrl.replace('postgres:postgres@', 'querytrail_monitor:monitor@');
  envId = (await api('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
  mainRunId = await ingest('500', 'main', [BY_CUSTOMER, BY_ID]);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await production?.stop();
});

describe('query analysis in Chromium', () => {
  it('Analyze: progress, then the ranked index with the queries it helps', async () => {
    await page.goto(`${server.url}/environments/${envId}`);
    const section = page.getByRole('region', { name: 'Query Analysis' });
    await visible(section.getByText('This environment has not been analyzed yet.'));
    const catalog = page.getByRole('table', { name: 'Query catalog' });
    // before any analysis the cost column says so
    await visible(catalog.getByRole('row').filter({ hasText: 'customer_id' }));
    expect(await catalog.getByRole('row').filter({ hasText: 'customer_id' }).getByRole('cell').nth(3).textContent()).toContain('—');

    await section.getByRole('button', { name: 'Analyze' }).click();
    await visible(section.getByRole('progressbar', { name: 'Analysis progress' }));
    await screenshot(page, 'a01-analysis-running', { fullPage: false });

    const indexes = section.getByRole('list', { name: 'Recommended indexes, most time saved first' });
    await visible(indexes, 120_000);
    expect(await section.getByRole('progressbar').count()).toBe(0);
    const first = indexes.getByRole('listitem').first();
    expect(await first.locator('pre').textContent()).toMatch(/CREATE INDEX .*orders.*customer_id/i);
    await visible(first.getByText('Total saved'));
    // what the index would cost to keep: its size in bytes and the writes to its table
    await visible(first.getByText(/~[\d.,]+ (kB|MB|GB|bytes?|B)\b/));
    await visible(first.getByText('Write overhead'));
    await visible(section.getByText(/Analyzed 2 queries with the statistics of/));
    // the query it helps, by its SQL, linking to its page
    await visible(first.getByRole('link', { name: /customer_id/ }));
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'a02-analysis-done');
  });

  it('catalog: a cost for every query, and a badge on the one an index would help', async () => {
    const catalog = page.getByRole('table', { name: 'Query catalog' });
    const headers = await catalog.getByRole('columnheader').allTextContents();
    expect(headers.map((h) => h.trim())).toEqual(['Query', 'Source', 'CI Runs', 'Cost', 'Last Seen']);
    const byCustomer = catalog.getByRole('row').filter({ hasText: 'customer_id' });
    const byId = catalog.getByRole('row').filter({ hasNotText: 'customer_id' }).filter({ hasText: 'orders' });
    await visible(byCustomer.getByText('Index recommended'));
    expect(await byId.getByText('Index recommended').count()).toBe(0);
    const cost = async (row: typeof byCustomer) => Number((await row.getByRole('cell').nth(3).textContent())!.replace(/[^\d.]/g, ''));
    expect(await cost(byCustomer)).toBeGreaterThan(await cost(byId));
    expect(await cost(byId)).toBeGreaterThan(0);
    await catalog.scrollIntoViewIfNeeded();
    await screenshot(page, 'a03-catalog-costs', { fullPage: false });
  });

  it('query page: cost before → after, and both plans with the changed steps marked', async () => {
    const facts = await openQueryByCustomer();
    await visible(facts.getByText('Production cost'));
    const recommendations = page.getByRole('region', { name: /Index Recommendations/ });
    await visible(recommendations.getByText(/CREATE INDEX .*customer_id/i));
    await visible(recommendations.getByText(/% saved$/));

    const plans = page.getByRole('region', { name: 'Plans' });
    const now = plans.getByRole('group', { name: 'Production plan now' });
    const withIndex = plans.getByRole('group', { name: 'Plan with the recommended indexes' });
    await visible(now.getByText(/^Seq Scan on orders/));
    await visible(withIndex.getByText(/^(Index Scan|Index Only Scan|Bitmap Index Scan).*using /));
    // the Seq Scan is gone in the other plan: marked, in words
    const seqScan = now.locator('.plan-node-line').filter({ hasText: /^Seq Scan on orders/ });
    await visible(seqScan.getByText('changed', { exact: true }));
    expect(await withIndex.getByText('changed', { exact: true }).count()).toBeGreaterThanOrEqual(1);
    // side by side on a wide window
    const [a, b] = [await now.boundingBox(), await withIndex.boundingBox()];
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(5);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    await recommendations.scrollIntoViewIfNeeded();
    await screenshot(page, 'a04-query-analysis');
  });

  it('query page on a narrow window: plans stacked, no sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    onTestFinished(() => page.setViewportSize({ width: 1280, height: 900 }));
    await page.reload();
    const plans = page.getByRole('region', { name: 'Plans' });
    const now = plans.getByRole('group', { name: 'Production plan now' });
    const withIndex = plans.getByRole('group', { name: 'Plan with the recommended indexes' });
    await visible(withIndex);
    expect((await withIndex.boundingBox())!.y).toBeGreaterThan((await now.boundingBox())!.y + 20);
    const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    await screenshot(page, 'a05-query-analysis-narrow');

    await page.goto(`${server.url}/environments/${envId}`);
    const analysis = page.getByRole('region', { name: 'Query Analysis' });
    await visible(analysis.getByRole('list', { name: 'Recommended indexes, most time saved first' }));
    await visible(page.getByRole('table', { name: 'Query catalog' }).getByText('Index recommended'));
    const envWidth = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(envWidth.scroll).toBeLessThanOrEqual(envWidth.client);
    await analysis.scrollIntoViewIfNeeded();
    await screenshot(page, 'a05b-environment-analysis-narrow', { fullPage: false });
  });

  it('CI runs: the first main run flags the query an index would help; a branch run shows its new query against main', async () => {
    await page.goto(`${server.url}/ci/${mainRunId}`);
    const section = page.getByRole('region', { name: 'Production Analysis' });
    await visible(section.getByText(/No earlier run of this branch/));
    const flagged = section.getByRole('table', { name: 'Queries whose cost rose or that gained a recommendation' });
    await visible(flagged.getByText('Index recommended'));
    expect(await flagged.locator('tbody tr').count()).toBe(1);
    await visible(flagged.getByText(/customer_id/));
    await screenshot(page, 'a06-ci-run-flagged', { fullPage: false });

    const featureRun = await ingest('501', 'feature/refunds', [BY_CUSTOMER, BY_ID, REFUNDS]);
    await page.goto(`${server.url}/ci/${featureRun}`);
    await visible(section.getByText('Compared with'));
    await visible(section.getByRole('link', { name: 'run 500' }));
    await visible(section.getByText('main', { exact: true }));
    await visible(section.getByText('No query got more expensive or gained an index recommendation.'));
    const added = section.getByRole('table', { name: 'Queries new since the baseline run' });
    await visible(added.getByText('New query'));
    // CI queries are stored normalized: the literal is a placeholder
    await visible(added.getByText(/status =/));
    await visible(added.getByText('not analyzed'));
    await screenshot(page, 'a07-ci-run-vs-main', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });

  it("query page through a monitoring role: planned without the orders' column statistics, and the fix", async () => {
    const monitored = (await api('POST', '/env', { name: 'Shop (monitoring role)', slug: 'shop-monitored' })).body.id as string;
    expect((await api('POST', `/env/${monitored}/connections`, { label: 'Monitoring', role: 'production', connectionString: monitorUrl })).status).toBe(201);
    expect((await api('POST', `/env/${monitored}/queries`, { query: BY_CUSTOMER })).status).toBe(201);

    await page.goto(`${server.url}/environments/${monitored}`);
    const section = page.getByRole('region', { name: 'Query Analysis' });
    await section.getByRole('button', { name: 'Analyze' }).click();
    await visible(section.getByText(/Analyzed 1 query with the statistics of/), 120_000);
    // the environment's analysis says it above its recommendations
    await visible(section.locator('.callout-warning').getByText(hiddenStatisticsWarning('public.orders')));

    const facts = await openQueryByCustomer();
    const callout = facts.getByRole('status');
    await visible(callout.getByText("Planned without some of production's statistics"));
    const items = await callout.getByRole('listitem').allTextContents();
    expect(items).toEqual([hiddenStatisticsWarning('public.orders')]);
    // the table, and both fixes: the grant and the administrator's helper with its page
    expect(items[0]).toMatch(/^planned without production column statistics for public\.orders: /);
    expect(items[0]).toContain('Grant it SELECT on public.orders');
    expect(items[0]).toContain('querytrail.column_stats() helper (docs/monitoring-role.md)');
    await facts.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'a08-query-hidden-statistics', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
