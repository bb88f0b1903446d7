// CI verdicts in a real browser: an environment whose production connection is a real PostgreSQL
// with 100,000 orders and a linked repository; a run on main, then a pull request run adding a
// query no index serves. Its verdict (computed in the background after ingestion) fails, naming
// the CREATE INDEX; acknowledging the query passes it; /ci shows each run's verdict beside its
// environment; the environment page holds the policy and the acknowledged queries.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, visible } from '../support/browser';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { openTestServices, type TestServer } from '../support/services';
import { requestJson } from '../support/api';

const REPO = 'acme/storefront';
const BY_ID = 'SELECT * FROM orders WHERE id = $1';
const BY_CUSTOMER = 'SELECT id, total_cents FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT $2';
const RECENT = 'SELECT id, status FROM orders WHERE id > $1 ORDER BY id LIMIT $2';
/** The background analysis plans against a real shadow PostgreSQL: allow it time on a busy machine. */
const VERDICT_TIMEOUT = 120_000;

let app: BrowserApp;
let server: TestServer;
let production: PostgresServer;
let page: Page;
let pageErrors: string[] = [];
let envId = '';
let mainRun = '';
let prRun = '';
let sandboxRun = '';

function api<T = any>(method: string, route: string, body?: unknown) {
  return requestJson<T>(`${server.url}/api${route}`, { method, json: body });
}

