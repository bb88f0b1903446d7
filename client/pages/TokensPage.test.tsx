// @vitest-environment jsdom
// The Tokens page on a team server (the real web server, PGlite store): a person makes a personal
// access token (shown once) that acts as them, sees it listed, and revokes it; an admin sees
// everyone's. On a single-user server there is nothing to make.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../testing/server';

let server: ApiServer;
let alice: TestSession;

beforeAll(async () => {
  server = await startApiServer({ team: true });
  alice = await server.signIn('alice@example.com', { name: 'Alice' });
});
afterAll(() => server?.close());
afterEach(cleanup);

/** GET /api/me with the token as the only credential: who it acts as, or the refusal's status. */
async function whoIs(token: string) {
  const response = await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
  return response.ok ? ((await response.json()) as { email: string }).email : response.status;
}

async function openTokens(session: TestSession) {
  renderApp('/tokens', { trpcUrl: server.trpcUrl, session });
  return screen.findByRole('region', { name: /^(Your tokens|Personal access tokens of everyone)/ }, { timeout: 10_000 });
}

describe('Tokens page', () => {
  it('makes a token shown once, with the scopes asked for, and revokes it', async () => {
    const user = userEvent.setup();
    const section = await openTokens(alice);
    expect(await within(section).findByText('No tokens yet.')).toBeTruthy();

    // no scope: refused here, before anything is sent
    await user.type(within(section).getByLabelText('Name'), 'deploy script');
    await user.click(within(section).getByLabelText(/^Read/));
    await user.click(within(section).getByRole('button', { name: 'Make token' }));
    expect(within(section).getByText('Give at least one scope')).toBeTruthy();

    await user.click(within(section).getByLabelText(/^Write/));
    await user.clear(within(section).getByLabelText('Expires after (days)'));
    await user.type(within(section).getByLabelText('Expires after (days)'), '30');
    await user.click(within(section).getByRole('button', { name: 'Make token' }));
    const callout = (await within(section).findByText(/Token “deploy script” made/)).closest('.callout') as HTMLElement;
    expect(within(callout).getByText(/will not be shown again/)).toBeTruthy();
    const token = callout.querySelector('code')!.textContent!;
    expect(await whoIs(token)).toBe('alice@example.com');

    const table = await within(section).findByRole('table', { name: 'Personal access tokens' });
    const row = within(table).getByText('deploy script').closest('tr')!;
    expect(within(row).getByText('write')).toBeTruthy();
    const expires = new Date(Date.now() + 30 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });
    expect(within(row).getByText(expires)).toBeTruthy();
    expect(within(row).getByText('active')).toBeTruthy();
    expect(within(table).queryByRole('columnheader', { name: 'Owner' })).toBeNull();

    await user.click(within(callout).getByRole('button', { name: 'I have saved it' }));
    expect(section.textContent).not.toContain(token);
    await user.click(within(row).getByRole('button', { name: 'Revoke deploy script' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke token' }));
    await waitFor(() => expect(within(row).getByText('revoked')).toBeTruthy());
    expect(await whoIs(token)).toBe(401);
  });

  it("shows an admin everyone's tokens with whose each is", async () => {
    const bob = await server.signIn('bob@example.com');
    await server.apiAs(bob, 'POST', '/tokens', { name: 'bob laptop', scopes: ['read'] });
    const admin = await server.signIn('ada@example.com', { admin: true });
    const section = await openTokens(admin);
    expect(section.querySelector('h2')!.textContent).toMatch(/^Personal access tokens of everyone/);
    const table = await within(section).findByRole('table', { name: 'Personal access tokens' });
    const row = within(table).getByText('bob laptop').closest('tr')!;
    expect(within(row).getByText('bob@example.com', { selector: 'td' })).toBeTruthy();
  });
});
