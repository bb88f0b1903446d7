// End to end in a real browser: Debian's Chromium drives the built SPA, served by the real web
// server (PGlite store), talking to a real analyzer that reads a real PostgreSQL server.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startAnalyzer, type RunningAnalyzer } from '../../analyzer/app';
import { catalogQueries, environments } from '../../server/db/schema';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { freePort, startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, type TestServer } from '../support/services';

let app: BrowserApp;
let server: TestServer;
let analyzer: RunningAnalyzer;
let postgres: PostgresServer;
let page: Page;
let pageErrors: string[] = [];

const ENV_NAME = 'Checkout Service';
const REPO = 'acme/checkout';
let envPath = '';

async function setUpShopDatabase() {
  const url = await postgres.createDatabase('shop');
  await postgres.query('CREATE EXTENSION pg_stat_statements', [], 'shop');
  const statements = [
    `CREATE TYPE order_status AS ENUM ('pending', 'paid', 'shipped')`,
    `CREATE TABLE customers (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, email text NOT NULL UNIQUE, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(id), status order_status NOT NULL DEFAULT 'pending', total_cents integer NOT NULL CHECK (total_cents >= 0), created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC)`,
    `CREATE VIEW paid_orders AS SELECT * FROM orders WHERE status = 'paid'`,
    `CREATE FUNCTION touch_created_at() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.created_at := now(); RETURN NEW; END $$`,
    `CREATE TRIGGER orders_touch BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION touch_created_at()`,
    `INSERT INTO customers (email, name) SELECT 'user' || i || '@example.com', 'User ' || i FROM generate_series(1, 200) i`,
    `INSERT INTO orders (customer_id, status, total_cents) SELECT 1 + i % 200, (ARRAY['pending','paid','shipped'])[1 + i % 3]::order_status, i * 10 FROM generate_series(1, 2000) i`,
    `ANALYZE`,
  ];
  for (const sql of statements) await postgres.query(sql, [], 'shop');
  // a failed CREATE INDEX CONCURRENTLY leaves an invalid index the planner ignores
  await postgres.query('CREATE UNIQUE INDEX CONCURRENTLY orders_total_key ON orders (customer_id)', [], 'shop').catch(() => undefined);
  for (let i = 1; i <= 30; i++) {
    await postgres.query('SELECT * FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 10', [i], 'shop');
    await postgres.query('SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id = $1 GROUP BY c.name', [i], 'shop');
  }
  await postgres.query(`UPDATE orders SET status = 'shipped' WHERE id = $1`, [7], 'shop');
  return url;
}

beforeAll(async () => {
  [app, postgres] = await Promise.all([startBrowserApp(openTestServices('pglite')), startPostgres()]);
  ({ server, page, pageErrors } = app);
  analyzer = await startAnalyzer({ port: 0, webPort: Number(new URL(server.url).port), log: () => undefined, env: {} });
}, 120_000);

afterAll(async () => {
  await analyzer?.close();
  await app?.close();
  await postgres?.stop();
});

