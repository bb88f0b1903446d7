// @vitest-environment jsdom
// The environment page's Policy section against the real web server (PGlite store) over the real
// tRPC client: saving, and a refused value shown beside its field.
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../shared/policy';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer } from '../../testing/server';

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server?.close());
afterEach(cleanup);

async function createEnvironment(name: string, slug: string) {
  return (await server.api<{ id: string }>('POST', '/env', { name, slug })).body.id;
}

async function openPolicy(id: string) {
  renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl });
  // the page is loaded lazily: on a busy machine that takes longer than findBy's default second
  const section = await screen.findByRole('region', { name: 'Policy' }, { timeout: 10_000 });
  await within(section).findByRole('button', { name: 'Save policy' }, { timeout: 10_000 });
  return section;
}

const storedPolicy = async (id: string) => (await server.api<Policy>('GET', `/env/${id}/policy`)).body;

describe('Policy section', () => {
  it('shows the defaults, saves changed fields, and shows them again after a reload', async () => {
    const id = await createEnvironment('Billing', 'billing');
    const user = userEvent.setup();
    const section = await openPolicy(id);
    const field = (label: string) => within(section).getByLabelText(label) as HTMLInputElement;
    expect(field('Comparison branch').value).toBe('main');
    expect(field('Cost regression (%)').value).toBe('10');
    expect(field('Minimum cost').value).toBe('100');
    expect(field('Minimum saved (%)').value).toBe('30');
    expect((within(section).getByLabelText('New query') as HTMLSelectElement).value).toBe('warn');

    await user.clear(field('Comparison branch'));
    await user.type(field('Comparison branch'), 'trunk');
    await user.clear(field('Cost regression (%)'));
    await user.type(field('Cost regression (%)'), '25');
    await user.selectOptions(within(section).getByLabelText('New query'), 'off');
    await user.selectOptions(within(section).getByLabelText('Cost regression'), 'warn');
    await user.type(within(section).getByLabelText('Ignored queries'), 'ABCDEF0123456789\n0123456789abcdef');
    await user.click(within(section).getByRole('button', { name: 'Save policy' }));
    expect(await within(section).findByText('Policy saved.')).toBeTruthy();

    const stored = await storedPolicy(id);
    expect(stored).toMatchObject({
      comparisonBranch: 'trunk',
      costRegressionPct: 25,
      minCost: 100,
      minSavedPct: 30,
      conditions: { cost_regression: 'warn', new_query: 'off', new_query_needs_index: 'fail', lost_index: 'fail' },
      ignoredHashes: ['0123456789abcdef', 'abcdef0123456789'],
    });
    // the form shows what the server stored: hashes lowercase and sorted
    expect((within(section).getByLabelText('Ignored queries') as HTMLTextAreaElement).value).toBe('0123456789abcdef\nabcdef0123456789');

    cleanup();
    const again = await openPolicy(id);
    expect((within(again).getByLabelText('Comparison branch') as HTMLInputElement).value).toBe('trunk');
    expect((within(again).getByLabelText('Cost regression (%)') as HTMLInputElement).value).toBe('25');
    expect((within(again).getByLabelText('New query') as HTMLSelectElement).value).toBe('off');
  });

  it('shows a refused value beside its field and saves nothing', async () => {
    const id = await createEnvironment('Search', 'search');
    const user = userEvent.setup();
    const section = await openPolicy(id);
    const saved = within(section).getByLabelText('Minimum saved (%)');
    await user.clear(saved);
    await user.type(saved, '150');
    await user.click(within(section).getByRole('button', { name: 'Save policy' }));
    const message = within(section).getByText('Minimum saved percentage must be at most 100');
    expect(saved.getAttribute('aria-invalid')).toBe('true');
    expect(message.id).toBe(saved.getAttribute('aria-describedby'));

    const branch = within(section).getByLabelText('Comparison branch');
    await user.clear(branch);
    await user.type(branch, 'feature..x');
    expect(within(section).getByText('Comparison branch must not contain ".."').id).toBe(branch.getAttribute('aria-describedby'));
    expect(within(section).queryByText('Policy saved.')).toBeNull();
    expect(await storedPolicy(id)).toMatchObject({ comparisonBranch: 'main', minSavedPct: 30 });

    // corrected, it saves
    await user.clear(saved);
    await user.type(saved, '50');
    await user.clear(branch);
    await user.type(branch, 'release/2026');
    await user.click(within(section).getByRole('button', { name: 'Save policy' }));
    expect(await within(section).findByText('Policy saved.')).toBeTruthy();
    expect(await storedPolicy(id)).toMatchObject({ comparisonBranch: 'release/2026', minSavedPct: 50 });
  });
});
