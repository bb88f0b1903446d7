// A local stand-in for GitHub Actions' OpenID Connect issuer (https://token.actions.githubusercontent.com),
// speaking the shapes GitHub documents: the discovery document at /.well-known/openid-configuration,
// the key set at /.well-known/jwks, ID tokens with GitHub's claims signed RS256 by its own key pair,
// and the runner's token request endpoint (what ACTIONS_ID_TOKEN_REQUEST_URL points at in a job with
// `permissions: id-token: write`): GET <url>&audience=<aud> with `Authorization: bearer <request
// token>` answers { "value": "<jwt>" }. It stands in for a GitLab instance's issuer too (GitLab
// publishes the same discovery and keys): mintGitlab() signs the claims GitLab documents for a CI
// job's `id_tokens`. On a free loopback port; every request is recorded.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';

/** The registered claims every CI's ID token carries. */
interface JwtClaims {
  iss: string;
  aud: string | string[];
  sub: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

/** The claims GitHub puts in a job's ID token (https://docs.github.com/actions/reference/security/oidc). */
export interface GithubClaims extends JwtClaims {
  repository: string;
  repository_owner: string;
  repository_id: string;
  ref: string;
  ref_type: 'branch' | 'tag';
  sha: string;
  workflow: string;
  workflow_ref: string;
  job_workflow_ref: string;
  run_id: string;
  run_number: string;
  run_attempt: string;
  actor: string;
  event_name: string;
  base_ref: string;
  head_ref: string;
  runner_environment: string;
  [claim: string]: unknown;
}

/** The claims GitLab puts in a CI job's ID token (https://docs.gitlab.com/ci/secrets/id_token_authentication/). */
export interface GitlabClaims extends JwtClaims {
  namespace_id: string;
  namespace_path: string;
  project_id: string;
  project_path: string;
  user_id: string;
  user_login: string;
  user_email: string;
  user_access_level: string;
  pipeline_id: string;
  pipeline_source: string;
  job_id: string;
  ref: string;
  ref_type: 'branch' | 'tag';
  ref_path: string;
  ref_protected: string;
  runner_id: number;
  runner_environment: string;
  sha: string;
  project_visibility: string;
  ci_config_ref_uri: string;
  ci_config_sha: string;
  [claim: string]: unknown;
}

export interface MintOptions {
  /** Sign with this private key instead of the issuer's own (a forger's). */
  key?: CryptoKey;
  /** The header's kid (default the issuer's key id). */
  kid?: string;
  /** An unsecured token: alg "none", no signature. */
  unsigned?: boolean;
  /** Claims to leave out of the token. */
  omit?: string[];
}

export interface RecordedIssuerRequest {
  method: string;
  /** Path and query. */
  url: string;
  authorization?: string;
}

export interface OidcIssuerStandIn {
  /** The issuer (`iss`), what CI_OIDC_ISSUERS lists: http://127.0.0.1:<port>. */
  url: string;
  /** Where its discovery document says its keys are. */
  jwksUrl: string;
  /** Its signing key's id. */
  kid: string;
  /** What a job with `id-token: write` has as ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN. */
  tokenRequest: { url: string; token: string };
  /** The job the token request endpoint mints for (its claims, before the audience asked for). */
  job: Partial<GithubClaims>;
  requests: RecordedIssuerRequest[];
  /** GitHub's claims for a push to acme/app's main branch, with `claims` over them; sub follows repository/ref/event unless given. */
  claims(claims?: Partial<GithubClaims>): GithubClaims;
  /** An ID token of this issuer; `claims` as for claims(). */
  mint(claims?: Partial<GithubClaims>, options?: MintOptions): Promise<string>;
  /** GitLab's claims for a job of acme/platform/app on main (the issuer then stands in for a GitLab instance); sub follows project_path/ref unless given. */
  gitlabClaims(claims?: Partial<GitlabClaims>): GitlabClaims;
  /** An ID token with GitLab's claims, as a job's `id_tokens` gets it. */
  mintGitlab(claims?: Partial<GitlabClaims>, options?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

/** A key pair of another party: what a forger signs with. */
export async function foreignKey(): Promise<CryptoKey> {
  return (await generateKeyPair('RS256')).privateKey;
}

const GITHUB_TOKEN_LIFETIME_SECONDS = 300;

export async function startOidcIssuer(): Promise<OidcIssuerStandIn> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomBytes(20).toString('hex').toUpperCase();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const requestToken = randomBytes(24).toString('base64url');
  const requests: RecordedIssuerRequest[] = [];
  let url = '';
  let runIds = 7_000_000_000;

  const claims = (overrides: Partial<GithubClaims> = {}): GithubClaims => {
    const now = Math.floor(Date.now() / 1000);
    const repository = overrides.repository ?? 'acme/app';
    const owner = repository.split('/')[0]!;
    const ref = overrides.ref ?? 'refs/heads/main';
    const event = overrides.event_name ?? (ref.startsWith('refs/pull/') ? 'pull_request' : 'push');
    const runId = String(runIds++);
    // GitHub's default subject: repo:<owner/repo>:pull_request for pull requests, else :ref:<ref>
    const sub = `repo:${repository}:${event === 'pull_request' ? 'pull_request' : `ref:${ref}`}`;
    return {
      jti: randomUUID(),
      sub,
      aud: `https://github.com/${owner}`,
      ref,
      sha: randomBytes(20).toString('hex'),
      repository,
      repository_owner: owner,
      repository_id: '123456789',
      run_id: runId,
      run_number: '42',
      run_attempt: '1',
      actor: 'octocat',
      workflow: 'CI',
      workflow_ref: `${repository}/.github/workflows/ci.yml@${ref}`,
      job_workflow_ref: `${repository}/.github/workflows/ci.yml@${ref}`,
      head_ref: event === 'pull_request' ? 'feature/login' : '',
      base_ref: event === 'pull_request' ? 'main' : '',
      event_name: event,
      ref_type: ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      runner_environment: 'github-hosted',
      iss: url,
      nbf: now,
      iat: now,
      exp: now + GITHUB_TOKEN_LIFETIME_SECONDS,
      ...overrides,
    };
  };

  const gitlabClaims = (overrides: Partial<GitlabClaims> = {}): GitlabClaims => {
    const now = Math.floor(Date.now() / 1000);
    const projectPath = overrides.project_path ?? 'acme/platform/app';
    const ref = overrides.ref ?? 'main';
    const refType = overrides.ref_type ?? 'branch';
    const jobId = String(runIds++);
    return {
      jti: randomUUID(),
      // GitLab's default subject
      sub: `project_path:${projectPath}:ref_type:${refType}:ref:${ref}`,
      aud: 'querytrail',
      namespace_id: '72',
      namespace_path: projectPath.split('/').slice(0, -1).join('/'),
      project_id: '4242',
      project_path: projectPath,
      user_id: '17',
      user_login: 'developer',
      user_email: 'developer@example.com',
      user_access_level: 'developer',
      pipeline_id: String(runIds++),
      pipeline_source: 'merge_request_event',
      job_id: jobId,
      ref,
      ref_type: refType,
      ref_path: `refs/${refType === 'branch' ? 'heads' : 'tags'}/${ref}`,
      ref_protected: ref === 'main' ? 'true' : 'false',
      runner_id: 1,
      runner_environment: 'gitlab-hosted',
      sha: randomBytes(20).toString('hex'),
      project_visibility: 'private',
      ci_config_ref_uri: `gitlab.example.com/${projectPath}//.gitlab-ci.yml@refs/heads/${ref}`,
      ci_config_sha: randomBytes(20).toString('hex'),
      iss: url,
      nbf: now,
      iat: now,
      exp: now + GITHUB_TOKEN_LIFETIME_SECONDS,
      ...overrides,
    };
  };

  const sign = async (claimSet: Record<string, unknown>, options: MintOptions): Promise<string> => {
    const payload = { ...claimSet };
    for (const name of options.omit ?? []) delete payload[name];
    if (options.unsigned) return new UnsecuredJWT(payload).encode();
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: options.kid ?? kid }).sign(options.key ?? privateKey);
  };
  const mint = (overrides: Partial<GithubClaims> = {}, options: MintOptions = {}) => sign(claims(overrides), options);
  const mintGitlab = (overrides: Partial<GitlabClaims> = {}, options: MintOptions = {}) => sign(gitlabClaims(overrides), options);

