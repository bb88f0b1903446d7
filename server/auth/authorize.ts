// Enforces the access table (server/auth/access.ts) for one procedure call, before its input is
// parsed and its resolver runs. Identifiers are read from the raw input with the same schemas the
// input parser applies (so the environment checked is the one the resolver will see); one that does
// not parse is left to the input parser, which refuses it with 400 before anything runs.
import { envRoleAtLeast, type EnvRole } from '../../shared/auth';
import { pathParam } from '../../shared/environments';
import { idSchema, repoSchema } from '../../shared/validation';
import type { Store } from '../db/store';
import { forbidden, notFound, unauthorized } from '../errors';
import { ACCESS, type Rule } from './access';
import { isAdmin, isCi, type Principal } from './principal';

const envIdField = pathParam(idSchema);

const idIn = (input: Record<string, unknown>, key: string): string | undefined => {
  const parsed = envIdField.safeParse(input[key]);
  return parsed.success ? parsed.data : undefined;
};

/** The environments a principal may see at `role` or above: null means all (admins). */
export function visibleEnvironments(principal: Principal, role: EnvRole = 'viewer'): string[] | null {
  if (isAdmin(principal)) return null;
  if (principal.kind === 'person')
    return Object.entries(principal.memberships)
      .filter(([, r]) => envRoleAtLeast(r, role))
      .map(([id]) => id);
  if (principal.kind === 'ci-token') return [principal.environmentId];
  return [];
}

const RUN_LOOKUP = { name: 'qt_run_owner', text: 'SELECT environment_id, repo FROM ci_runs WHERE id = $1' };
const REPO_LOOKUP = { name: 'qt_repo_environment', text: 'SELECT id, environment_id, ci_repository_id FROM repo_links WHERE lower(repo) = lower($1)' };
/** The first CI ID token of a link names the repository's id for good (never overwritten: only a new link resets it). */
const KEEP_REPOSITORY_ID = {
  name: 'qt_repo_keep_id',
  text: 'UPDATE repo_links SET ci_repository_id = $2 WHERE id = $1 AND ci_repository_id IS NULL RETURNING ci_repository_id',
};

/** A person's role on an environment, or a 404 that reads exactly as a missing environment's. */
function requireEnvRole(principal: Principal, environmentId: string, needed: EnvRole) {
  if (isAdmin(principal)) return;
  const role = principal.kind === 'person' ? principal.memberships[environmentId] : undefined;
  if (!role) throw notFound(`Environment ${environmentId}`);
  if (!envRoleAtLeast(role, needed)) throw forbidden(`This needs the ${needed} role on this environment (you are ${role === 'editor' ? 'an' : 'a'} ${role})`);
}

async function checkRun(store: Store, principal: Principal, runId: string, needed: EnvRole) {
  const [run] = await store.read<{ environment_id: string | null; repo: string }>({ ...RUN_LOOKUP, values: [runId] });
  if (!run) return; // the procedure answers its own 404
  const hidden = notFound(`CI run ${runId}`);
  if (principal.kind === 'ci-token') {
    if (run.environment_id !== principal.environmentId) throw hidden;
    return;
  }
  if (principal.kind === 'ci-oidc') {
    if (run.repo.toLowerCase() !== principal.repository.toLowerCase()) throw hidden;
    return;
  }
  if (isAdmin(principal)) return;
  if (!run.environment_id) throw hidden;
  try {
    requireEnvRole(principal, run.environment_id, needed);
  } catch (error) {
    throw (error as { code?: string }).code === 'NOT_FOUND' ? hidden : error;
  }
}

