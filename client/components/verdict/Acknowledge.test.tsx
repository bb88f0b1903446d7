// @vitest-environment jsdom
// A CI run's verdict and acknowledging its findings, against the real web server (PGlite store)
// whose environment's production connection is a real PostgreSQL with 20,000 orders: a run on
// main, then a PR run adding a query that needs an index. The verdict is computed by the server's
// background analysis; the page asks again until it is done.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Acknowledgement } from '../../../shared/policy';
import { BY_CUSTOMER, BY_ID } from '../../../test/support/shop';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';

const REPO = 'acme/shop';
/** The background analysis plans against a real shadow PostgreSQL: allow it time on a busy machine. */
const VERDICT_TIMEOUT = 90_000;

let server: ApiServer;
let envId = '';
let prRun = '';

async function ingest(runId: string, branch: string, queries: string[]) {
  const res = await server.api<{ id: string }>('POST', '/ci/runs', { repo: REPO, runId, branch, queries: queries.map((query) => ({ query, calls: 10 })) });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function verdictOf(id: string) {
  return (await server.api<{ status: string }>('GET', `/ci/runs/${id}/verdict`)).body;
}

beforeAll(async () => {
  server = await startApiServer({ production: true });
  envId = (await server.api<{ id: string }>('POST', '/env', { name: 'Shop', slug: 'shop' })).body.id;
  await server.api('POST', `/env/${envId}/connections`, { label: 'Primary', role: 'production', connectionString: server.productionUrl });
  await server.api('POST', `/env/${envId}/repos`, { repo: REPO });
  const mainRun = await ingest('100', 'main', [BY_ID]);
  // the PR run is judged against main's: its baseline must be there first
  await waitFor(async () => expect((await verdictOf(mainRun)).status).not.toBe('pending'), { timeout: VERDICT_TIMEOUT, interval: 500 });
  prRun = await ingest('101', 'feature/by-customer', [BY_ID, BY_CUSTOMER]);
}, 180_000);
afterAll(() => server?.close());
afterEach(cleanup);

describe('CI run verdict', () => {
  it('fails a run whose new query needs an index, naming the index; acknowledging passes it, Undo fails it again', { timeout: 180_000 }, async () => {
    const user = userEvent.setup();
    renderApp(`/ci/${prRun}`, { trpcUrl: server.trpcUrl });
    // pending (with its progress) until the background analysis is done, then failed
    const banner = await screen.findByRole('region', { name: 'Verdict: Failed' }, { timeout: VERDICT_TIMEOUT });
    expect(within(banner).getByText(/1 failing finding/)).toBeTruthy();
    expect(within(banner).getByRole('link', { name: 'run 100' })).toBeTruthy();

    const findings = screen.getByRole('list', { name: 'Findings, failing first' });
    const finding = within(findings).getByRole('listitem', { name: /^New query needs an index: query / });
    expect(within(finding).getByText('Fails')).toBeTruthy();
    expect(within(finding).getByRole('link', { name: /^Open query / }).textContent).toMatch(/WHERE\s+customer_id = \$1/);
    const indexes = within(finding).getByRole('list', { name: 'Indexes to create' });
    expect(within(indexes).getByText(/CREATE INDEX .*orders.*customer_id/i)).toBeTruthy();
    expect(within(indexes).getByRole('button', { name: /^Copy CREATE INDEX/ })).toBeTruthy();
    // the query that was already on main is not a finding
    expect(within(findings).getAllByRole('listitem', { name: /: query / })).toHaveLength(1);

    await user.click(within(finding).getByRole('button', { name: /^Acknowledge query / }));
    const dialog = screen.getByRole('alertdialog', { name: 'Acknowledge this query?' });
    await user.type(within(dialog).getByLabelText('Note (optional)'), 'Admin report, runs once a night');
    await user.click(within(dialog).getByRole('button', { name: 'Acknowledge' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());

    // still listed, marked, and the run passes
    const passed = await screen.findByRole('region', { name: 'Verdict: Passed' });
    const acknowledged = within(screen.getByRole('list', { name: 'Findings, failing first' })).getByRole('listitem', { name: /^New query needs an index/ });
    expect(within(acknowledged).getByText('Acknowledged')).toBeTruthy();
    expect(within(passed).getByText(/1 acknowledged/)).toBeTruthy();
    const acks = (await server.api<Acknowledgement[]>('GET', `/env/${envId}/acknowledgements`)).body;
    expect(acks).toMatchObject([{ note: 'Admin report, runs once a night' }]);
    expect(acks[0]!.cost).toBeGreaterThan(0);

    await user.click(within(acknowledged).getByRole('button', { name: /^Undo the acknowledgement of query / }));
    expect(await screen.findByRole('region', { name: 'Verdict: Failed' })).toBeTruthy();
    expect((await server.api<Acknowledgement[]>('GET', `/env/${envId}/acknowledgements`)).body).toEqual([]);
  });

  it('shows an edited query once, as changed, with the text it replaces', { timeout: 180_000 }, async () => {
    const repo = 'acme/edits';
    await server.api('POST', `/env/${envId}/repos`, { repo });
    const post = async (runId: string, branch: string, query: string) =>
      (await server.api<{ id: string }>('POST', '/ci/runs', { repo, runId, branch, queries: [{ query, calls: 10 }] })).body.id;
    const main = await post('200', 'main', BY_CUSTOMER);
    await waitFor(async () => expect((await verdictOf(main)).status).not.toBe('pending'), { timeout: VERDICT_TIMEOUT, interval: 500 });
    // the same lookup, one more column shown: the same plan, an edit and not a new query
    const edited = await post('201', 'feature/order-status', BY_CUSTOMER.replace('SELECT id, total_cents', 'SELECT id, total_cents, status'));
    renderApp(`/ci/${edited}`, { trpcUrl: server.trpcUrl });
    await screen.findByRole('region', { name: /^Verdict: / }, { timeout: VERDICT_TIMEOUT });
    const findings = await screen.findByRole('list', { name: 'Findings, failing first' }, { timeout: VERDICT_TIMEOUT });
    const [changed, ...others] = within(findings).getAllByRole('listitem', { name: /: query / });
    expect(others).toEqual([]);
    expect(changed!.getAttribute('aria-label')).toMatch(/^Changed query: query /);
    expect(within(changed!).getByRole('link', { name: /^Open query / }).textContent).toMatch(/status/);
    const replaced = within(changed!).getByLabelText(/^Replaces baseline query [0-9a-f]{16}$/);
    expect(replaced.textContent).toMatch(/customer_id = \$1/);
    expect(replaced.textContent).not.toMatch(/status/);
    expect(within(changed!).getByText(/^Query changed$/)).toBeTruthy();
  });

  it('lists acknowledged queries on the environment page, with their note and a link, and Undo removes one', async () => {
    const hash = (await server.api<{ findings: { hash: string }[] }>('GET', `/ci/runs/${prRun}/verdict`)).body.findings[0]!.hash;
    expect((await server.api('POST', `/env/${envId}/queries/${hash}/acknowledge`, { note: 'Known, tracked in OPS-12' })).status).toBe(201);
    const user = userEvent.setup();
    renderApp(`/environments/${envId}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: /Acknowledged Queries/ }, { timeout: 10_000 });
    const row = await within(section).findByRole('listitem', { name: `Acknowledged query ${hash}` }, { timeout: 10_000 });
    expect(within(row).getByText('Known, tracked in OPS-12')).toBeTruthy();
    const link = await within(row).findByRole('link', { name: /customer_id/ });
    expect(link.getAttribute('href')).toBe(`/environments/${envId}/queries/${hash}`);
    expect(within(row).getByText('just now')).toBeTruthy();

    await user.click(within(row).getByRole('button', { name: `Undo the acknowledgement of query ${hash}` }));
    expect(await within(section).findByText('No acknowledged queries.')).toBeTruthy();
    expect((await server.api<Acknowledgement[]>('GET', `/env/${envId}/acknowledgements`)).body).toEqual([]);
  });
});
