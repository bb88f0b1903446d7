// Tokenless CI: a CI job's OpenID Connect ID token (GitHub Actions' `id-token: write`) verified
// against its issuer's keys. STUB: refuses every ID token until implemented.
import type { AuthConfig } from '../config';
import { CredentialsRefused, type Principal } from './principal';

export const looksLikeJwt = (value: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);

export async function verifyCiIdToken(_auth: AuthConfig, _token: string): Promise<Extract<Principal, { kind: 'ci-oidc' }>> {
  throw new CredentialsRefused('CI ID tokens are not accepted');
}
