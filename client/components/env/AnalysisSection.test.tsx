// @vitest-environment jsdom
// The Analyze action against the real web server (PGlite store) over the real tRPC client.
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';
import { AnalysisProgress, type AnalysisStatus } from './AnalysisSection';

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server?.close());
afterEach(cleanup);

async function createEnvironment(name: string, slug: string, connection?: { label: string; role: string; connectionString: string }) {
  const id = (await server.api<{ id: string }>('POST', '/env', { name, slug })).body.id;
  if (connection) expect((await server.api('POST', `/env/${id}/connections`, connection)).status).toBe(201);
  return id;
}

const running = (phase: string, done: number, total: number): AnalysisStatus => ({
  id: 'an_1',
  environmentId: 'env_1',
  status: 'running',
  phase,
  done,
  total,
  queryCount: 0,
  connectionLabel: 'Primary',
  error: null,
  warnings: [],
  indexes: [],
  startedAt: new Date().toISOString(),
  finishedAt: null,
});

describe('Analyze', () => {
  it('shows the phase and how far it got as a progress bar', () => {
    render(<AnalysisProgress status={running('queries', 3, 10)} />);
    const bar = screen.getByRole('progressbar', { name: 'Analysis progress' });
    expect(bar.getAttribute('value')).toBe('3');
    expect(bar.getAttribute('max')).toBe('10');
    expect(bar.getAttribute('aria-valuetext')).toBe('Planning queries: 3 of 10 queries');
    expect(screen.getByText(/Planning queries/)).toBeTruthy();
  });

  it('says why an environment without a production connection cannot be analyzed', async () => {
    const id = await createEnvironment('Billing', 'billing', { label: 'CI', role: 'ci', connectionString: 'postgres://ci@127.0.0.1:1/billing' });
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Query Analysis' });
    expect(await within(section).findByText('This environment has not been analyzed yet.')).toBeTruthy();
    expect(within(section).getByText(/Needs a connection with role production/)).toBeTruthy();

    await user.click(within(section).getByRole('button', { name: 'Analyze' }));
    const alert = await within(section).findByRole('alert');
    expect(alert.textContent).toContain('Cannot analyze this environment');
    expect(alert.textContent).toMatch(/no connection with role production/);
  });

  it('follows a running analysis and shows why it failed, without the password', async () => {
    const id = await createEnvironment('Ledger', 'ledger', {
      label: 'Primary',
      role: 'production',
      connectionString: 'postgres://app:hunter2-secret@127.0.0.1:1/ledger',
    });
    await server.api('POST', `/env/${id}/queries`, { query: 'SELECT * FROM entries WHERE account_id = $1' });
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
    const section = await screen.findByRole('region', { name: 'Query Analysis' });
    expect(within(section).getByText(/planner statistics of/).textContent).toContain('Primary');
    await user.click(await within(section).findByRole('button', { name: 'Analyze' }));

    // the job answers "running" at once; the page shows its progress until a poll says it ended
    expect(await within(section).findByRole('progressbar', { name: 'Analysis progress' })).toBeTruthy();
    expect(within(section).getByRole('button', { name: 'Analyzing…' })).toHaveProperty('disabled', true);

    const alert = await within(section).findByRole('alert', {}, { timeout: 10_000 });
    expect(alert.textContent).toContain('The analysis failed');
    expect(section.textContent).not.toContain('hunter2-secret');
    expect(within(section).queryByRole('progressbar')).toBeNull();
    expect(within(section).getByRole('button', { name: 'Analyze again' })).toHaveProperty('disabled', false);
  });
});
