// Tokenless CI: a CI job's OpenID Connect ID token (GitHub Actions' `permissions: id-token: write`,
// GitLab CI's `id_tokens`, as PyPI's trusted publishing and Codecov take them) verified against its
// issuer's published keys. The token names the repository the job runs for (GitHub's `repository`
// claim, GitLab's `project_path`); server/auth/authorize.ts lets it post runs of that repository
// only (and read those runs and their verdicts), once the repository is linked to an environment.
//
// Which issuers are trusted, the audience tokens must carry and the branches they may come from are
// the operator's settings (CI_OIDC_ISSUERS, CI_OIDC_AUDIENCE, CI_OIDC_BRANCHES; server/config.ts).
// The token's unverified `iss` only chooses among those issuers; everything else is believed only
// once the signature checks out with a key the chosen issuer publishes.
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWSAlgorithm, type JWTPayload } from 'jose';
import { repoSchema } from '../../shared/validation';
import { isLoopback, type AuthConfig } from '../config';
import { CredentialsRefused, CredentialsUnverifiable, type Principal } from './principal';

export type CiOidcPrincipal = Extract<Principal, { kind: 'ci-oidc' }>;

export const looksLikeJwt = (value: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);

/** Asymmetric signatures only: never `none`, never an HMAC (whose "key" would be public). GitHub signs with RS256. */
const ALGORITHMS: JWSAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
/** Clocks of the issuer and of this server may differ this much (exp, nbf, iat). */
const CLOCK_TOLERANCE_SECONDS = 30;
/** A discovery document is read again after this long (an issuer may move its keys' address). */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
/** After a failed discovery, tokens of that issuer are refused at once for this long, so refused requests cannot make us hammer it. */
const DISCOVERY_RETRY_MS = 10 * 1000;
const FETCH_TIMEOUT_MS = 5000;

const refused = (reason: string) => new CredentialsRefused(`CI ID token refused: ${reason}`);

/** The address an issuer's keys may be fetched from: https, or http on loopback (an issuer beside the server). */
function keysUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname)) ? url : undefined;
  } catch {
    return undefined;
  }
}

// Per process: each issuer's discovered JWKS address, and one remote key set per address (jose's
// createRemoteJWKSet caches the keys, fetches again for a kid it does not know, at most once per
// cooldown, which is how an issuer's key rotation is picked up).
const discovered = new Map<string, { jwksUrl: Promise<URL>; at: number; failedAt?: number }>();
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

async function discoverJwksUrl(issuer: string): Promise<URL> {
  const where = `${issuer}/.well-known/openid-configuration`;
  let response: Response;
  try {
    response = await fetch(where, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'timeout' : ((error as { cause?: { code?: string } }).cause?.code ?? 'network error');
    throw new Error(`${where} did not answer (${why})`, { cause: error });
  }
  if (response.status !== 200) throw new Error(`${where} answered ${response.status}`);
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    document = (await response.json()) as typeof document;
  } catch {
    throw new Error(`${where} is not JSON`);
  }
  // OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for
  if (typeof document.issuer !== 'string' || document.issuer.replace(/\/+$/, '') !== issuer) throw new Error(`${where} is another issuer's`);
  const jwksUrl = keysUrl(document.jwks_uri);
  if (!jwksUrl) throw new Error(`${where} names no https jwks_uri`);
  return jwksUrl;
}

async function jwksUrlOf(auth: AuthConfig, issuer: string): Promise<URL> {
  const configured = auth.ciJwksUrls[issuer];
  if (configured) return new URL(configured);
  const now = Date.now();
  let entry = discovered.get(issuer);
  if (entry?.failedAt !== undefined && now - entry.failedAt < DISCOVERY_RETRY_MS) return entry.jwksUrl;
  if (!entry || entry.failedAt !== undefined || now - entry.at > DISCOVERY_MAX_AGE_MS) {
    const fresh: { jwksUrl: Promise<URL>; at: number; failedAt?: number } = { jwksUrl: discoverJwksUrl(issuer), at: now };
    fresh.jwksUrl.catch(() => {
      fresh.failedAt = Date.now();
    });
    discovered.set(issuer, fresh);
    entry = fresh;
  }
  return entry.jwksUrl;
}

function keySetOf(url: URL) {
  let set = keySets.get(url.href);
  if (!set) {
    set = createRemoteJWKSet(url, { timeoutDuration: FETCH_TIMEOUT_MS });
    keySets.set(url.href, set);
  }
  return set;
}

const KEYS_UNREACHABLE = "the issuer's keys could not be fetched";

/** Why jose refused a token, in a few words (never the token, never its contents beyond a claim's name). */
function reasonOf(error: unknown, auth: AuthConfig): string {
  if (!(error instanceof errors.JOSEError)) return KEYS_UNREACHABLE;
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return 'it has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const { claim, reason } = error as errors.JWTClaimValidationFailed;
      if (reason === 'missing') return `it has no "${claim}" claim`;
      if (claim === 'aud') return `its audience is not "${auth.ciAudience}" (CI_OIDC_AUDIENCE)`;
      if (claim === 'nbf') return 'it is not valid yet';
      if (claim === 'iat') return 'it was issued in the future';
      return `its "${claim}" claim is not valid`;
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `it is not signed with an accepted algorithm (${ALGORITHMS.join(', ')})`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'it is signed with a key its issuer does not publish';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'its signature is not valid';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
    case 'ERR_JOSE_GENERIC':
      return KEYS_UNREACHABLE;
    default:
      return 'it is not a well-formed signed JWT';
  }
}

