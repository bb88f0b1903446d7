// A gateway to one user's database. Every unit of work (one statement, or a few that share a
// snapshot) runs in its own transaction:
//   BEGIN ISOLATION LEVEL ... READ ONLY
//   SELECT <pin search_path, row_security, timeouts with set_config(..., true)>, <check the result>
//   ... the unit's statements, each ending with the marker ...
//   ROLLBACK
// A read-only transaction cannot be made read-write once its first statement ran, and whatever code
// the database's owner gets to run inside it (a set_config(..., false) included) is undone by the
// ROLLBACK before the session serves the next unit.
import pg from 'pg';
import { parseConnectionString } from '../shared/connection-string';
import { classifyError, GatewayError } from './errors';
import { redactConnectionString } from './redact';
import { tag } from './marker';
import { SessionPool } from './pool';
import { APPLICATION_NAME, DEFAULT_LIMITS, PINNED_SETTINGS, type SessionLimits } from './session-config';

export interface ReadOptions {
  /**
   * Every value as the text the type's output function produced, untouched by the driver's parsers
   * (no cast is involved: this is how PostgreSQL sends any value in text format).
   */
  raw?: boolean;
  /** Rows as arrays in column order instead of objects keyed by column name. */
  arrays?: boolean;
}

export type Attempt<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface ReadOnlyTransaction {
  /** One statement; statements of a transaction run one after the other. */
  rows<T>(sql: string, params?: unknown[], options?: ReadOptions): Promise<T[]>;
  /**
   * Runs `work` under a savepoint that is rolled back afterwards, with its own statement timeout: a
   * statement that fails (a privilege, a lock, the timeout) ends the attempt, not the transaction.
   */
  attempt<R>(work: () => Promise<R>, options?: { statementTimeoutMs?: number }): Promise<Attempt<R>>;
}

export interface TransactionOptions {
  /** REPEATABLE READ, so that every statement sees the same snapshot. Default READ COMMITTED. */
  consistentSnapshot?: boolean;
  /** More settings for this transaction only (DateStyle, extra_float_digits...), set as SET LOCAL does. */
  settings?: Record<string, string>;
}

export interface GatewayOptions {
  /** Overrides of the connect, statement and lock timeouts and of the pool size. */
  limits?: Partial<SessionLimits>;
  /** Shown in pg_stat_activity. Default querytrail-analyzer. */
  applicationName?: string;
}

export interface Gateway {
  /** One statement in a transaction of its own. */
  rows<T>(sql: string, params?: unknown[], options?: ReadOptions): Promise<T[]>;
  /** Several statements in one read-only transaction, always rolled back. */
  transaction<R>(work: (tx: ReadOnlyTransaction) => Promise<R>, options?: TransactionOptions): Promise<R>;
  /** Closes every session; waits for none of the units still running. */
  close(): Promise<void>;
}

