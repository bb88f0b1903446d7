// @vitest-environment jsdom
// Sign-in against the real web server: any page asked for while signed out shows sign-in, whose
// link starts the identity provider's sign-in and comes back to that page; a team server without an
// identity provider says it takes tokens only; a session that ends leads back to sign-in; a
// single-user server never shows it.
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../testing/server';

afterEach(cleanup);

const signInLink = () => screen.findByRole('link', { name: 'Sign in with your identity provider' }, { timeout: 10_000 });

describe('with an identity provider', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ identityProvider: true });
  });
  afterAll(() => server?.close());

  it('shows sign-in in place of the page asked for, and comes back to it', async () => {
    renderApp('/environments/env_123?tab=x', { trpcUrl: server.trpcUrl, header: true });
    const link = await signInLink();
    expect(link.getAttribute('href')).toBe(`${server.url}/auth/login?returnTo=${encodeURIComponent('/environments/env_123?tab=x')}`);
    expect(screen.getByRole('heading', { name: 'Sign in to querytrail' })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/environments/env_123');
    // signed out, the header offers nothing to open
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
  });

  it('at /sign-in, returns to the page named, never to another site', async () => {
    renderApp('/sign-in?returnTo=%2Fci', { trpcUrl: server.trpcUrl });
    expect((await signInLink()).getAttribute('href')).toBe(`${server.url}/auth/login?returnTo=%2Fci`);
    cleanup();
    renderApp('/sign-in?returnTo=%2F%2Fevil.example%2Fx', { trpcUrl: server.trpcUrl });
    expect((await signInLink()).getAttribute('href')).toBe(`${server.url}/auth/login?returnTo=%2F`);
  });

  it("shows why the server refused the identity provider's answer", async () => {
    renderApp(`/sign-in?error=${encodeURIComponent('ana@other.example may not sign in')}`, { trpcUrl: server.trpcUrl });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Sign-in did not work')).toBeTruthy();
    expect(within(alert).getByText('ana@other.example may not sign in')).toBeTruthy();
  });

  it('leads back to sign-in when the session ends while the app is open', async () => {
    const alice: TestSession = await server.signIn('alice@example.com');
    const user = userEvent.setup();
    renderApp('/environments', { trpcUrl: server.trpcUrl, session: alice });
    await screen.findByRole('heading', { name: 'Environments' }, { timeout: 10_000 });
    // signed out elsewhere (another tab): this page does not know yet
    const logout = await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: alice.cookie, origin: server.url, 'x-csrf-token': alice.csrfToken },
    });
    expect(logout.status).toBe(204);

    await user.type(screen.getByLabelText('Name'), 'Checkout');
    await user.click(screen.getByRole('button', { name: 'Create environment' }));
    expect(await screen.findByText('Your session ended. Sign in again to carry on where you were.')).toBeTruthy();
    expect((await signInLink()).getAttribute('href')).toBe(`${server.url}/auth/login?returnTo=%2Fenvironments`);
  });
});

describe('team server without an identity provider', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ team: true });
  });
  afterAll(() => server?.close());

  it('says that it takes API tokens only, and what an admin must configure', async () => {
    renderApp('/', { trpcUrl: server.trpcUrl });
    expect(await screen.findByText('This server takes API tokens only.', {}, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByText('OIDC_ISSUER')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Sign in with your identity provider' })).toBeNull();
  });
});

describe('single-user server', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server?.close());

  it('never shows sign-in nor a user menu', async () => {
    renderApp('/sign-in?returnTo=%2Fenvironments', { trpcUrl: server.trpcUrl, header: true });
    expect(await screen.findByRole('heading', { name: 'Environments' }, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/environments');
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Account/ })).toBeNull();
  });
});
