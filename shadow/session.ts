// The advisor's one session on a shadow database, as that database's planner role (never the
// shadow's superuser: see access.ts). Everything it sends goes through the extended
// protocol, whose Parse message holds exactly one statement: the server answers "cannot insert
// multiple commands into a prepared statement" to `SELECT 1; COPY ... TO PROGRAM ...`, so a text
// that came from the user's database can never smuggle a second statement past us.
//
// EXPLAIN (GENERIC_PLAN) is the one exception, and only half of one. A statement with $n
// placeholders cannot be executed through the extended protocol without values for them, and
// values bound there are constants to the planner (`id = $1` bound to NULL plans as "One-Time
// Filter: false", measured): a generic plan needs the placeholders unbound. So explain() first
// sends the text through the extended protocol anyway. Without placeholders that is the plan.
// With placeholders the server parses it, accepts it as one statement, and only then refuses to
// bind it; the very same text, with nothing run in between, then goes through the simple protocol.
// The session remembers which way a text went: how the server splits a text depends only on the
// text and the session's parser settings (standard_conforming_strings and the like), which are
// set once when the session starts and never by anything it explains, so a text accepted as one
// statement stays one. An analysis explains each query a dozen times; it is probed once.
import pg from 'pg';
import type { PlanNode } from '../shared/plan.js';
import { refusalReason } from './statement.js';
import { databaseErrorOf } from '../shared/database-error';

/** A statement explain() will not send: not exactly one SELECT/INSERT/UPDATE/DELETE/MERGE. */
class RefusedStatementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedStatementError';
  }
}

const extended = (text: string, values: unknown[]): pg.QueryConfig => ({ text, values, queryMode: 'extended' }) as pg.QueryConfig;

/** The server parsed the text as one statement and stopped at binding its $n placeholders. */
const isUnboundPlaceholders = (e: unknown) => {
  const refused = databaseErrorOf(e);
  return refused?.code === '08P01' && /^bind message supplies 0 parameters/.test(refused.message);
};

export class ShadowSession {
  /** Texts explain() has sent, and the protocol that planned them. */
  private readonly accepted = new Map<string, 'extended' | 'simple'>();

  private constructor(private readonly client: pg.Client) {}

  static async connect(config: pg.ClientConfig, statementTimeoutMs: number): Promise<ShadowSession> {
    const client = new pg.Client({ ...config, application_name: 'querytrail-shadow' });
    await client.connect();
    const session = new ShadowSession(client);
    try {
      // A statement that plans forever (a huge constant folded at plan time) must not hold a slot.
      await session.query(`SELECT pg_catalog.set_config('statement_timeout', $1, false)`, [String(Math.max(1, Math.round(statementTimeoutMs)))]);
    } catch (e) {
      await client.end();
      throw e;
    }
    return session;
  }

  /** One statement, extended protocol. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<T>> {
    return this.client.query<T>(extended(text, values));
  }

  /**
   * EXPLAIN (GENERIC_PLAN, FORMAT JSON) of one user statement. The first time a text is seen it
   * must run inside a transaction (the probe uses a savepoint; see knows()); refused with
   * RefusedStatementError unless the statement is exactly one SELECT, INSERT, UPDATE, DELETE or
   * MERGE (statement.ts).
   */
  async explain(sql: string): Promise<PlanNode> {
    const reason = refusalReason(sql);
    if (reason) throw new RefusedStatementError(reason);
    const text = `EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`;
    const plan = (r: pg.QueryResult) => (r.rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    const known = this.accepted.get(sql);
    if (known === 'extended') return plan(await this.query(text));
    // Only a text the server's own parser took as exactly one statement in this session gets here.
    if (known === 'simple') return plan(await this.client.query(text));
    await this.query('SAVEPOINT qt_one_statement');
    try {
      const r = await this.query(text);
      await this.query('RELEASE SAVEPOINT qt_one_statement');
      this.accepted.set(sql, 'extended');
      return plan(r);
    } catch (e) {
      await this.query('ROLLBACK TO SAVEPOINT qt_one_statement');
      await this.query('RELEASE SAVEPOINT qt_one_statement');
      if (!isUnboundPlaceholders(e)) throw e;
    }
    // The server's own parser just took exactly this text as one statement.
    this.accepted.set(sql, 'simple');
    return plan(await this.client.query(text));
  }

  /**
   * BEGIN and one statement of the advisor's own making, in one round trip (the simple protocol
   * takes both). Never a text that came from anywhere else: those go through explain() only.
   */
  async beginWith(ownStatement: string): Promise<void> {
    await this.client.query(`BEGIN; ${ownStatement}`);
  }

  /** Whether explain() has planned this text before: then it needs no transaction of its own. */
  knows(sql: string): boolean {
    return this.accepted.has(sql);
  }

  end(): Promise<void> {
    return this.client.end();
  }
}