async function checkIngest(store: Store, principal: Principal, input: Record<string, unknown>) {
  const repo = repoSchema.safeParse(input.repo);
  if (!repo.success) return; // the input parser refuses it
  const [link] = await store.read<{ id: string; environment_id: string; ci_repository_id: string | null }>({ ...REPO_LOOKUP, values: [repo.data] });
  if (principal.kind === 'ci-token') {
    if (link?.environment_id !== principal.environmentId) {
      throw forbidden(`This CI token posts runs only of the repositories linked to its environment; ${repo.data} is not one of them`);
    }
    return;
  }
  if (principal.kind === 'ci-oidc') {
    if (repo.data.toLowerCase() !== principal.repository.toLowerCase()) {
      throw forbidden(`This CI ID token is for ${principal.repository}; it cannot post runs of ${repo.data}`);
    }
    if (!link) throw forbidden(`${repo.data} is not linked to an environment: link it before posting runs with a CI ID token`);
    await checkRepositoryId(store, link, principal.repositoryId, repo.data);
    return;
  }
  if (isAdmin(principal)) return;
  if (!link) throw forbidden(`${repo.data} is not linked to an environment; only an admin may post its runs`);
  // never the environment's id: the caller may not know it exists
  const role = principal.kind === 'person' ? principal.memberships[link.environment_id] : undefined;
  if (!role || !envRoleAtLeast(role, 'editor')) throw forbidden(`Posting runs of ${repo.data} needs the editor role on the environment it is linked to`);
}

/**
 * A repository is named by its owner/name, which can be taken again by someone else once it is
 * renamed or deleted: the link keeps the id the first CI ID token gave and refuses tokens of another.
 */
async function checkRepositoryId(store: Store, link: { id: string; ci_repository_id: string | null }, repositoryId: string | undefined, repo: string) {
  if (!repositoryId) return;
  if (link.ci_repository_id === null) {
    const [kept] = await store.read<{ ci_repository_id: string }>({ ...KEEP_REPOSITORY_ID, values: [link.id, repositoryId] });
    if (kept || (await store.read<{ ci_repository_id: string | null }>({ ...REPO_LOOKUP, values: [repo] }))[0]?.ci_repository_id === repositoryId) return;
  } else if (link.ci_repository_id === repositoryId) {
    return;
  }
  throw forbidden(
    `This CI ID token is for another repository named ${repo} than the one linked (its id differs): unlink and link ${repo} again if it was moved`,
  );
}

function checkScope(principal: Principal, type: 'query' | 'mutation' | 'subscription') {
  if (principal.kind !== 'person' || !('token' in principal.via)) return;
  const scopes = principal.via.token.scopes;
  if (type === 'mutation' ? !scopes.includes('write') : !scopes.includes('read') && !scopes.includes('write')) {
    throw forbidden(`This token lacks the ${type === 'mutation' ? 'write' : 'read'} scope`);
  }
}

/** Throws 401, 403 or 404 unless the principal may call `path` with this input. */
export async function authorize(
  store: Store,
  principal: Principal | undefined,
  path: string,
  type: 'query' | 'mutation' | 'subscription',
  input: Record<string, unknown>,
): Promise<void> {
  const declaration = ACCESS[path];
  if (!declaration) throw forbidden(`${path} declares no access rule, so no one may call it`);
  if (!principal) throw unauthorized();
  const rule: Rule = declaration.rule;
  const ciAllowed = rule.need === 'ingest' || ('ci' in rule && rule.ci === true);
  if (isCi(principal) && !ciAllowed) throw forbidden('CI credentials may only post runs and read those runs and their verdicts');
  checkScope(principal, type);

  switch (rule.need) {
    case 'person':
      if (rule.sessionOnly && principal.kind === 'person' && !('session' in principal.via)) {
        throw forbidden('Sign in to do this: a token cannot make tokens');
      }
      if (rule.sessionOnly && principal.kind === 'break-glass') throw forbidden('Sign in to do this: the API_TOKEN acts as no person');
      return;
    case 'admin':
      if (!isAdmin(principal)) throw forbidden('This needs the admin role');
      return;
    case 'env': {
      const id = idIn(input, 'id');
      if (id === undefined) return;
      requireEnvRole(principal, id, typeof rule.role === 'function' ? rule.role(input) : rule.role);
      return;
    }
    case 'env-list': {
      const id = idIn(input, 'environmentId');
      if (id === undefined) return; // the procedure filters by visibleEnvironments
      requireEnvRole(principal, id, rule.role);
      return;
    }
    case 'run': {
      const id = idIn(input, 'id');
      if (id !== undefined) await checkRun(store, principal, id, rule.role);
      return;
    }
    case 'ingest':
      if (type === 'mutation') await checkIngest(store, principal, input);
      return;
  }
}

/** A raw input as an object (tRPC hands undefined for no input). */
export const inputRecord = (raw: unknown): Record<string, unknown> =>
  raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
