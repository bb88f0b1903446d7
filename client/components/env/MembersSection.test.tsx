// @vitest-environment jsdom
// An environment's page on a team server (the real web server, PGlite store, people signed in as
// the identity provider's callback signs them in): the Members section an owner manages, and what
// each role sees of the page's controls: the ones it may use, and for the others who may.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Member } from '../../../shared/auth';
import { renderApp } from '../../testing/render';
import { startApiServer, type ApiServer, type TestSession } from '../../testing/server';

let server: ApiServer;
let owner: TestSession;
let envId = '';

beforeAll(async () => {
  server = await startApiServer({ team: true });
  owner = await server.signIn('olga@example.com', { name: 'Olga Owner' });
  // made by a person, the environment is theirs: its first owner
  envId = (await server.apiAs<{ id: string }>(owner, 'POST', '/env', { name: 'Checkout', slug: 'checkout' })).body.id;
});
afterAll(() => server?.close());
afterEach(cleanup);

const membersOf = async () => (await server.api<Member[]>('GET', `/env/${envId}/members`)).body;

async function openAs(session: TestSession, id = envId) {
  renderApp(`/environments/${id}`, { trpcUrl: server.trpcUrl, session });
  return screen.findByRole('heading', { level: 1 }, { timeout: 10_000 });
}

const region = (name: RegExp) => screen.findByRole('region', { name });

