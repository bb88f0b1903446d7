// What every tRPC procedure is given: the services, who is asking and what the response may carry.
// Its own module, so the parts a procedure calls (the audit log, ...) can name it without importing
// the router's machinery.
import type { EnvRole } from '../shared/auth';
import type { Principal } from './auth/principal';
import type { Services } from './services-type';

/** What a procedure may say about its HTTP response beyond its body (REST status, headers). */
export interface ResponseHints {
  status?: number;
  headers: Record<string, string>;
}

export interface Context extends Services {
  response: ResponseHints;
  /** Who is asking (server/auth/authenticate.ts); undefined when the request carries no credentials. */
  principal: Principal | undefined;
  /** The client's address, for the audit log. */
  sourceAddress?: string;
  /** The environments the caller may see at `role` or above; null means every one (admins). */
  visibleEnvironments(role?: EnvRole): string[] | null;
}
