// Resolved principals kept in memory, so that a request costs no statement to learn who sent it.
// Every change to sessions, tokens, people and memberships is announced on the store's
// qt_auth_changed channel once its transaction commits (migration 0012's triggers), and hearing it
// forgets every entry. An entry is used only once the channel has caught up with everything
// committed before the request (server/db/channel.ts): a token revoked, or a session ended, on any
// server of a shared PostgreSQL is refused by every server from the next request on, exactly as if
// each request were looked up. When that cannot be known (the listening connection is lost),
// nothing kept is used.
import type { Store } from '../db/store';
import type { Channel } from '../db/channel';
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
  /** The principal for this key if it is kept, still good, and no change committed before this call has ended it. */
  get(key: string): Promise<Principal | undefined>;
  /**
   * Resolves through `read` and keeps the answer until `validUntilMs` (epoch ms, from the store's own
   * clock) or KEEP_MS, unless a change was announced while it was read.
   */
  remember(key: string, read: () => Promise<{ principal: Principal; validUntilMs: number | null } | undefined>): Promise<Principal | undefined>;
}

export async function openPrincipalCache(store: Store): Promise<PrincipalCache> {
  const entries = new Map<string, Entry>();
  // bumped on every announcement: a read that began before one must not be kept after it
  let generation = 0;
  const forget = () => {
    generation += 1;
    entries.clear();
  };
  const channel: Channel = await store.listen('qt_auth_changed', forget);

  const current = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (Date.now() < entry.until) return entry.principal;
    entries.delete(key);
    return undefined;
  };

  return {
    async get(key) {
      if (!current(key)) return undefined;
      try {
        await channel.caughtUp();
      } catch {
        forget();
        return undefined;
      }
      // asked again: what the channel brought meanwhile may have ended it
      return current(key);
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