// A parser that returns what the server sent, for every type.
const RAW_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** An error the server reported: the session is still in step with us (a ROLLBACK will work). */
function isServerError(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

function redacted(error: GatewayError, connectionString: string): GatewayError {
  const message = redactConnectionString(error.message, connectionString);
  return message === error.message ? error : new GatewayError(error.code, message);
}

/** Our own statements, several in one round trip (simple protocol: no parameters, our text only). */
async function command(client: pg.Client, statements: string[]): Promise<pg.QueryResult[]> {
  const result = (await client.query(statements.map(tag).join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(result) ? result : [result];
}

function beginStatements(limits: SessionLimits, options: TransactionOptions): string[] {
  const settings: Record<string, string> = {
    search_path: PINNED_SETTINGS.search_path,
    row_security: PINNED_SETTINGS.row_security,
    statement_timeout: String(limits.statementTimeoutMs),
    lock_timeout: String(limits.lockTimeoutMs),
    idle_in_transaction_session_timeout: String(limits.statementTimeoutMs),
    ...options.settings,
  };
  const calls = Object.entries(settings).map(([name, value]) => `pg_catalog.set_config(${pg.escapeLiteral(name)}, ${pg.escapeLiteral(value)}, true)`);
  return [
    `BEGIN ISOLATION LEVEL ${options.consistentSnapshot ? 'REPEATABLE READ' : 'READ COMMITTED'} READ ONLY`,
    `SELECT ${calls.join(', ')},
       pg_catalog.current_setting('transaction_read_only') AS read_only,
       pg_catalog.current_setting('default_transaction_read_only') AS default_read_only,
       pg_catalog.current_setting('search_path') AS search_path,
       pg_catalog.current_setting('row_security') AS row_security`,
  ];
}

interface Check {
  read_only: string;
  default_read_only: string;
  search_path: string;
  row_security: string;
}

function checkSession(row: Check | undefined): void {
  if (row?.read_only !== 'on' || row.default_read_only !== 'on') {
    throw new GatewayError(
      'not_read_only',
      'The session could not be made read only (transaction_read_only or default_transaction_read_only is off), so querytrail will not use it.',
    );
  }
  if (row.search_path !== PINNED_SETTINGS.search_path || row.row_security !== PINNED_SETTINGS.row_security) {
    throw new GatewayError(
      'connection_failed',
      `The session's search_path and row_security could not be pinned (got "${row.search_path}", "${row.row_security}").`,
    );
  }
}

/**
 * Opens a gateway. Throws GatewayError invalid_connection_string when the string is not accepted;
 * nothing is read or connected before that check.
 */
export function openGateway(connectionString: string, options: GatewayOptions = {}): Gateway {
  const parsed = parseConnectionString(connectionString);
  if (!parsed.ok) throw new GatewayError('invalid_connection_string', parsed.message);
  const target = parsed.value;
  const limits: SessionLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const pool = new SessionPool(target, limits, options.applicationName ?? APPLICATION_NAME);

  async function unit<R>(work: (tx: ReadOnlyTransaction) => Promise<R>, transactionOptions: TransactionOptions): Promise<R> {
    let client: pg.Client;
    try {
      client = await pool.acquire();
    } catch (error) {
      throw redacted(classifyError(error), connectionString);
    }
    // Trusted once the checks passed; in step with the server until a failure it did not report.
    let trusted = false;
    let inStep = true;
    let done = false;
    let savepoints = 0;
    const run = async <T>(sending: () => Promise<T>): Promise<T> => {
      if (done) throw new Error('This transaction has ended');
      try {
        return await sending();
      } catch (error) {
        if (!isServerError(error)) inStep = false;
        throw error;
      }
    };
    const tx: ReadOnlyTransaction = {
      rows: async <T>(sql: string, params: unknown[] = [], readOptions: ReadOptions = {}) => {
        const config = {
          text: tag(sql),
          values: params,
          // One parsed statement per message: a text can never carry a second statement.
          queryMode: 'extended',
          ...(readOptions.raw ? { types: RAW_TYPES } : {}),
          ...(readOptions.arrays ? { rowMode: 'array' } : {}),
        } as pg.QueryConfig;
        const result = await run(() => client.query(config));
        return result.rows as T[];
      },
      attempt: async <A>(attemptWork: () => Promise<A>, attemptOptions: { statementTimeoutMs?: number } = {}) => {
        const name = `qt_attempt_${++savepoints}`;
        const timeout = attemptOptions.statementTimeoutMs;
        await run(() =>
          command(client, [
            `SAVEPOINT ${name}`,
            ...(timeout ? [`SELECT pg_catalog.set_config('statement_timeout', ${pg.escapeLiteral(String(Math.max(1, Math.round(timeout))))}, true)`] : []),
          ]),
        );
        let outcome: Attempt<A>;
        try {
          outcome = { ok: true, value: await attemptWork() };
        } catch (error) {
          if (!inStep) throw error;
          outcome = { ok: false, error };
        }
        // Rolled back either way: a read has nothing to keep, and the timeout goes with it.
        await run(() => command(client, [`ROLLBACK TO SAVEPOINT ${name}`, `RELEASE SAVEPOINT ${name}`]));
        return outcome;
      },
    };

    try {
      let check: Check | undefined;
      try {
        const results = await run(() => command(client, beginStatements(limits, transactionOptions)));
        check = results.at(-1)?.rows[0] as Check | undefined;
      } catch (error) {
        throw redacted(classifyError(error), connectionString);
      }
      checkSession(check);
      trusted = true;
      return await work(tx);
    } finally {
      if (inStep) {
        try {
          await command(client, ['ROLLBACK']);
        } catch {
          inStep = false;
        }
      }
      done = true;
      pool.release(client, !(trusted && inStep));
    }
  }

  return {
    rows: <T>(sql: string, params?: unknown[], readOptions?: ReadOptions) => unit((tx) => tx.rows<T>(sql, params, readOptions), {}),
    transaction: (work, transactionOptions = {}) => unit(work, transactionOptions),
    close: () => pool.close(),
  };
}
