// @vitest-environment jsdom
// Onboarding against the real analyzer (and a closed port, for "Not live").
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANALYZER_URL_STORAGE_KEY } from '../lib/analyzer';
import { renderApp } from '../testing/render';
import { startApiServer, type ApiServer } from '../testing/server';

let server: ApiServer;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  server = await startApiServer({ analyzer: true });
});
afterAll(() => server?.close());
beforeEach(() => window.localStorage.clear());
afterEach(cleanup);

const status = () => screen.getByRole('status', { name: 'Analyzer status' });

describe('onboarding', () => {
  it('offers the default endpoint under Advanced settings', async () => {
    renderApp('/', { trpcUrl: server.trpcUrl });
    const endpoint = screen.getByLabelText('Analyzer endpoint') as HTMLInputElement;
    expect(endpoint.value).toBe('http://localhost:2345');
    expect(endpoint.closest('details')?.querySelector('summary')?.textContent).toBe('Advanced settings');
  });

  it('says "Not live" and how to start the analyzer when nothing answers, then "Live" once pointed at it', async () => {
    window.localStorage.setItem(ANALYZER_URL_STORAGE_KEY, `http://127.0.0.1:${await closedPort()}`);
    const user = userEvent.setup();
    renderApp('/', { trpcUrl: server.trpcUrl });
    await waitFor(() => expect(status().textContent).toBe('Not live'));
    expect(screen.getByText('npm run analyzer')).toBeTruthy();
    expect(screen.getByText(/docker run -p 2345:2345/)).toBeTruthy();

    const endpoint = screen.getByLabelText('Analyzer endpoint');
    await user.clear(endpoint);
    await user.type(endpoint, `${server.analyzerUrl!}/`);
    await waitFor(() => expect(status().textContent).toBe('Live'));
    expect(screen.queryByText('npm run analyzer')).toBeNull();
    // remembered for the next visit, without the trailing slash
    expect(window.localStorage.getItem(ANALYZER_URL_STORAGE_KEY)).toBe(server.analyzerUrl);
  });

  it('rejects an endpoint that is not a URL and keeps the last good one', async () => {
    window.localStorage.setItem(ANALYZER_URL_STORAGE_KEY, server.analyzerUrl!);
    const user = userEvent.setup();
    renderApp('/', { trpcUrl: server.trpcUrl });
    const endpoint = screen.getByLabelText('Analyzer endpoint');
    await user.clear(endpoint);
    await user.type(endpoint, 'localhost 2345');
    expect(screen.getByText('Analyzer endpoint must be a URL such as http://localhost:2345')).toBeTruthy();
    expect(window.localStorage.getItem(ANALYZER_URL_STORAGE_KEY)).toBe(server.analyzerUrl);
  });

  it('validates the connection string before syncing and shows the analyzer’s own error', async () => {
    window.localStorage.setItem(ANALYZER_URL_STORAGE_KEY, server.analyzerUrl!);
    const user = userEvent.setup();
    renderApp('/', { trpcUrl: server.trpcUrl });
    await user.click(screen.getByRole('button', { name: 'Sync' }));
    expect(screen.getByText('Connection string must not be empty')).toBeTruthy();

    await user.type(screen.getByLabelText('PostgreSQL connection string'), 'postgres://localhost');
    expect(screen.getByText('Connection string must name a database')).toBeTruthy();

    await user.clear(screen.getByLabelText('PostgreSQL connection string'));
    await user.type(screen.getByLabelText('PostgreSQL connection string'), `postgres://app:pw@127.0.0.1:${await closedPort()}/app`);
    await user.click(screen.getByRole('button', { name: 'Sync' }));
    const alert = await screen.findByRole('alert', {}, { timeout: 20_000 });
    expect(within(alert).getByText('Sync failed')).toBeTruthy();
    expect(alert.textContent).toMatch(/refused|connect/i);
    expect(alert.textContent).toMatch(/Check the host and port/);
    expect(screen.getByTestId('location').textContent).toBe('/');
  });

  it('syncs only the schemas the filters allow, and refuses a regular expression for a glob', async () => {
    const withDatabase = await startApiServer({ analyzer: true, production: true });
    try {
      window.localStorage.setItem(ANALYZER_URL_STORAGE_KEY, withDatabase.analyzerUrl!);
      const user = userEvent.setup();
      renderApp('/', { trpcUrl: withDatabase.trpcUrl });
      await user.type(screen.getByLabelText('PostgreSQL connection string'), withDatabase.productionUrl!);
      await user.type(screen.getByLabelText('Exclude schemas'), '^pub.*$');
      expect(screen.getByText(/Schema patterns are globs, not regular expressions/)).toBeTruthy();
      await user.click(screen.getByRole('button', { name: 'Sync' }));
      expect(screen.getByTestId('location').textContent).toBe('/');

      await user.clear(screen.getByLabelText('Exclude schemas'));
      await user.type(screen.getByLabelText('Exclude schemas'), 'pub*');
      await user.click(screen.getByRole('button', { name: 'Sync' }));
      await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/sync'), { timeout: 60_000 });
      const schemas = await screen.findByRole('list', { name: 'Schemas' }, { timeout: 10_000 });
      expect(within(schemas).queryByText('public')).toBeNull();
      expect(screen.getByText(/0 tables/)).toBeTruthy();
    } finally {
      await withDatabase.close();
    }
  }, 180_000);
});