  const standIn: OidcIssuerStandIn = {
    url: '',
    jwksUrl: '',
    kid,
    tokenRequest: { url: '', token: requestToken },
    job: {},
    requests,
    claims,
    mint,
    gitlabClaims,
    mintGitlab,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  const server: Server = createServer((request, response) => {
    requests.push({ method: request.method ?? 'GET', url: request.url ?? '/', authorization: request.headers.authorization });
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    const target = new URL(request.url ?? '/', url);
    if (request.method !== 'GET') return answer(405, { message: 'Method not allowed' });
    switch (target.pathname) {
      case '/.well-known/openid-configuration':
        return answer(200, {
          issuer: url,
          jwks_uri: `${url}/.well-known/jwks`,
          subject_types_supported: ['public', 'pairwise'],
          response_types_supported: ['id_token'],
          claims_supported: [
            'sub',
            'aud',
            'exp',
            'iat',
            'iss',
            'jti',
            'nbf',
            'ref',
            'sha',
            'repository',
            'repository_id',
            'repository_owner',
            'run_id',
            'run_number',
            'run_attempt',
            'actor',
            'workflow',
            'workflow_ref',
            'head_ref',
            'base_ref',
            'event_name',
            'ref_type',
            'job_workflow_ref',
            'runner_environment',
          ],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid'],
        });
      case '/.well-known/jwks':
        return answer(200, { keys: [jwk] });
      case '/_apis/idtoken': {
        // the runner's endpoint: the request token as bearer (any case), the audience as a query parameter
        const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
        if (bearer !== requestToken) return answer(401, { message: 'Unauthorized: the request token is not valid for this job' });
        const audience = target.searchParams.get('audience');
        mint({ ...standIn.job, ...(audience ? { aud: audience } : {}) }).then(
          (value) => answer(200, { count: value.length, value }),
          (error: Error) => answer(500, { message: error.message }),
        );
        return;
      }
      default:
        return answer(404, { message: 'Not found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.url = url;
  standIn.jwksUrl = `${url}/.well-known/jwks`;
  // GitHub's has the shape https://pipelines.actions.githubusercontent.com/<id>/_apis/...idtoken?api-version=2.0
  standIn.tokenRequest.url = `${url}/_apis/idtoken?api-version=2.0`;
  return standIn;
}
