// The SPA's schema browser in Chromium on a database of tenants: the sync is a summary (schemas of
// the same structure shown once), the objects come a page at a time as the virtualized list scrolls,
// a near-identical schema stands apart, and a search goes through each group once.
// The database is Pagila in eleven schemas (t1..t10 alike, t11 with one more index). With
// QT_TENANTS_DB set to a connection string (the 10 tenants of GitLab that `npm run bench:analyzer --
// tenants` keeps), the same walk runs on that database instead, minus the Pagila-specific checks.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnalyzer, type RunningAnalyzer } from '../../analyzer/app';
import { loadPagilaTenants } from '../support/analyzer';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices } from '../support/services';

const external = process.env.QT_TENANTS_DB;
let app: BrowserApp;
let analyzer: RunningAnalyzer;
let postgres: PostgresServer | undefined;
let page: Page;
let url: string;

beforeAll(async () => {
  const database = external ? Promise.resolve(undefined) : startPostgres({ major: 18 });
  [app, postgres] = await Promise.all([startBrowserApp(openTestServices('pglite')), database]);
  page = app.page;
  url = external ?? (await loadPagilaTenants(postgres!, { count: 11 }));
  analyzer = await startAnalyzer({ port: 0, webPort: Number(new URL(app.server.url).port), log: () => undefined, env: {} });
}, 300_000);

afterAll(async () => {
  await analyzer?.close();
  await app?.close();
  await postgres?.stop();
});

describe('schema browser in Chromium', () => {
  it('syncs a summary: schemas of the same structure once, a near-identical one apart', async () => {
    await page.goto(app.server.url);
    await page.getByText('Advanced settings').click();
    await page.getByLabel('Analyzer endpoint').fill(analyzer.url);
    await visible(page.getByRole('status', { name: 'Analyzer status' }).getByText('Live', { exact: true }));
    await page.getByLabel('PostgreSQL connection string').fill(url);
    await page.getByRole('button', { name: 'Sync' }).click();
    await page.waitForURL('**/sync', { timeout: 120_000 });

    const schema = page.getByRole('region', { name: /^Schema/ });
    const schemas = schema.getByRole('list', { name: 'Schemas' });
    await visible(schemas.getByRole('button', { name: /t1 … t10\s*10 schemas of the same/ }), 60_000);
    if (!external) {
      await visible(schemas.getByRole('button', { name: /^t11\s*70 tables · 163 indexes$/ }));
      await visible(schemas.getByRole('button', { name: /10 schemas of the same 70 tables · 162 indexes/ }));
    }
    // the group is shown: its first schema's objects, for all ten
    await visible(schema.getByRole('heading', { name: 't1 (and 9 others alike)' }));
    await visible(schema.getByText('t2 … t10 have the same structure as t1', { exact: false }));
    const objects = schema.getByRole('list', { name: 'Objects' });
    await visible(objects.getByRole('heading', { name: /^Tables/ }));
    expect(app.pageErrors).toEqual([]);
    await page.getByRole('heading', { name: /^Schema/ }).evaluate((el) => el.scrollIntoView());
    await screenshot(page, `20-schema-browser-tenants${external ? '-external' : ''}`, { fullPage: false });
  }, 180_000);

  it('renders only the rows in view, and fetches more as the list scrolls', async () => {
    const schema = page.getByRole('region', { name: /^Schema/ });
    const objects = schema.getByRole('list', { name: 'Objects' });
    const rendered = await objects.getByRole('listitem').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80); // of well over a hundred objects (Pagila: 70 tables alone)
    // to the end: the last kind, sequences, whose pages were not asked for until now
    await objects.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await visible(objects.getByText(/^t1\.\w+_seq$/), 30_000);
    if (!external) await visible(objects.getByRole('heading', { name: /^Sequences/ }));
    expect(await objects.getByText('Loading…').count()).toBe(0);
    await screenshot(page, `21-schema-browser-scrolled${external ? '-external' : ''}`, { fullPage: false });
    await objects.evaluate((el) => el.scrollTo(0, 0));
  }, 90_000);

  it('opens a table of another schema, and searches each group once', async () => {
    if (external) return;
    const schema = page.getByRole('region', { name: /^Schema/ });
    await schema.getByRole('list', { name: 'Schemas' }).getByRole('button', { name: /^t11/ }).click();
    await visible(schema.getByRole('heading', { name: 't11', exact: true }));
    const objects = schema.getByRole('list', { name: 'Objects' });
    await objects.getByText('t11.actor', { exact: true }).click();
    await visible(objects.getByText('actor_first_name_idx'));
    await visible(objects.getByText('last_name').first());

    await schema.getByLabel('Search schema').fill('film_actor');
    await visible(schema.getByText(/^\d+ matching objects$/));
    const found = schema.getByRole('list', { name: 'Matching objects' });
    await visible(found.getByText('t1.film_actor', { exact: true }));
    await visible(found.getByText('t11.film_actor', { exact: true }));
    expect(await found.getByText('t2.film_actor', { exact: true }).count()).toBe(0);
    await screenshot(page, '22-schema-browser-search', { fullPage: false });
    expect(app.pageErrors).toEqual([]);
  }, 90_000);
});