describe('querytrail in Chromium', () => {
  it('onboarding: the analyzer indicator follows the endpoint, which the browser remembers', async () => {
    await page.goto(server.url);
    await visible(page.getByRole('heading', { name: 'Analyze a PostgreSQL database' }));
    await page.getByText('Advanced settings').click();
    const endpoint = page.getByLabel('Analyzer endpoint');
    expect(await endpoint.inputValue()).toBe('http://localhost:2345');

    // nothing listens here: "Not live", and how to start the analyzer
    await endpoint.fill(`http://127.0.0.1:${await freePort()}`);
    const status = page.getByRole('status', { name: 'Analyzer status' });
    await visible(status.getByText('Not live', { exact: true }));
    await visible(page.getByText('npm run analyzer'));
    await visible(page.getByText('docker run -p 2345:2345'));
    await screenshot(page, '01-onboarding-not-live');

    await endpoint.fill(analyzer.url);
    await visible(status.getByText('Live', { exact: true }));
    expect(await page.getByText('npm run analyzer').count()).toBe(0);

    await page.reload();
    await page.getByText('Advanced settings').click();
    expect(await page.getByLabel('Analyzer endpoint').inputValue()).toBe(analyzer.url);
    await visible(page.getByRole('status', { name: 'Analyzer status' }).getByText('Live', { exact: true }));
  });

  it('onboarding: a connection string is validated as typed', async () => {
    const field = page.getByLabel('PostgreSQL connection string');
    await field.fill('mysql://root@localhost/app');
    await page.getByRole('button', { name: 'Sync' }).click();
    await visible(page.getByText('Connection string must start with postgres:// or postgresql://'));
    expect(await field.getAttribute('aria-invalid')).toBe('true');
  });

  it('sync: schema, sortable queries and disabled indexes of a real database', async () => {
    const url = await setUpShopDatabase();
    await page.getByLabel('PostgreSQL connection string').fill(url);
    await page.getByRole('button', { name: 'Sync' }).click();
    await page.waitForURL('**/sync', { timeout: 30_000 });
    await visible(page.getByRole('heading', { name: 'Sync result' }));
    // the password never shows
    await visible(page.getByText(/postgres:\/\/postgres:\*\*\*\*@127\.0\.0\.1/));

    // schema: tables open into columns, indexes and constraints
    const schema = page.getByRole('region', { name: /^Schema/ });
    await visible(schema.getByText('customers', { exact: true }));
    await schema.getByText('orders', { exact: true }).click();
    await visible(schema.getByText('orders_customer_idx').first());
    await visible(schema.getByText('total_cents').first());
    await visible(schema.getByText('paid_orders'));
    await visible(schema.getByText('order_status'));
    await visible(schema.getByText('pg_stat_statements', { exact: true }));

    // search narrows every kind of object
    await schema.getByLabel('Search schema').fill('custom');
    await visible(schema.getByText(/matching objects/));
    expect(await schema.getByText('paid_orders').count()).toBe(0);
    await visible(schema.getByText('customers', { exact: true }));
    await schema.getByLabel('Search schema').fill('');

    // queries from pg_stat_statements, formatted, sortable by calls
    const queries = page.getByRole('table', { name: 'Queries from pg_stat_statements' });
    await visible(queries.getByText(/FROM orders/).first());
    const calls = queries.getByRole('columnheader', { name: /Calls/ });
    await calls.getByRole('button').click();
    expect(await calls.getAttribute('aria-sort')).toBe('descending');
    const firstCalls = Number((await queries.locator('tbody tr').first().locator('td').nth(1).textContent())!.replace(/,/g, ''));
    expect(firstCalls).toBeGreaterThanOrEqual(30);
    await calls.getByRole('button').click();
    expect(await calls.getAttribute('aria-sort')).toBe('ascending');

    const disabled = page.getByRole('region', { name: /^Disabled indexes/ });
    await visible(disabled.getByText('orders_total_key'));
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, '02-sync-result', { fullPage: false });
    await queries.scrollIntoViewIfNeeded();
    await page.getByRole('heading', { name: /^Queries/ }).evaluate((el) => el.scrollIntoView());
    await screenshot(page, '02b-sync-queries', { fullPage: false });
    await disabled.evaluate((el) => el.scrollIntoView());
    await screenshot(page, '02c-sync-disabled-indexes', { fullPage: false });
  });

  it('sync: a database without pg_stat_statements shows why, with the setup steps, and the rest', async () => {
    const url = await postgres.createDatabase('plain');
    await postgres.query('CREATE TABLE things (id int PRIMARY KEY, label text)', [], 'plain');
    await page.getByRole('link', { name: 'Sync again' }).click();
    await page.getByLabel('PostgreSQL connection string').fill(url);
    await page.getByRole('button', { name: 'Sync' }).click();
    await page.waitForURL('**/sync', { timeout: 30_000 });
    const queries = page.getByRole('region', { name: /^Queries/ });
    await visible(queries.getByRole('alert').getByText('pg_stat_statements is not installed'));
    await visible(queries.getByText('CREATE EXTENSION IF NOT EXISTS pg_stat_statements;'));
    await visible(queries.getByText('shared_preload_libraries').first());
    // the other parts still render
    await visible(page.getByRole('region', { name: /^Schema/ }).getByText('things', { exact: true }));
    await queries.evaluate((el) => el.scrollIntoView());
    await screenshot(page, '03-sync-without-pg-stat-statements', { fullPage: false });
  });

  it('environments: create with a suggested slug, live validation and the server’s conflict beside the field', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click();
    await visible(page.getByText('No environments yet.'));
    await page.getByLabel('Name', { exact: true }).fill(ENV_NAME);
    const slug = page.getByLabel('Slug', { exact: true });
    expect(await slug.inputValue()).toBe('checkout-service');
    await slug.fill('Checkout Service');
    await visible(page.getByText('Slug may contain only lowercase letters, digits and hyphens'));
    await slug.fill('checkout-service');
    expect(await page.getByText('Slug may contain only lowercase letters, digits and hyphens').count()).toBe(0);
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.waitForURL(/\/environments\/[^/]+$/);
    envPath = new URL(page.url()).pathname;
    await visible(page.getByRole('heading', { name: ENV_NAME, level: 1 }));

    // same slug again: the server's 409 shows beside the slug
    await page.goto(`${server.url}/environments`);
    await visible(page.getByRole('link', { name: /Checkout Service/ }));
    await page.getByLabel('Name', { exact: true }).fill('Another checkout');
    await page.getByLabel('Slug', { exact: true }).fill('checkout-service');
    await page.getByRole('button', { name: 'Create environment' }).click();
    const slugField = page.getByLabel('Slug', { exact: true });
    await visible(page.getByText(/slug "checkout-service" already exists/));
    expect(await slugField.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '04-environments');
  });

  it('environment: add a connection (shown masked) and link a repository', async () => {
    await page.goto(server.url + envPath);
    const connections = page.getByRole('region', { name: /Database Connections/ });
    await visible(connections.getByText('No database connections yet.'));
    await connections.getByLabel('Label').fill('Primary');
    await connections.getByLabel('Role').selectOption('production');
    await connections.getByLabel('Connection string').fill('not a url');
    await visible(connections.getByText('Connection string must start with postgres:// or postgresql://'));
    await connections.getByLabel('Connection string').fill('postgres://app:s3cret@db.internal:5432/checkout');
    await connections.getByRole('button', { name: 'Add connection' }).click();
    const table = connections.getByRole('table', { name: 'Database connections' });
    await visible(table.getByText('postgres://app:****@db.internal:5432/checkout'));
    await visible(table.getByText('production'));
    expect(await page.content()).not.toContain('s3cret');

    const repos = page.getByRole('region', { name: /Linked Repos/ });
    await repos.getByLabel('Repository', { exact: true }).fill('acme');
    await visible(repos.getByText(/Repository must be <org>\/<repo>/));
    await repos.getByLabel('Repository', { exact: true }).fill(REPO);
    await repos.getByRole('button', { name: 'Link repository' }).click();
    await visible(repos.getByRole('button', { name: `Unlink ${REPO}` }));
    await visible(page.getByRole('region', { name: /Query Catalog/ }).getByText('The catalog is empty.'));
  });

  it('CI: an ingested run shows its environment badge on /ci, its queries, and fills the catalog', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/api/ci/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const linked = await post({
      repo: REPO,
      runId: '1001',
      branch: 'main',
      commitSha: 'a1b2c3d4e5f6a7b8c9d0',
      pullRequest: 42,
      queries: [
        { query: 'SELECT * FROM orders WHERE customer_id = 17 ORDER BY created_at DESC LIMIT 10', calls: 12, meanTimeMs: 0.8 },
        { query: "SELECT id, email FROM customers WHERE email = 'a@example.com'", calls: 3, meanTimeMs: 0.2 },
        { query: 'UPDATE orders SET status = $1 WHERE id = $2', calls: 1 },
      ],
    });
    expect(linked.status).toBe(201);
    const unlinked = await post({ repo: 'acme/marketing-site', runId: '77', queries: [{ query: 'SELECT 1' }] });
    expect(unlinked.status).toBe(201);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'CI runs' }).click();
    const runs = page.getByRole('table', { name: 'CI runs, newest first' });
    await visible(runs.getByText(REPO));
    const rows = runs.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    // newest first: the unlinked run came last, so it is on top, without a badge
    expect(await rows.nth(0).textContent()).toContain('acme/marketing-site');
    expect(await rows.nth(0).getByRole('link', { name: ENV_NAME }).count()).toBe(0);
    await visible(rows.nth(1).getByRole('link', { name: ENV_NAME }));
    await visible(rows.nth(1).getByText('PR #42'));
    await screenshot(page, '05-ci-runs');

    await rows.nth(1).getByRole('link', { name: REPO }).click();
    await page.waitForURL(/\/ci\/[^/]+$/);
    const runQueries = page.getByRole('table', { name: 'Queries of this run' });
    await visible(runQueries.getByText(/FROM orders/));
    expect(await runQueries.locator('tbody tr').count()).toBe(3);
    await screenshot(page, '06-ci-run');

    await page.goto(server.url + envPath);
    const catalog = page.getByRole('table', { name: 'Query catalog' });
    await visible(catalog.getByRole('row').filter({ hasText: 'customers' }));
    expect(await catalog.locator('.catalog-item').count()).toBe(3);
    const headers = await catalog.getByRole('columnheader').allTextContents();
    expect(headers.map((h) => h.trim())).toEqual(['Query', 'Source', 'CI Runs', 'Cost', 'Last Seen']);
    const first = catalog.locator('.catalog-item').first();
    expect(await first.getByRole('cell').nth(1).textContent()).toBe('CI');
    expect((await first.getByRole('cell').nth(2).textContent())?.replace('CI runs', '').trim()).toBe('1');
    expect(await first.locator('time').getAttribute('title')).toMatch(/\d{4}/);
    expect(await first.locator('time').textContent()).toBe('just now');
    await screenshot(page, '07-environment');

    // server-side search and source filter
    const region = page.getByRole('region', { name: /Query Catalog/ });
    await region.getByLabel('Search queries').fill('customers');
    await page.waitForFunction(() => document.querySelectorAll('.catalog-item').length === 1);
    await region.getByLabel('Source').selectOption('manual');
    await visible(region.getByText('No query matches these filters.'));
    await region.getByLabel('Source').selectOption('ci');
    await visible(catalog.getByRole('link', { name: /customers/ }));
    await catalog.getByRole('link', { name: /customers/ }).click();

    await page.waitForURL(/\/queries\/[^/]+$/);
    await visible(page.getByRole('heading', { name: 'Query', level: 1 }));
    const sql = await page.getByRole('region', { name: 'Formatted SQL' }).locator('pre').textContent();
    expect(sql).toMatch(/SELECT[\s\S]*FROM\s+customers[\s\S]*\$1/);
    await visible(page.getByText('First seen'));
    await visible(page.getByText('Last seen', { exact: true }));
    await screenshot(page, '08-query');

    // a reload of a client route is served by the SPA fallback
    await page.reload();
    await visible(page.getByRole('region', { name: 'Formatted SQL' }).locator('pre'));
  });

  it('catalog: 10,000 queries scroll with a few dozen rows in the DOM', async () => {
    const seeding = Date.now();
    const id = 'env_big_catalog';
    const { db } = server.services.store;
    await db.insert(environments).values({ id, name: 'Big catalog', slug: 'big-catalog' });
    const now = Date.now();
    for (let start = 0; start < 10_000; start += 1000) {
      await db.insert(catalogQueries).values(
        Array.from({ length: 1000 }, (_, j) => {
          const i = start + j;
          const seen = new Date(now - i * 60_000);
          return {
            id: `cq_big_${i}`,
            environmentId: id,
            hash: `h${i.toString(16).padStart(8, '0')}`,
            query: `SELECT * FROM table_${i} WHERE id = ${i}`,
            formattedQuery: `SELECT\n  *\nFROM\n  table_${i}\nWHERE\n  id = $1`,
            firstSeenAt: seen,
            lastSeenAt: seen,
            lastSeenSource: (['ci', 'production', 'manual'] as const)[i % 3]!,
            ciRunCount: i % 7,
          };
        }),
      );
    }
    console.log(`seeded 10,000 catalog rows in ${Date.now() - seeding} ms`);
    await page.goto(`${server.url}/environments/${id}`);
    const catalog = page.getByRole('table', { name: 'Query catalog' });
    await visible(catalog.getByText('table_0', { exact: false }));
    const scroller = page.getByTestId('catalog-scroll');
    const started = Date.now();
    const maxRendered: number[] = [];
    for (let i = 0; i < 100; i++) {
      // scroll to the end as a user dragging the scrollbar would, and wait for the next page
      const foot = await scroller.evaluate(async (el) => {
        el.scrollTo({ top: el.scrollHeight });
        const before = document.querySelector('.catalog-foot')?.textContent;
        for (let t = 0; t < 100 && document.querySelector('.catalog-foot')?.textContent === before; t++) await new Promise((r) => setTimeout(r, 20));
        return document.querySelector('.catalog-foot')?.textContent;
      });
      maxRendered.push(await page.locator('.catalog-item').count());
      if (foot === '10,000 queries') break;
    }
    expect(Math.max(...maxRendered)).toBeLessThan(80);
    await screenshot(page, '09-catalog-10000-rows', { fullPage: false });
    expect(await page.locator('.catalog-foot').textContent()).toBe('10,000 queries');
    await visible(catalog.getByText('table_9999', { exact: false }));
    // how long it took is printed, not asserted: a busy machine would fail a fast page
    console.log(`scrolled through 10,000 catalog rows in ${Date.now() - started} ms`);
    // the most recently seen first
    await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
    await visible(page.locator('.catalog-item').first().getByText('table_0', { exact: false }));
  });

  it('narrow window: the environment page stays readable without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    onTestFinished(() => page.setViewportSize({ width: 1280, height: 900 }));
    await page.goto(server.url + envPath);
    await visible(page.getByRole('heading', { name: ENV_NAME, level: 1 }));
    await visible(page.locator('.catalog-item').first());
    const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    // the masked connection string wraps instead of hiding the Remove button off screen
    expect(await page.getByRole('button', { name: 'Remove connection Primary' }).isVisible()).toBe(true);
    const removeBox = await page.getByRole('button', { name: 'Remove connection Primary' }).boundingBox();
    expect(removeBox!.x + removeBox!.width).toBeLessThanOrEqual(390);
    await screenshot(page, '10-environment-narrow');
    await page.goto(`${server.url}/ci`);
    await visible(page.getByRole('table', { name: 'CI runs, newest first' }));
    await screenshot(page, '11-ci-narrow');
  });

  it('delete: behind a confirmation; cancel keeps it, confirm removes it', async () => {
    await page.goto(server.url + envPath);
    await page.getByRole('button', { name: 'Delete environment' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Delete “${ENV_NAME}”?` });
    await visible(dialog);
    await screenshot(page, '12-delete-confirmation', { fullPage: false });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await visible(page.getByRole('heading', { name: ENV_NAME, level: 1 }));

    await page.getByRole('button', { name: 'Delete environment' }).click();
    await dialog.getByRole('button', { name: 'Delete environment' }).click();
    await page.waitForURL(/\/environments$/);
    await visible(page.getByRole('link', { name: /Big catalog/ }));
    expect(await page.getByRole('link', { name: /Checkout Service/ }).count()).toBe(0);

    // the old address now says so
    await page.goto(server.url + envPath);
    await visible(page.getByRole('heading', { name: 'Environment not found' }));
    // its CI run stays, untagged
    await page.goto(`${server.url}/ci`);
    await visible(page.getByRole('table', { name: 'CI runs, newest first' }).getByText(REPO));
    expect(await page.getByRole('link', { name: ENV_NAME }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