describe('Members section', () => {
  it('lets an owner add a member, change their role and remove them; the last owner stays', async () => {
    const user = userEvent.setup();
    await openAs(owner);
    const section = await region(/^Members/);
    const table = await within(section).findByRole('table', { name: 'Members' });
    expect(within(table).getByText('Olga Owner')).toBeTruthy();
    expect(within(table).getByText('you')).toBeTruthy();

    await user.type(within(section).getByLabelText('Email'), 'Dana@Example.com');
    await user.selectOptions(within(section).getByLabelText('Role'), 'editor');
    await user.click(within(section).getByRole('button', { name: 'Add member' }));
    const role = await within(section).findByRole('combobox', { name: 'Role of dana@example.com' });
    expect((role as HTMLSelectElement).value).toBe('editor');
    expect(await membersOf()).toMatchObject([
      { email: 'dana@example.com', role: 'editor' },
      { email: 'olga@example.com', role: 'owner' },
    ]);

    await user.selectOptions(role, 'viewer');
    await waitFor(async () => expect((await membersOf()).find((m) => m.email === 'dana@example.com')?.role).toBe('viewer'));

    // the only owner cannot make herself less: the server's reason shows beside her role
    await user.selectOptions(within(section).getByRole('combobox', { name: 'Role of olga@example.com' }), 'editor');
    expect((await within(section).findByRole('alert')).textContent).toMatch(/only owner/);
    expect((await membersOf()).find((m) => m.email === 'olga@example.com')?.role).toBe('owner');

    await user.click(within(section).getByRole('button', { name: 'Remove dana@example.com' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove dana@example.com?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove member' }));
    await waitFor(() => expect(within(section).queryByText('dana@example.com')).toBeNull());
    expect((await membersOf()).map((m) => m.email)).toEqual(['olga@example.com']);
  });

  it('refuses an address that is not an email before sending it', async () => {
    const user = userEvent.setup();
    await openAs(owner);
    const section = await region(/^Members/);
    await user.type(within(section).getByLabelText('Email'), 'not an email');
    await user.click(within(section).getByRole('button', { name: 'Add member' }));
    expect(within(section).getByText('Must be an email address')).toBeTruthy();
    expect(await membersOf()).toHaveLength(1);
  });
});

describe('Controls by role', () => {
  it('shows an editor what editors may do, and for owners-only controls who may', async () => {
    const editor = await server.signIn('eddie@example.com', { name: 'Eddie Editor' });
    await server.apiAs(owner, 'PUT', `/env/${envId}/members/eddie@example.com`, { role: 'editor' });
    const user = userEvent.setup();
    await openAs(editor);
    expect(screen.getByText('you: editor')).toBeTruthy();

    const del = screen.getByRole('button', { name: 'Delete environment' }) as HTMLButtonElement;
    expect(del.disabled).toBe(true);
    expect(document.getElementById(del.getAttribute('aria-describedby')!)?.textContent).toBe('Owners can delete this environment (you are an editor).');

    const connections = await region(/^Database Connections/);
    expect(within(connections).queryByRole('form', { name: 'Add a connection' })).toBeNull();
    expect(within(connections).getByText('Owners can add and remove connections (you are an editor).')).toBeTruthy();

    const policy = await region(/^Policy/);
    // disabled by its fieldset: the values are there to read
    await waitFor(() => expect(within(policy).getByLabelText('Comparison branch').matches(':disabled')).toBe(true));
    expect(within(policy).queryByRole('button', { name: 'Save policy' })).toBeNull();
    expect(within(policy).getByText('Owners can change the policy (you are an editor).')).toBeTruthy();

    const webhooks = await region(/^Webhooks/);
    expect(within(webhooks).queryByRole('form', { name: 'Add a webhook' })).toBeNull();
    expect(within(webhooks).getByText(/^Owners can add, test and remove webhooks/)).toBeTruthy();

    const ciTokens = await region(/^CI Tokens/);
    expect(within(ciTokens).getByText(/^Owners can make, see and revoke CI tokens/)).toBeTruthy();
    const members = await region(/^Members/);
    expect(within(members).queryByRole('form', { name: 'Add a member' })).toBeNull();
    expect(within(members).queryByRole('combobox')).toBeNull();

    // what an editor may do is there, and works: the SPA sends the session's CSRF token with the change
    expect((screen.getByRole('button', { name: 'Analyze' }) as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByLabelText('Readings') as HTMLSelectElement).disabled).toBe(false);
    const repos = await region(/^Linked Repos/);
    await user.type(within(repos).getByLabelText('Repository'), 'acme/checkout');
    await user.click(within(repos).getByRole('button', { name: 'Link repository' }));
    expect(await within(repos).findByRole('button', { name: 'Unlink acme/checkout' })).toBeTruthy();

    // demoted meanwhile, the next change is refused with the role it needs
    await server.apiAs(owner, 'PUT', `/env/${envId}/members/eddie@example.com`, { role: 'viewer' });
    await user.type(within(repos).getByLabelText('Repository'), 'acme/admin');
    await user.click(within(repos).getByRole('button', { name: 'Link repository' }));
    expect(await within(repos).findByText('This needs the editor role on this environment (you are a viewer)')).toBeTruthy();
  });

  it('shows a viewer a read-only page, with who may use each control', async () => {
    const viewer = await server.signIn('vera@example.com');
    await server.apiAs(owner, 'PUT', `/env/${envId}/members/vera@example.com`, { role: 'viewer' });
    await openAs(viewer);
    const analyze = await screen.findByRole('button', { name: 'Analyze' });
    expect((analyze as HTMLButtonElement).disabled).toBe(true);
    expect(analyze.getAttribute('aria-describedby')).toContain('analysis-role');
    expect(screen.getByText('Editors can run Analyze (you are a viewer).')).toBeTruthy();
    expect((screen.getByLabelText('Readings') as HTMLSelectElement).disabled).toBe(true);
    const repos = await region(/^Linked Repos/);
    expect(within(repos).queryByRole('form', { name: 'Link a repository' })).toBeNull();
    expect(within(repos).queryByRole('button', { name: /^Unlink/ })).toBeNull();
    expect(within(repos).getByText('Editors can link and unlink repositories (you are a viewer).')).toBeTruthy();
  });

  it('shows who acknowledged a query', async () => {
    const { hash } = (await server.apiAs<{ hash: string }>(owner, 'POST', `/env/${envId}/queries`, { query: 'SELECT * FROM orders WHERE id = $1' })).body;
    await server.apiAs(owner, 'POST', `/env/${envId}/queries/${hash}/acknowledge`, { note: 'Primary key lookup.' });
    await openAs(owner);
    const acknowledged = await region(/^Acknowledged Queries/);
    const item = await within(acknowledged).findByRole('listitem', { name: `Acknowledged query ${hash}` });
    expect(item.textContent).toContain('by olga@example.com');
  });

  it("gives the maker of an environment its owner's controls at once", async () => {
    const maker = await server.signIn('mia@example.com');
    const user = userEvent.setup();
    renderApp('/environments', { trpcUrl: server.trpcUrl, session: maker });
    await user.type(await screen.findByLabelText('Name', {}, { timeout: 10_000 }), 'Search');
    await user.click(screen.getByRole('button', { name: 'Create environment' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Search' })).toBeTruthy();
    expect(screen.getByText('you: owner')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Delete environment' }) as HTMLButtonElement).disabled).toBe(false);
    expect(await within(await region(/^Members/)).findByRole('form', { name: 'Add a member' })).toBeTruthy();
  });

  it('answers another environment as not found, as if it did not exist', async () => {
    const other = (await server.api<{ id: string }>('POST', '/env', { name: 'Payroll', slug: 'payroll' })).body.id;
    const outsider = await server.signIn('otto@example.com');
    renderApp(`/environments/${other}`, { trpcUrl: server.trpcUrl, session: outsider });
    expect(await screen.findByRole('heading', { name: 'Environment not found' })).toBeTruthy();
  });
});
