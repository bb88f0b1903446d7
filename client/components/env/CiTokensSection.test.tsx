// @vitest-environment jsdom
// An environment's CI tokens on a team server (the real web server, PGlite store): an owner makes
// one (shown once), it works as the pipeline's credential, and revoked it stops working at once.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../../testing/server';

let server: ApiServer;
let owner: TestSession;
let envId = '';

beforeAll(async () => {
  server = await startApiServer({ team: true });
  owner = await server.signIn('olga@example.com');
  envId = (await server.apiAs<{ id: string }>(owner, 'POST', '/env', { name: 'Checkout', slug: 'checkout' })).body.id;
  await server.apiAs(owner, 'POST', `/env/${envId}/repos`, { repo: 'acme/checkout' });
});
afterAll(() => server?.close());
afterEach(cleanup);

/** A run posted as a pipeline posts it, with the token as its only credential. */
async function postRun(token: string, runId: string) {
  const response = await fetch(`${server.url}/api/ci/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: 'acme/checkout', runId, branch: 'main', queries: [{ query: 'SELECT 1', calls: 1 }] }),
  });
  return response.status;
}

describe('CI tokens section', () => {
  it('makes a token shown once, lists it, and revokes it', async () => {
    const user = userEvent.setup();
    renderApp(`/environments/${envId}`, { trpcUrl: server.trpcUrl, session: owner });
    const section = await screen.findByRole('region', { name: /^CI Tokens/ }, { timeout: 10_000 });
    expect(await within(section).findByText('No CI tokens yet.')).toBeTruthy();

    await user.click(within(section).getByRole('button', { name: 'Make CI token' }));
    expect(within(section).getByText('Name must not be empty')).toBeTruthy();
    await user.type(within(section).getByLabelText('Name'), 'GitHub Actions');
    await user.click(within(section).getByRole('button', { name: 'Make CI token' }));
    const shown = await within(section).findByText(/CI token “GitHub Actions” made/);
    const callout = shown.closest('.callout') as HTMLElement;
    expect(within(callout).getByText(/will not be shown again/)).toBeTruthy();
    expect(within(callout).getByRole('button', { name: 'Copy the token' })).toBeTruthy();
    const token = callout.querySelector('code')!.textContent!;
    expect(await postRun(token, '1')).toBe(201);

    const table = await within(section).findByRole('table', { name: 'CI tokens' });
    const row = within(table).getByText('GitHub Actions').closest('tr')!;
    expect(within(row).getByText('active')).toBeTruthy();
    expect(within(row).getByText('by olga@example.com')).toBeTruthy();
    // put away, it is gone from the page for good
    await user.click(within(callout).getByRole('button', { name: 'I have saved it' }));
    expect(section.textContent).not.toContain(token);

    await user.click(within(row).getByRole('button', { name: 'Revoke GitHub Actions' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Revoke “GitHub Actions”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke token' }));
    await waitFor(() => expect(within(row).getByText('revoked')).toBeTruthy());
    expect(within(row).queryByRole('button', { name: /^Revoke/ })).toBeNull();
    expect(await postRun(token, '2')).toBe(401);
  });
});
