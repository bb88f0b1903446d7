// @vitest-environment jsdom
// The audit log page on a team server (the real web server, PGlite store): an admin reads every
// change, what it changed, filtered by environment and a page at a time; an owner reads their
// environments' entries only; a member who owns nothing is told who may read it.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../testing/server';

let server: ApiServer;
let admin: TestSession;
let owner: TestSession;
let checkout = '';
let payroll = '';

beforeAll(async () => {
  server = await startApiServer({ team: true });
  admin = await server.signIn('ada@example.com', { admin: true });
  owner = await server.signIn('olga@example.com');
  checkout = (await server.apiAs<{ id: string }>(owner, 'POST', '/env', { name: 'Checkout', slug: 'checkout' })).body.id;
  payroll = (await server.apiAs<{ id: string }>(admin, 'POST', '/env', { name: 'Payroll', slug: 'payroll' })).body.id;
  await server.apiAs(owner, 'PUT', `/env/${checkout}/policy`, { costRegressionPct: 25 });
  await server.apiAs(admin, 'PUT', `/env/${payroll}/members/pat@example.com`, { role: 'editor' });
});
afterAll(() => server?.close());
afterEach(cleanup);

async function openAudit(session: TestSession) {
  renderApp('/audit', { trpcUrl: server.trpcUrl, session });
  return screen.findByRole('heading', { level: 1, name: 'Audit log' }, { timeout: 10_000 });
}

const table = () => screen.findByRole('table', { name: 'Audit log, newest first' });
const rowOf = (cell: HTMLElement) => cell.closest('tr')!;

describe('Audit page', () => {
  it('shows an admin every change with who, what, where and what it changed', async () => {
    const user = userEvent.setup();
    await openAudit(admin);
    const log = await table();
    const policy = rowOf(within(log).getByText('policy.update'));
    expect(within(policy).getByText('olga@example.com')).toBeTruthy();
    expect(within(policy).getByRole('link', { name: 'Checkout' }).getAttribute('href')).toBe(`/environments/${checkout}`);
    expect(within(policy).getByText('127.0.0.1', { exact: false })).toBeTruthy();
    // before and after: only what changed
    await user.click(within(policy).getByText('costRegressionPct', { selector: 'summary' }));
    expect(policy.querySelector('details')!.open).toBe(true);
    expect(within(policy).getByText('10')).toBeTruthy();
    expect(within(policy).getByText('25')).toBeTruthy();

    const member = rowOf(within(log).getByText('members.set'));
    expect(within(member).getByText('pat@example.com')).toBeTruthy();
    expect(within(member).getByRole('link', { name: 'Payroll' })).toBeTruthy();

    await user.selectOptions(screen.getByLabelText('Environment'), 'Payroll');
    await waitFor(() => expect(within(log).queryByText('policy.update')).toBeNull());
    expect(within(log).getByText('members.set')).toBeTruthy();
  });

  it("shows an owner their environments' entries only", async () => {
    await openAudit(owner);
    const log = await table();
    expect(within(log).getByText('policy.update')).toBeTruthy();
    expect(within(log).queryByText('members.set')).toBeNull();
    const options = within(screen.getByLabelText('Environment'))
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options).toEqual(['All my environments', 'Checkout']);
  });

  it('tells a member who owns nothing who reads the log', async () => {
    const pat = await server.signIn('pat@example.com');
    await openAudit(pat);
    expect(await screen.findByText('Admins and environment owners read the audit log.')).toBeTruthy();
  });

  it('pages through older entries', async () => {
    // 50 entries a page: enough changes for a second one
    for (let i = 0; i < 50; i++) await server.apiAs(owner, 'PATCH', `/env/${checkout}`, { snapshotIntervalSeconds: 60 + i });
    const user = userEvent.setup();
    await openAudit(admin);
    const pager = async () => (await screen.findByText(/^Entries /)).textContent;
    expect(await pager()).toBe('Entries 1–50');
    expect((screen.getByRole('button', { name: 'Newer' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Older' }));
    await waitFor(async () => expect(await pager()).toMatch(/^Entries 51–5\d$/));
    expect(within(await table()).getByText('policy.update')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Older' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
