// @vitest-environment jsdom
// The environments pages against the real web server (PGlite store) over the real tRPC client.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../testing/render';
import { startApiServer, type ApiServer } from '../testing/server';

let server: ApiServer;
let trpcUrl: string;

beforeAll(async () => {
  server = await startApiServer();
  trpcUrl = server.trpcUrl;
});
afterAll(() => server?.close());
afterEach(cleanup);

async function createEnvironment(name: string, slug: string) {
  return (await server.api<{ id: string }>('POST', '/env', { name, slug })).body.id;
}

describe('/environments', () => {
  it('suggests the slug from the name, validates it while typing, and opens the new environment', async () => {
    const user = userEvent.setup();
    renderApp('/environments', { trpcUrl });
    expect(await screen.findByText('No environments yet.')).toBeTruthy();

    await user.type(screen.getByLabelText('Name'), 'Billing API (EU)');
    const slug = screen.getByLabelText('Slug') as HTMLInputElement;
    expect(slug.value).toBe('billing-api-eu');

    await user.clear(slug);
    await user.type(slug, 'Billing_EU');
    expect(screen.getByText('Slug may contain only lowercase letters, digits and hyphens')).toBeTruthy();
    expect(slug.getAttribute('aria-invalid')).toBe('true');
    // the message is what assistive technology reads with the field
    expect(document.getElementById(slug.getAttribute('aria-describedby')!)?.textContent).toBe('Slug may contain only lowercase letters, digits and hyphens');

    // a slug typed by hand is kept when the name changes
    await user.clear(slug);
    await user.type(slug, 'billing-eu');
    await user.type(screen.getByLabelText('Name'), '!');
    expect(slug.value).toBe('billing-eu');

    await user.click(screen.getByRole('button', { name: 'Create environment' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Billing API (EU)!' })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toMatch(/^\/environments\/[^/]+$/);
  });

  it('shows a taken slug beside the slug field', async () => {
    await createEnvironment('Payments', 'payments');
    const user = userEvent.setup();
    renderApp('/environments', { trpcUrl });
    expect(await screen.findByRole('link', { name: /Payments/ })).toBeTruthy();
    await user.type(screen.getByLabelText('Name'), 'Payments');
    await user.click(screen.getByRole('button', { name: 'Create environment' }));
    const message = await screen.findByText('An environment with slug "payments" already exists');
    expect(message.id).toBe(screen.getByLabelText('Slug').getAttribute('aria-describedby'));
  });
});

describe('/environments/:id', () => {
  it('adds a connection, shown masked, and removes it', async () => {
    const id = await createEnvironment('Orders', 'orders');
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl });
    const section = await screen.findByRole('region', { name: /Database Connections/ });
    expect(within(section).getByText('No database connections yet.')).toBeTruthy();

    await user.click(within(section).getByRole('button', { name: 'Add connection' }));
    expect(within(section).getByText('Label must not be empty')).toBeTruthy();

    await user.type(within(section).getByLabelText('Label'), 'Replica');
    await user.selectOptions(within(section).getByLabelText('Role'), 'staging');
    await user.type(within(section).getByLabelText('Connection string'), 'postgresql://reader:hunter2@replica.internal/orders');
    await user.click(within(section).getByRole('button', { name: 'Add connection' }));

    const table = await within(section).findByRole('table', { name: 'Database connections' });
    expect(within(table).getByText('postgresql://reader:****@replica.internal/orders')).toBeTruthy();
    expect(within(table).getByText('staging')).toBeTruthy();
    expect(document.body.textContent).not.toContain('hunter2');

    await user.click(within(table).getByRole('button', { name: 'Remove connection Replica' }));
    expect(await within(section).findByText('No database connections yet.')).toBeTruthy();
  });

  it('adds a connection with schema filters, shows them, refuses a regex and changes them', async () => {
    const id = await createEnvironment('Tenants', 'tenants-filters');
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl });
    const section = await screen.findByRole('region', { name: /Database Connections/ });
    const add = within(section).getByRole('form', { name: 'Add a connection' });
    await user.type(within(add).getByLabelText('Label'), 'Primary');
    await user.type(within(add).getByLabelText('Connection string'), 'postgresql://reader:hunter2@db.internal/app');
    await user.type(within(add).getByLabelText('Exclude schemas'), '^tenant_.*$');
    expect(await within(add).findByText(/globs, not regular expressions/)).toBeTruthy();
    await user.clear(within(add).getByLabelText('Exclude schemas'));
    await user.type(within(add).getByLabelText('Include schemas'), 'tenant_*, public');
    await user.type(within(add).getByLabelText('Exclude schemas'), 'tenant_test');
    await user.click(within(add).getByRole('button', { name: 'Add connection' }));

    const table = await within(section).findByRole('table', { name: 'Database connections' });
    expect(await within(table).findByText('only tenant_*, public except tenant_test')).toBeTruthy();

    await user.click(within(table).getByRole('button', { name: 'Edit schema filters of Primary' }));
    const edit = within(section).getByRole('form', { name: 'Schema filters of Primary' });
    await user.clear(within(edit).getByLabelText('Include schemas'));
    await user.clear(within(edit).getByLabelText('Exclude schemas'));
    await user.type(within(edit).getByLabelText('Exclude schemas'), 'audit');
    await user.click(within(edit).getByRole('button', { name: 'Save schema filters' }));
    expect(await within(table).findByText('all schemas except audit')).toBeTruthy();
    const stored = await server.api<{ connections: { includeSchemas: string[]; excludeSchemas: string[] }[] }>('GET', `/env/${id}`);
    expect(stored.body.connections[0]).toMatchObject({ includeSchemas: [], excludeSchemas: ['audit'] });
    expect(document.body.textContent).not.toContain('hunter2');
  });

  it('shows the server’s conflict beside the repository field when the repo belongs to another environment', async () => {
    const owner = await createEnvironment('Web', 'web');
    await server.api('POST', `/env/${owner}/repos`, { repo: 'acme/web' });
    const id = await createEnvironment('Web staging', 'web-staging');
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl });
    const section = await screen.findByRole('region', { name: /Linked Repos/ });
    const field = within(section).getByLabelText('Repository', { selector: 'input' });
    await user.type(field, 'acme/web');
    await user.click(within(section).getByRole('button', { name: 'Link repository' }));
    const message = await within(section).findByText(/already linked to environment "Web"/);
    expect(message.id).toBe(field.getAttribute('aria-describedby'));

    await user.clear(field);
    await user.type(field, 'acme/web-admin');
    await user.click(within(section).getByRole('button', { name: 'Link repository' }));
    expect(await within(section).findByRole('button', { name: 'Unlink acme/web-admin' })).toBeTruthy();
  });

  it('deletes only after confirmation', async () => {
    const id = await createEnvironment('Doomed', 'doomed');
    const user = userEvent.setup();
    renderApp(`/environments/${id}`, { trpcUrl });
    await user.click(await screen.findByRole('button', { name: 'Delete environment' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete “Doomed”?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBe(document.activeElement);

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect((await server.api('GET', `/env/${id}`)).status).toBe(200);

    await user.click(screen.getByRole('button', { name: 'Delete environment' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete environment' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/environments'));
    expect((await server.api('GET', `/env/${id}`)).status).toBe(404);
    await waitFor(() => expect(screen.queryByRole('link', { name: /Doomed/ })).toBeNull());
  });

  it('says so when the environment does not exist', async () => {
    renderApp('/environments/env_missing', { trpcUrl });
    expect(await screen.findByRole('heading', { name: 'Environment not found' })).toBeTruthy();
  });
});
