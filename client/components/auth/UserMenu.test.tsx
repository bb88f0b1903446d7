// @vitest-environment jsdom
// The user menu in the header, on a team server (the real web server, PGlite store): who is
// signed in and their role, their tokens, the audit log for owners, and signing out of this
// session or of every session.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../../testing/server';

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({ team: true });
});
afterAll(() => server?.close());
afterEach(cleanup);

/** GET /api/me with the session's cookie: 200 while it lasts. */
const sessionStatus = async (session: TestSession) => (await fetch(`${server.url}/api/me`, { headers: { cookie: session.cookie } })).status;

async function openMenu(session: TestSession, name: string) {
  const user = userEvent.setup();
  renderApp('/environments', { trpcUrl: server.trpcUrl, session, header: true });
  await user.click(await screen.findByRole('button', { name: `Account: ${name}` }, { timeout: 10_000 }));
  return { user, menu: document.getElementById(screen.getByRole('button', { name: `Account: ${name}` }).getAttribute('aria-controls')!)! };
}

describe('User menu', () => {
  it('shows who is signed in and their role, and leads to their tokens', async () => {
    const alice = await server.signIn('alice@example.com', { name: 'Alice Example' });
    const { user, menu } = await openMenu(alice, 'Alice Example');
    expect(within(menu).getByText('alice@example.com')).toBeTruthy();
    expect(within(menu).getByText('member')).toBeTruthy();
    // she owns no environment: no audit log to read
    expect(within(menu).queryByRole('link', { name: 'Audit log' })).toBeNull();
    await user.click(within(menu).getByRole('link', { name: 'Tokens' }));
    // the page loads lazily, in a transition: the address changes once it is there
    expect(await screen.findByRole('heading', { name: 'Tokens' })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/tokens');
    expect(screen.getByRole('button', { name: 'Account: Alice Example' }).getAttribute('aria-expanded')).toBe('false');
  });

  it('offers the audit log to an environment owner', async () => {
    const olga = await server.signIn('olga@example.com', { name: 'Olga' });
    await server.apiAs(olga, 'POST', '/env', { name: 'Checkout', slug: 'checkout' });
    const { menu } = await openMenu(olga, 'Olga');
    expect(within(menu).getByRole('link', { name: 'Audit log' }).getAttribute('href')).toBe('/audit');
  });

  it('signs out: the session ends and sign-in shows', async () => {
    const bea = await server.signIn('bea@example.com', { name: 'Bea' });
    const { user, menu } = await openMenu(bea, 'Bea');
    await user.click(within(menu).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('You are signed out.')).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/sign-in');
    expect(screen.queryByRole('button', { name: /^Account/ })).toBeNull();
    expect(await sessionStatus(bea)).toBe(401);
  });

  it('signs out everywhere: every session of the person ends', async () => {
    const here = await server.signIn('carl@example.com', { name: 'Carl' });
    const elsewhere = await server.signIn('carl@example.com', { name: 'Carl' });
    const bystander = await server.signIn('dora@example.com');
    const { user, menu } = await openMenu(here, 'Carl');
    await user.click(within(menu).getByRole('button', { name: 'Sign out everywhere' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/sign-in'));
    expect(await sessionStatus(here)).toBe(401);
    expect(await sessionStatus(elsewhere)).toBe(401);
    expect(await sessionStatus(bystander)).toBe(200);
  });
});
