// A few sessions to one user's database, handed out one unit of work at a time. Our own pool rather
// than pg.Pool because opening a session may take two attempts (see openSession), and a session that
// failed in any way the server did not report itself is closed, never handed out again.
import pg from 'pg';
import type { PostgresTarget } from '../shared/connection-string';
import { databaseErrorOf } from '../shared/database-error';
import { tag } from './marker';
import { clientConfig, PINNED_SETTINGS, type SessionLimits } from './session-config';

// A login event trigger we could not switch off (we are not a superuser, or the server predates
// event_triggers) ran as us while the session opened, and may have changed its defaults
// (set_config(..., false) of default_transaction_read_only, search_path, role). Pinning them again
// before the session serves anything undoes that; every unit of work still opens READ ONLY and checks.
const REPIN = tag(
  `SELECT ${[...Object.entries(PINNED_SETTINGS), ['role', 'none']].map(([name, value]) => `pg_catalog.set_config('${name}', '${value}', false)`).join(', ')}`,
);

/** The server refused event_triggers=off: not a superuser (42501), or PostgreSQL 16 or older (42704). */
function refusedEventTriggers(error: unknown): boolean {
  const refused = databaseErrorOf(error);
  return (refused?.code === '42501' || refused?.code === '42704') && refused.message.includes('event_triggers');
}

interface Waiter {
  resolve(client: pg.Client): void;
  reject(error: unknown): void;
}

export class SessionPool {
  private readonly idle: pg.Client[] = [];
  private readonly all = new Set<pg.Client>();
  private readonly broken = new WeakSet<pg.Client>();
  private readonly waiters: Waiter[] = [];
  /** Sessions open or being opened. */
  private size = 0;
  private closed = false;
  /** Whether this server takes event_triggers=off from us; undefined until the first session tells. */
  private eventTriggersOff: boolean | undefined;
  private firstSession: Promise<unknown> | undefined;

  constructor(
    private readonly target: PostgresTarget,
    private readonly limits: SessionLimits,
    private readonly applicationName: string,
  ) {}

  async acquire(): Promise<pg.Client> {
    if (this.closed) throw new Error('The gateway is closed');
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.size < this.limits.poolSize) return this.grow();
    return new Promise<pg.Client>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Gives a session back; a broken one (or any, once closed) is closed instead. */
  release(client: pg.Client, broken: boolean): void {
    if (broken || this.closed || this.broken.has(client)) {
      this.destroy(client);
      const waiter = this.waiters.shift();
      if (waiter) this.grow().then(waiter.resolve, waiter.reject);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(client);
    else this.idle.push(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('The gateway is closed'));
    await Promise.all(this.idle.splice(0).map((client) => this.destroy(client)));
  }

  private async grow(): Promise<pg.Client> {
    this.size++;
    let client: pg.Client;
    try {
      // The first session decides whether the others send event_triggers=off; they wait for it
      // rather than each paying for a refused attempt.
      if (this.eventTriggersOff === undefined && this.firstSession) await this.firstSession.catch(() => undefined);
      const opening = this.openSession();
      this.firstSession ??= opening;
      client = await opening;
    } catch (error) {
      this.size--;
      throw error;
    }
    if (this.closed) {
      await this.destroy(client);
      throw new Error('The gateway is closed');
    }
    return client;
  }

  private async openSession(): Promise<pg.Client> {
    if (this.eventTriggersOff !== false) {
      try {
        const client = await this.connect(true);
        this.eventTriggersOff = true;
        return client;
      } catch (error) {
        if (!refusedEventTriggers(error)) throw error;
        this.eventTriggersOff = false;
      }
    }
    return this.connect(false);
  }

  private async connect(disableEventTriggers: boolean): Promise<pg.Client> {
    const client = new pg.Client(clientConfig(this.target, this.limits, this.applicationName, disableEventTriggers));
    // A session dropped by the server emits here; without a listener it would crash the process.
    client.on('error', () => this.broken.add(client));
    try {
      await client.connect();
      await client.query(REPIN);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.all.add(client);
    return client;
  }

  private async destroy(client: pg.Client): Promise<void> {
    if (!this.all.delete(client)) return;
    this.size--;
    await client.end().catch(() => undefined);
  }
}
