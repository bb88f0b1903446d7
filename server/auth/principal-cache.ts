// Resolved principals kept in memory, for the PGlite store only. PGlite runs the store on the
// server's own thread, so the statement that resolves a credential competes with the request it
// serves; and PGlite is held by this one process, so every change to sessions, tokens, people and
// memberships is made here and announced here (migration 0012's triggers NOTIFY qt_auth_changed).
// Hearing it forgets every entry: a revoked token or an ended session stops working with the
// statement that ended it, exactly as without the cache. On PostgreSQL other servers share the
// store and nothing is kept: every request is resolved by its own statement.
import type { Store } from '../db/store';
import type { Principal } from './principal';

/** Re-read at least this often, so "last used" and a session's idle clock keep moving. */
const KEEP_MS = 30_000;
/** Enough for every credential of a company; past it the cache starts over rather than grow. */
const MAX_ENTRIES = 10_000;

interface Entry {
  principal: Principal;
  /** Date.now() past which the entry is not used: KEEP_MS after reading, or sooner if the credential expires. */
  until: number;
}

export interface PrincipalCache {
  /** The principal for this key if it is still good. */
  get(key: string): Principal | undefined;
  /**
   * Resolves through `read` and keeps the answer until `validUntilMs` (epoch ms, from the store's own
   * clock) or KEEP_MS, unless a change was announced while it was read.
   */
  remember(key: string, read: () => Promise<{ principal: Principal; validUntilMs: number | null } | undefined>): Promise<Principal | undefined>;
}

export async function openPrincipalCache(store: Store): Promise<PrincipalCache | undefined> {
  if (!('pglite' in store.connection)) return undefined;
  const entries = new Map<string, Entry>();
  // bumped on every announcement: a read that began before one must not be kept after it
  let generation = 0;
  await store.connection.pglite.listen('qt_auth_changed', () => {
    generation += 1;
    entries.clear();
  });
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (Date.now() < entry.until) return entry.principal;
      entries.delete(key);
      return undefined;
    },
    async remember(key, read) {
      const before = generation;
      const answer = await read();
      if (!answer) return undefined;
      const until = Math.min(Date.now() + KEEP_MS, answer.validUntilMs ?? Infinity);
      if (generation === before) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(key, { principal: answer.principal, until });
      }
      return answer.principal;
    },
  };
}
