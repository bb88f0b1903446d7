// The demo in a real browser, from an empty DATA_DIR: "Start the demo database" on the first page,
// its steps shown as they are made, then the pull request's failing verdict with its CREATE INDEX,
// the environment's recommendations and a catalog of three sources, the demo database's schema,
// and Remove demo. The time from the click to the verdict on the page is printed (docs/demo.md).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { openTestServices, type TestServer } from '../support/services';
import { requestJson } from '../support/api';
import { closeDemos } from '../../server/demo/demo';

const DEMO_TIMEOUT = 300_000;

let app: BrowserApp;
let server: TestServer;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  app = await startBrowserApp(openTestServices('pglite'));
  ({ server, page, pageErrors } = app);
}, 120_000);

afterAll(async () => {
  await closeDemos();
  await app?.close();
});

describe('the demo in Chromium', () => {
  let prRunUrl = '';
  let envUrl = '';

  it(
    'one click: the steps show as they are made, then links to what the demo made',
    async () => {
      expect(existsSync(path.join(server.services.config.dataDir, 'demo-postgres'))).toBe(false);
      await page.goto(server.url);
      const card = page.getByRole('region', { name: 'No database at hand?' });
      await visible(card.getByText('npx querytrail demo'));
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'd00-onboarding-demo-button', { fullPage: false });

      const clicked = Date.now();
      await card.getByRole('button', { name: 'Start the demo database' }).click();
      const steps = card.getByRole('list', { name: 'Demo progress' });
      await visible(steps.getByRole('listitem', { name: 'Start PostgreSQL 18: done' }), 60_000);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'd01-demo-in-progress', { fullPage: false });

      const failingRun = card.getByRole('link', { name: 'See the failing CI run of pull request #42' });
      await visible(failingRun, DEMO_TIMEOUT);
      for (const label of ['Load the Pagila schema and data', 'Analyze the catalog with production statistics', "Judge the pull request's run"]) {
        await visible(steps.getByRole('listitem', { name: `${label}: done` }));
      }
      await visible(steps.getByText(/Failed: \d+ failing findings?; CREATE INDEX ON public\.payment \(rental_id\)/));
      await visible(card.getByText(/^The demo is ready \(made in \d+ s\)/));
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'd02-demo-ready');
      prRunUrl = (await failingRun.getAttribute('href'))!;
      envUrl = (await card.getByRole('link', { name: 'Open the “Pagila demo” environment' }).getAttribute('href'))!;

      await failingRun.click();
      const failed = page.getByRole('region', { name: 'Verdict: Failed' });
      await visible(failed);
      const finding = page.getByRole('list', { name: 'Findings, failing first' }).getByRole('listitem', { name: /^New query needs an index: query / });
      const createIndex = finding.getByRole('list', { name: 'Indexes to create' }).locator('pre').first();
      expect(await createIndex.textContent()).toMatch(/CREATE INDEX ON public\.payment \(rental_id\)/);
      const seconds = ((Date.now() - clicked) / 1000).toFixed(1);
      console.log(`demo: from the click to the failing verdict on the page: ${seconds} s`);
      await screenshot(page, 'd03-demo-failing-verdict');
    },
    DEMO_TIMEOUT,
  );

  it('the environment: recommendations and a catalog from CI, production and by hand', async () => {
    await page.goto(`${server.url}${envUrl}`);
    await visible(page.getByRole('heading', { name: 'Pagila demo', level: 1 }));
    const analysis = page.getByRole('region', { name: 'Query Analysis' });
    const indexes = analysis.getByRole('list', { name: 'Recommended indexes, most time saved first' });
    await visible(indexes.getByRole('listitem').first());
    await visible(indexes.getByText(/CREATE INDEX .*customer \(email/).first());
    const catalog = page.getByRole('table', { name: 'Query catalog' });
    for (const source of ['CI', 'Production', 'Manual']) await visible(catalog.getByText(source, { exact: true }).first());
    await visible(catalog.getByText('Index recommended').first());
    await screenshot(page, 'd04-demo-environment');
  });

  it("the demo database's schema, read by the server", async () => {
    await page.goto(server.url);
    const card = page.getByRole('region', { name: 'No database at hand?' });
    await card.getByRole('button', { name: 'View the demo database’s schema' }).click();
    await visible(page.getByRole('heading', { name: 'Sync result' }), 60_000);
    const schema = page.getByRole('region', { name: /^Schema/ });
    await visible(schema.getByText('rental', { exact: true }));
    await visible(schema.getByText('payment', { exact: true }));
    await screenshot(page, 'd05-demo-schema', { fullPage: false });
  });

  it('Remove demo: the environment, its runs and the database folder go', async () => {
    await page.goto(server.url);
    const card = page.getByRole('region', { name: 'No database at hand?' });
    await card.getByRole('button', { name: 'Remove demo' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove the demo?' });
    await dialog.getByRole('button', { name: 'Remove demo' }).click();
    await visible(card.getByRole('button', { name: 'Start the demo database' }), 60_000);
    expect((await requestJson(`${server.url}/api/env`, { method: 'GET' })).body).toEqual([]);
    expect((await requestJson(`${server.url}/api/ci/runs`, { method: 'GET' })).body).toEqual([]);
    expect(existsSync(path.join(server.services.config.dataDir, 'demo-postgres'))).toBe(false);
    await page.goto(`${server.url}${prRunUrl}`);
    await visible(page.getByText(/not found|does not exist/i).first());
    expect(pageErrors).toEqual([]);
  });
});