async function ingest(repo: string, runId: string, extra: Record<string, unknown>, queries: string[]) {
  const res = await api('POST', '/ci/runs', { repo, runId, ...extra, queries: queries.map((query) => ({ query, calls: 50 })) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function settledVerdict(runId: string): Promise<{ status: string }> {
  const deadline = Date.now() + VERDICT_TIMEOUT;
  for (;;) {
    // a kept-alive connection the busy server closes as it is reused resets; the GET is safe to repeat
    const verdict = (await api('GET', `/ci/runs/${runId}/verdict`).catch(() => api('GET', `/ci/runs/${runId}/verdict`))).body;
    if (verdict.status !== 'pending' || Date.now() > deadline) return verdict;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Production: 100,000 orders with only the primary key. */
async function createProduction(): Promise<string> {
  const url = await production.createDatabase('storefront');
  await production.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL, total_cents int NOT NULL);
     INSERT INTO orders SELECT g, g % 20000, CASE WHEN g % 40 = 0 THEN 'refunded' ELSE 'paid' END,
            now() - (g || ' minutes')::interval, g % 10000
     FROM generate_series(1, 100000) g;
     ANALYZE orders;`,
    [],
    'storefront',
  );
  return url;
}

beforeAll(async () => {
  [app, production] = await Promise.all([startBrowserApp(openTestServices('pglite')), startPostgres({ statStatements: false })]);
  ({ server, page, pageErrors } = app);
  await app.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const productionUrl = await createProduction();

  envId = (await api('POST', '/env', { name: 'Storefront', slug: 'storefront' })).body.id;
  expect((await api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: productionUrl })).status).toBe(201);
  expect((await api('POST', `/env/${envId}/repos`, { repo: REPO })).status).toBe(201);
  // an environment without a production connection: its runs get no verdict, and say why
  const sandbox = (await api('POST', '/env', { name: 'Sandbox', slug: 'sandbox' })).body.id;
  expect((await api('POST', `/env/${sandbox}/repos`, { repo: 'acme/sandbox' })).status).toBe(201);

  mainRun = await ingest(REPO, '700', { branch: 'main', commitSha: 'a1b2c3d4e5f6a7b8c9d0' }, [BY_ID, RECENT]);
  expect((await settledVerdict(mainRun)).status).toBe('pass');
  sandboxRun = await ingest('acme/sandbox', '12', { branch: 'main' }, [BY_ID]);
  await ingest('acme/unlinked', '3', { branch: 'main' }, [BY_ID]);
}, 240_000);

afterAll(async () => {
  await app?.close();
  await production?.stop();
});

describe('CI verdicts in Chromium', () => {
  it('a pull request adding an unindexed query fails, naming the index to create', async () => {
    prRun = await ingest(REPO, '701', { branch: 'feature/customer-orders', pullRequest: 42, commitSha: 'f00dfeedbeefcafe1234' }, [BY_ID, RECENT, BY_CUSTOMER]);
    await page.goto(`${server.url}/ci/${prRun}`);
    const pending = page.getByRole('region', { name: 'Verdict: Analyzing against production' });
    const failed = page.getByRole('region', { name: 'Verdict: Failed' });
    // the page asks again every 2 s while the analysis runs; it may already be done
    await visible(pending.or(failed));
    if (await pending.isVisible()) await screenshot(page, 'v00-run-pending', { fullPage: false });
    await visible(failed, VERDICT_TIMEOUT);

    await visible(failed.getByText(/1 failing finding/));
    await visible(failed.getByRole('link', { name: 'run 700' }));
    const findings = page.getByRole('list', { name: 'Findings, failing first' });
    const finding = findings.getByRole('listitem', { name: /^New query needs an index: query / });
    await visible(finding.getByText('Fails', { exact: true }));
    const createIndex = finding.getByRole('list', { name: 'Indexes to create' }).locator('pre').first();
    expect(await createIndex.textContent()).toMatch(/CREATE INDEX .*orders.*customer_id/i);
    await visible(finding.getByText(/% saved$/));
    // the queries main already had are not findings
    expect(await findings.getByRole('listitem', { name: /: query / }).count()).toBe(1);

    await finding.getByRole('button', { name: /^Copy CREATE INDEX/ }).click();
    await visible(finding.getByText('Copied'));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await createIndex.textContent());

    // the verdict comes before the run's other sections
    const headings = await page.locator('main h2, .page h2').allTextContents();
    expect(headings[0]).toMatch(/Failed/);
    await screenshot(page, 'v01-run-fail');
  });

  it('/ci shows each run’s verdict beside its environment', async () => {
    await page.goto(`${server.url}/ci`);
    const table = page.getByRole('table', { name: 'CI runs, newest first' });
    const row = (runId: string) => table.getByRole('row').filter({ hasText: `run ${runId}` });
    const badge = (runId: string, status: string) =>
      row(runId)
        .locator('.badge')
        .filter({ hasText: `Verdict: ${status}` });
    await visible(badge('701', 'Fail'));
    await visible(row('701').getByRole('link', { name: 'Storefront', exact: true }));
    await visible(badge('700', 'Pass'));
    await visible(badge('12', 'No verdict'));
    await visible(row('12').getByRole('link', { name: 'Sandbox' }));
    // a run of an unlinked repository has neither
    expect(await row('3').locator('.badge').count()).toBe(0);
    // the badge sits on the line of the environment badge
    const [env, verdict] = [await row('701').getByRole('link', { name: 'Storefront', exact: true }).boundingBox(), await badge('701', 'Fail').boundingBox()];
    expect(Math.abs(env!.y + env!.height / 2 - (verdict!.y + verdict!.height / 2))).toBeLessThan(4);
    await screenshot(page, 'v02-ci-runs-badges', { fullPage: false });
  });

  it('a run of an environment without production gets no verdict, with the reason', async () => {
    await page.goto(`${server.url}/ci/${sandboxRun}`);
    const banner = page.getByRole('region', { name: 'Verdict: No verdict' });
    await visible(banner.getByText(/production/));
    await screenshot(page, 'v03-run-unavailable', { fullPage: false });
  });

  it('acknowledging the query with a note passes the run; the finding stays listed, dimmed', async () => {
    await page.goto(`${server.url}/ci/${prRun}`);
    const finding = page.getByRole('list', { name: 'Findings, failing first' }).getByRole('listitem', { name: /^New query needs an index/ });
    await finding.getByRole('button', { name: /^Acknowledge query / }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Acknowledge this query?' });
    await dialog.getByLabel('Note (optional)').fill('Customer page is behind a cache; index planned in OPS-88');
    await screenshot(page, 'v04-acknowledge-dialog', { fullPage: false });
    await dialog.getByRole('button', { name: 'Acknowledge' }).click();

    const passed = page.getByRole('region', { name: /^Verdict: Passed/ });
    await visible(passed);
    await visible(passed.getByText(/1 acknowledged/));
    await visible(finding.getByText('Acknowledged', { exact: true }));
    await visible(finding.getByRole('button', { name: /^Undo the acknowledgement/ }));
    expect(await finding.evaluate((el) => el.classList.contains('finding-acknowledged'))).toBe(true);
    await screenshot(page, 'v05-run-acknowledged');
  });

  it('the environment page: the policy form and the acknowledged queries', async () => {
    await page.goto(`${server.url}/environments/${envId}`);
    const policy = page.getByRole('region', { name: 'Policy' });
    await visible(policy.getByRole('button', { name: 'Save policy' }));
    expect(await policy.getByLabel('Comparison branch').inputValue()).toBe('main');
    const acknowledged = page.getByRole('region', { name: /Acknowledged Queries/ });
    const table = acknowledged.getByRole('list', { name: 'Acknowledged queries' });
    await visible(table.getByText('Customer page is behind a cache; index planned in OPS-88'));
    await visible(table.getByRole('link', { name: /customer_id/ }));

    // a refused value is shown beside its field
    await policy.getByLabel('Minimum saved (%)').fill('250');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await visible(policy.getByText('Minimum saved percentage must be at most 100'));
    await policy.scrollIntoViewIfNeeded();
    await screenshot(page, 'v06-policy-invalid', { fullPage: false });

    await policy.getByLabel('Minimum saved (%)').fill('40');
    await policy.getByLabel('New query', { exact: true }).selectOption('off');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await visible(policy.getByText('Policy saved.'));
    expect((await api('GET', `/env/${envId}/policy`)).body).toMatchObject({ minSavedPct: 40, conditions: { new_query: 'off' } });
    await policy.scrollIntoViewIfNeeded();
    await screenshot(page, 'v07-environment-policy', { fullPage: false });

    // Undo from the list: the run fails again
    await table.getByRole('button', { name: /^Undo the acknowledgement/ }).click();
    await visible(acknowledged.getByText('No acknowledged queries.'));
    await page.goto(`${server.url}/ci/${prRun}`);
    await visible(page.getByRole('region', { name: 'Verdict: Failed' }));
  });

  it('on a narrow window the verdict and the policy fit without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const noSidewaysScroll = async () => {
      const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(width.scroll).toBeLessThanOrEqual(width.client);
    };
    await page.goto(`${server.url}/ci/${prRun}`);
    await visible(page.getByRole('list', { name: 'Findings, failing first' }));
    await noSidewaysScroll();
    await screenshot(page, 'v08-run-fail-narrow', { fullPage: false });
    await page.goto(`${server.url}/environments/${envId}`);
    const policy = page.getByRole('region', { name: 'Policy' });
    await visible(policy.getByRole('button', { name: 'Save policy' }));
    await noSidewaysScroll();
    await policy.scrollIntoViewIfNeeded();
    await screenshot(page, 'v09-policy-narrow', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(pageErrors).toEqual([]);
  });
  it('a pull request dropping the primary key explains its regression: the cause, the plan diff, both plans with the moved step highlighted', async () => {
    // the CI database's schema: orders without its primary key (no baseline schema: production's indexes on its tables count)
    const columns = [
      ['id', 'bigint'],
      ['customer_id', 'integer'],
      ['status', 'text'],
      ['created_at', 'timestamp with time zone'],
      ['total_cents', 'integer'],
    ];
    const schema = { tables: [['public', 'orders', 'r', null]], columns: columns.map(([c, t]) => ['public', 'orders', c, t, true]), indexes: [] };
    const run = await ingest(REPO, '702', { branch: 'chore/drop-orders-pkey', pullRequest: 43, schema }, [BY_ID, RECENT]);
    expect((await settledVerdict(run)).status).toBe('fail');
    await page.goto(`${server.url}/ci/${run}`);
    await visible(page.getByRole('region', { name: 'Verdict: Failed' }));
    await visible(page.getByText(/^Both planned on production as of /));
    const finding = page
      .getByRole('list', { name: 'Findings, failing first' })
      .getByRole('listitem', { name: /^Cost regression: query / })
      .filter({ hasText: 'id = $1' });
    const why = finding.locator('details.finding-why');
    await why.locator('summary').click();
    await visible(why.getByRole('list', { name: 'Causes' }).getByText(/index public\.orders_pkey is dropped in this run/));
    expect(await why.getByRole('list', { name: 'Plan changes' }).textContent()).toMatch(/Index Scan using orders_pkey on orders -> Seq Scan on orders/);
    const baselinePlan = why.getByRole('group', { name: /^Baseline plan of query / });
    const runPlan = why.getByRole('group', { name: /^This run's plan of query / });
    await visible(baselinePlan.getByText('Index Scan on orders using orders_pkey'));
    await visible(runPlan.locator('.plan-node-hot').getByText('Seq Scan on orders', { exact: true }));
    await visible(runPlan.getByText('cost moved most'));
    await why.scrollIntoViewIfNeeded();
    await screenshot(page, 'v10-plan-diff', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