const stringClaim = (payload: JWTPayload, name: string): string | undefined => {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The branch rule of CI_OIDC_BRANCHES (none listed: any ref may post). A token is accepted when
 *  - its `ref` is refs/heads/<branch> for a listed branch (a push to it, a workflow run on it, and
 *    pull_request_target, whose ref is the base branch), or
 *  - it is a pull request's (`ref` refs/pull/<n>/merge) whose `base_ref`, the branch it would merge
 *    into, is a listed branch: that is the change whose queries the verdict is for.
 * Tags, other branches, and pull requests into other branches are refused.
 */
export function branchAllowed(branches: string[], ref: string | undefined, baseRef: string | undefined): boolean {
  if (branches.length === 0) return true;
  if (ref === undefined) return false;
  if (branches.some((branch) => ref === `refs/heads/${branch}`)) return true;
  return ref.startsWith('refs/pull/') && baseRef !== undefined && branches.includes(baseRef);
}

/**
 * How each CI names the job's repository in its ID token. GitHub: `repository` (owner/name),
 * `repository_id`, and `ref` as refs/heads/<branch>. GitLab: `project_path` (group/subgroup/project),
 * `project_id`, and `ref` as the bare branch or tag name beside `ref_type`. GitLab's project ids are
 * kept with their issuer, so a link pinned by one CI's token refuses the other's of the same name.
 */
interface CiClaims {
  repository(payload: JWTPayload): string | undefined;
  repositoryId(payload: JWTPayload, issuer: string): string | undefined;
  /** The ref as refs/heads/<branch> (or refs/tags/, refs/pull/), as the branch rule reads it. */
  ref(payload: JWTPayload): string | undefined;
  baseRef(payload: JWTPayload): string | undefined;
}

const GITHUB_CLAIMS: CiClaims = {
  repository: (payload) => {
    const repository = stringClaim(payload, 'repository');
    return repository && /^[^/\s]+\/[^/\s]+$/.test(repository) ? repository : undefined;
  },
  repositoryId: (payload) => stringClaim(payload, 'repository_id'),
  ref: (payload) => stringClaim(payload, 'ref'),
  baseRef: (payload) => stringClaim(payload, 'base_ref'),
};

const GITLAB_CLAIMS: CiClaims = {
  repository: (payload) => {
    const path = stringClaim(payload, 'project_path');
    return path && repoSchema.safeParse(path).data === path ? path : undefined;
  },
  repositoryId: (payload, issuer) => {
    const id = stringClaim(payload, 'project_id');
    return id ? `gitlab:${id}@${issuer}` : undefined;
  },
  ref: (payload) => {
    const ref = stringClaim(payload, 'ref');
    const type = stringClaim(payload, 'ref_type');
    if (!ref) return undefined;
    return type === 'branch' ? `refs/heads/${ref}` : type === 'tag' ? `refs/tags/${ref}` : undefined;
  },
  // GitLab's ID token does not name a merge request's target branch
  baseRef: () => undefined,
};

/** GitLab's tokens name a project_path and no repository; every other token is read as GitHub's. */
const claimsOf = (payload: JWTPayload): CiClaims =>
  typeof payload.project_path === 'string' && payload.repository === undefined ? GITLAB_CLAIMS : GITHUB_CLAIMS;

/** The principal of a CI job's ID token; throws CredentialsRefused (401) for any token it does not accept. */
export async function verifyCiIdToken(auth: AuthConfig, token: string): Promise<CiOidcPrincipal> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch {
    throw refused('it is not a well-formed JWT');
  }
  // Only to choose among the configured issuers (which are written without a trailing slash);
  // jwtVerify checks the token's `iss` again, exactly, once its signature is known to be the issuer's.
  const iss = typeof unverified.iss === 'string' ? unverified.iss : undefined;
  const issuer = iss === undefined ? undefined : auth.ciIssuers.find((i) => i === iss.replace(/\/+$/, ''));
  if (!issuer || !iss) throw refused('its issuer is not one this server accepts (CI_OIDC_ISSUERS)');
  // The signature covers these claims: the choice made on them stands once the token is verified.
  const ci = claimsOf(unverified);

  let jwksUrl: URL;
  try {
    jwksUrl = await jwksUrlOf(auth, issuer);
  } catch (error) {
    throw new CredentialsUnverifiable(`CI ID token not checked: the keys of ${issuer} could not be found: ${(error as Error).message}`);
  }

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySetOf(jwksUrl), {
      algorithms: ALGORITHMS,
      issuer: iss,
      audience: auth.ciAudience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    const reason = reasonOf(error, auth);
    if (reason === KEYS_UNREACHABLE) throw new CredentialsUnverifiable(`CI ID token not checked: ${reason}`);
    throw refused(reason);
  }

  const repository = ci.repository(payload);
  const subject = stringClaim(payload, 'sub');
  if (!repository) {
    if (ci === GITLAB_CLAIMS) throw refused('its "project_path" claim is not a project path');
    throw refused(
      payload.repository === undefined ? 'it has no "repository" claim (GitHub) nor "project_path" claim (GitLab)' : 'its "repository" claim is not owner/name',
    );
  }
  if (!subject) throw refused('its "sub" claim is empty');
  const ref = ci.ref(payload);
  if (!branchAllowed(auth.ciBranches, ref, ci.baseRef(payload))) {
    throw refused(`its ref is not one of the branches this server accepts (CI_OIDC_BRANCHES: ${auth.ciBranches.join(', ')})`);
  }
  const repositoryId = ci.repositoryId(payload, issuer);
  return { kind: 'ci-oidc', issuer, repository, ...(repositoryId ? { repositoryId } : {}), ...(ref ? { ref } : {}), subject };
}
