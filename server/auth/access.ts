// Who may call what: every tRPC procedure (and so every REST route, which is a procedure with an
// OpenAPI path) is declared here, once. A procedure missing from this table is refused to everyone
// (server/auth/authorize.ts), and test/security/access-table.test.ts fails on it.
// The MCP tools at /mcp (server/mcp/) call these same procedures as their caller: this table decides
// what an assistant may read too.
//
// Instance roles: admin (everything) and member (creates environments, sees those they belong to).
// Environment roles, each including the ones before it: viewer (read), editor (repositories,
// Analyze, acknowledgements, snapshots and history settings), owner (members, connections, policy,
// webhooks, CI tokens, rename, delete). A person asking about an environment they do not belong to
// gets 404, as for one that does not exist. CI credentials (CI tokens, CI ID tokens) reach only the
// procedures marked `ci`: posting runs and reading those runs and their verdicts.
import type { EnvRole } from '../../shared/auth';
import type { Db } from '../db/store';
import { auditSettings } from '../audit/settings';

export type Rule =
  /** Any person or admin credential; never CI. */
  | { need: 'person'; sessionOnly?: true }
  | { need: 'admin' }
  /** The environment named by the input's `id`. `role` may depend on the input (a rename needs more than an interval). */
  | { need: 'env'; role: EnvRole | ((input: Record<string, unknown>) => EnvRole) }
  /**
   * A list over environments: with the input's `environmentId` it is that environment's (at least
   * `role`); without it the procedure answers only what the caller may see (ctx.visibleEnvironments).
   */
  | { need: 'env-list'; role: EnvRole }
  /** The CI run named by the input's `id`: its environment's `role`; CI credentials of that run's environment or repository when `ci`. */
  | { need: 'run'; role: EnvRole; ci?: true }
  /** Posting a run of the input's `repo`: CI credentials of its environment or repository, or an editor of its environment. */
  | { need: 'ingest' };

export interface Declaration {
  rule: Rule;
  /**
   * Mutations are audited unless `audit: false` (not a change of anything a person set: a CI run,
   * a test delivery). `settings` reads what the change touches, before and after it.
   */
  audit?: false | { settings?: (db: Db, input: Record<string, unknown>) => Promise<unknown> };
}

const viewer = { rule: { need: 'env', role: 'viewer' } } as const satisfies Declaration;
const editor = { rule: { need: 'env', role: 'editor' } } as const satisfies Declaration;
const owner = { rule: { need: 'env', role: 'owner' } } as const satisfies Declaration;
const person = { rule: { need: 'person' } } as const satisfies Declaration;
const admin = { rule: { need: 'admin' } } as const satisfies Declaration;

export const ACCESS: Record<string, Declaration> = {
  'me.get': person,
  'me.users': admin,
  'me.setUserRole': { ...admin, audit: { settings: auditSettings.userRole } },

  'env.create': person,
  'env.list': { rule: { need: 'env-list', role: 'viewer' } },
  'env.get': viewer,
  'env.update': {
    rule: { need: 'env', role: (input) => (input.name !== undefined || input.slug !== undefined ? 'owner' : 'editor') },
    audit: { settings: auditSettings.environment },
  },
  'env.delete': { ...owner, audit: { settings: auditSettings.environment } },
  'env.refreshSnapshot': editor,

  'members.list': viewer,
  'members.set': { ...owner, audit: { settings: auditSettings.member } },
  'members.remove': { ...owner, audit: { settings: auditSettings.member } },

  'tokens.create': { rule: { need: 'person', sessionOnly: true } },
  'tokens.list': person,
  'tokens.revoke': person,
  'ciTokens.create': owner,
  'ciTokens.list': owner,
  'ciTokens.revoke': owner,

  'audit.list': { rule: { need: 'env-list', role: 'owner' } },

  'connections.add': owner,
  'connections.update': { ...owner, audit: { settings: auditSettings.connectionFilters } },
  'connections.remove': owner,
  'repos.link': editor,
  'repos.unlink': editor,

  'queries.list': viewer,
  'queries.count': viewer,
  'queries.get': viewer,
  'queries.add': editor,
  'queries.syncProduction': editor,

  'history.query': viewer,
  'history.top': viewer,
  'history.regressed': viewer,
  'history.snapshot': editor,

  'analysis.start': editor,
  'analysis.latest': viewer,
  'analysis.indexHealth': viewer,
  'analysis.query': viewer,
  // planned in the shadow only: reading, as the rest of a viewer's procedures
  'analysis.explain': viewer,
  'analysis.ciRun': { rule: { need: 'run', role: 'viewer' } },

  'ci.ingest': { rule: { need: 'ingest' }, audit: false },
  'ci.list': { rule: { need: 'env-list', role: 'viewer' } },
  'ci.count': { rule: { need: 'env-list', role: 'viewer' } },
  'ci.get': { rule: { need: 'run', role: 'viewer', ci: true } },
  'ci.verdict': { rule: { need: 'run', role: 'viewer', ci: true } },

  'policy.get': viewer,
  'policy.update': { ...owner, audit: { settings: auditSettings.policy } },
  'policy.acknowledge': editor,
  'policy.unacknowledge': editor,
  'policy.acknowledgements': viewer,

  'demo.start': admin,
  'demo.status': person,
  'demo.remove': admin,
  'demo.sync': admin,

  'webhooks.add': owner,
  'webhooks.list': viewer,
  'webhooks.remove': owner,
  'webhooks.test': { ...owner, audit: false },
  'webhooks.deliveries': viewer,
};
