// A LISTEN channel of the store, with a way to know that every notification committed before a
// moment has been handled. Memory kept beside a shared store (resolved principals) may be used only
// when that holds: a change committed on another server, and acknowledged to whoever made it, must
// be heard here before a request that follows it is answered from memory.
//
// PostgreSQL: one connection of its own LISTENs. A notification is queued when its transaction
// commits and the committing backend signals every listener before answering its client; a
// listener sends the notifications it has to its client before the ReadyForQuery of the statement
// it is running. So when a statement started on the listening connection after a change was
// acknowledged completes, the change's notification has arrived before it (caughtUp). Requests
// share those statements: one runs at a time, and a caller waits for the next one to start after it
// asked, so a busy server sends one per round trip whatever its request rate.
// PGlite: the store runs in this process and notifies at commit, before the statement resolves;
// every notification is heard by the time anyone could ask.
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

export interface Channel {
  /**
   * Resolves once every notification committed before this call has been handled; rejects when that
   * cannot be known (the listening connection is lost; it is opened again in the background, and
   * `onNotify` is called once it is, since notifications may have been missed meanwhile).
   */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL channel names are identifiers; ours are fixed lower-case words. */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

export async function listenPglite(pglite: PGlite, channel: string, onNotify: () => void): Promise<Channel> {
  const unlisten = await pglite.listen(channel, onNotify);
  return { caughtUp: () => Promise.resolve(), close: () => unlisten() };
}

/** Never retried more often than this when the listening connection cannot be opened. */
const RECONNECT_MS = 1_000;

export async function listenPostgres(databaseUrl: string, channel: string, onNotify: () => void): Promise<Channel> {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  let client: pg.Client | undefined;
  let closed = false;
  let lastAttempt = 0;
  let opening: Promise<void> | undefined;

  const open = async () => {
    lastAttempt = Date.now();
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'querytrail-listen' });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    // a lost connection may have missed notifications: forget it and everything heard through it
    const lost = () => {
      if (client === next) client = undefined;
      onNotify();
    };
    next.on('error', lost);
    next.on('end', lost);
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // whatever was kept before this connection listened may be stale
    onNotify();
  };

  const reopen = () => {
    if (closed || opening || Date.now() - lastAttempt < RECONNECT_MS) return;
    opening = open()
      .catch(() => undefined)
      .finally(() => {
        opening = undefined;
      });
  };

  // One statement in flight at a time; callers that arrive while it runs share the next one.
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const roundTrip = (): Promise<void> => {
    const current = client;
    if (!current) {
      reopen();
      return Promise.reject(new Error('The store channel is not listening'));
    }
    const run = current.query('SELECT 1').then(() => {
      if (client !== current) throw new Error('The store channel was lost');
    });
    // what the next callers wait on: it never rejects, their own statement tells them
    const settled: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    );
    inFlight = settled;
    void settled.then(() => {
      if (inFlight === settled) inFlight = undefined;
    });
    return run;
  };

  await open();
  return {
    caughtUp() {
      if (!inFlight) return roundTrip();
      queued ??= inFlight.then(() => {
        queued = undefined;
        return roundTrip();
      });
      return queued;
    },
    async close() {
      closed = true;
      await opening;
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
