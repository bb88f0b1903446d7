// The shadow planner against a database whose owner plants code everywhere the planner, the
// schema rebuild, the endpoint rows and the statistics restore could run it: a CHECK, an
// IMMUTABLE function in an index expression and in a query, a STABLE one the planner evaluates
// to estimate, a default, a trigger, an operator, a domain CHECK, a procedure. Each runs
// `COPY ... TO PROGRAM` (after trying ALTER ROLE ... SUPERUSER) into a directory anyone can
// write: a file there means code ran with a superuser's rights. The payload is dormant in its own
// database (the fixture builds indexes and loads rows there) and live anywhere else.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { SHADOW_OS_USER } from './server.js';
import { analyzeQueries, startShadowServer, ShadowBusyError, ShadowSlots, type AnalysisResult, type ShadowServer } from '../advisor/index.js';
import { readSnapshot } from '../snapshot/read.js';
import type { Snapshot } from '../snapshot/types.js';
import { createShadowDatabase } from './database.js';
import type { ShadowDatabase } from './types.js';
import { dropShadowAccess, plannerRoleOf } from './access.js';
import { ShadowSession } from './session.js';
import { loadParser } from '../shared/sql-fingerprint.js';

let production: PostgresServer;
let productionUrl: string;
let shadow: ShadowServer;
let sentinels: string;
let result: AnalysisResult;

const fixture = (dir: string) => `
  CREATE FUNCTION public.pwn(tag text) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    BEGIN EXECUTE format('ALTER ROLE %I SUPERUSER', session_user); EXCEPTION WHEN others THEN NULL; END;
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'cat > ${dir}/' || tag || '-' || current_database());
    RETURN true;
  END $$;
  CREATE FUNCTION public.payload(tag text) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    IF current_database() = 'hostile' THEN RETURN true; END IF;
    RETURN public.pwn(tag);
  END $$;
  CREATE FUNCTION public.check_fn(id int) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN RETURN public.payload('check'); END $$;
  CREATE FUNCTION public.norm(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$ BEGIN PERFORM public.payload('immutable'); RETURN lower(t); END $$;
  CREATE FUNCTION public.stable_fn(t text) RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN PERFORM public.payload('stable'); RETURN t; END $$;
  CREATE FUNCTION public.next_score() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM public.payload('default'); RETURN 1; END $$;
  CREATE FUNCTION public.dom_ok(v int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN public.payload('domain'); END $$;
  CREATE FUNCTION public.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM public.payload('trigger'); RETURN NEW; END $$;
  CREATE FUNCTION public.op_fn(a int, b int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN public.payload('operator'); END $$;
  CREATE FUNCTION public.plus_one(a int DEFAULT (public.payload('param-default'))::int) RETURNS int LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT a + 1; END;
  CREATE FUNCTION public.pairs(OUT a int, OUT b text) RETURNS SETOF record LANGUAGE sql STABLE ROWS 7 AS $$ SELECT 1, 'x' $$;
  CREATE FUNCTION public.cat_step(acc text, v text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.payload('aggregate'); RETURN acc || v; END $$;
  CREATE AGGREGATE public.concat_all(text) (SFUNC = public.cat_step, STYPE = text, INITCOND = '');
  CREATE PROCEDURE public.proc(a int) LANGUAGE plpgsql AS $$ BEGIN PERFORM public.payload('procedure'); END $$;
  CREATE OPERATOR public.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = public.op_fn);
  CREATE EXTENSION pg_trgm;
  CREATE EXTENSION dblink;
  CREATE DOMAIN public.rank AS int NOT NULL;
  CREATE TABLE account (id int PRIMARY KEY, email text NOT NULL, created timestamptz NOT NULL, score int, rank public.rank);
  INSERT INTO account SELECT g, 'user' || g || '@example.com', now() - g * interval '1 minute', g % 1000, g % 50 FROM generate_series(1, 50000) g;
  CREATE INDEX account_norm ON account (public.norm(email));
  CREATE INDEX account_rank ON account (rank);
  CREATE INDEX account_email_trgm ON account USING gin (email gin_trgm_ops);
  ALTER DOMAIN public.rank ADD CONSTRAINT rank_ok CHECK (public.dom_ok(VALUE));
  ALTER TABLE account ALTER COLUMN score SET DEFAULT public.next_score();
  ALTER TABLE account ADD CONSTRAINT account_check CHECK (public.check_fn(id));
  CREATE TRIGGER account_trg BEFORE INSERT OR UPDATE ON account FOR EACH ROW EXECUTE FUNCTION public.trg();
  CREATE RULE account_rule AS ON DELETE TO account DO ALSO SELECT public.payload('rule');
  CREATE VIEW account_view AS SELECT id, public.norm(email) AS n FROM account;
  ANALYZE;`;

const QUERIES = {
  score: `SELECT id FROM account WHERE score = $1`,
  normIndex: `SELECT id FROM account WHERE public.norm(email) = $1`,
  normFolded: `SELECT id FROM account WHERE public.norm(email) = public.norm('User1@Example.com')`,
  stable: `SELECT id FROM account WHERE email = public.stable_fn('a')`,
  operator: `SELECT id FROM account WHERE id === 5`,
  view: `SELECT * FROM account_view WHERE id = $1`,
  setReturning: `SELECT * FROM public.pairs()`,
  paramDefault: `SELECT * FROM account WHERE id = public.plus_one()`,
  insert: `INSERT INTO account (id, email, created) VALUES ($1, $2, now())`,
  aggregate: `SELECT public.concat_all(email) FROM account WHERE id < $1`,
  multi: `SELECT 1; COPY (SELECT 1) TO PROGRAM 'cat > SENTINELS/multi'`,
  copy: `COPY (SELECT 1) TO PROGRAM 'cat > SENTINELS/copy'`,
  ddl: `ALTER ROLE CURRENT_USER SUPERUSER`,
  createTable: `CREATE TABLE pwned (a int)`,
  set: `SET standard_conforming_strings = off`,
  call: `CALL public.proc(1)`,
  doBlock: `DO $$BEGIN PERFORM public.pwn('do'); END$$`,
  explain: `EXPLAIN SELECT 1`,
};

beforeAll(async () => {
  sentinels = mkdtempSync(path.join(tmpdir(), 'qt-sentinels-'));
  // Writable by the shadow's OS user too: a missing file must mean "never ran", not "could not write".
  chmodSync(sentinels, 0o777);
  production = await startPostgres({ statStatements: false });
  productionUrl = await production.createDatabase('hostile');
  await production.query(fixture(sentinels), [], 'hostile');
  // The payload works on this machine when a superuser runs it: the test can fail.
  await production.query(`SELECT public.pwn('control')`, [], 'hostile');
  expect(existsSync(path.join(sentinels, 'control-hostile'))).toBe(true);
  rmSync(path.join(sentinels, 'control-hostile'));
  shadow = await startShadowServer();
  await loadParser();
  const queries = Object.entries(QUERIES).map(([hash, query]) => ({ hash, query: query.replaceAll('SENTINELS', sentinels), calls: 10 }));
  result = await analyzeQueries({ connectionString: productionUrl, queries, options: { shadow } });
}, 180_000);

afterAll(async () => {
  await shadow?.stop();
  await production?.stop();
  if (sentinels) rmSync(sentinels, { recursive: true, force: true });
});

const analysis = (hash: keyof typeof QUERIES) => result.queries.find((q) => q.hash === hash)!;

describe('analyzing a hostile database', () => {
  it('refuses every text that is not one plannable statement, each with its reason', () => {
    const only = 'only one SELECT, INSERT, UPDATE, DELETE or MERGE statement (WITH allowed) is planned';
    expect(analysis('multi').error).toBe(`refused: the text holds 2 statements; ${only}`);
    expect(analysis('copy').error).toBe(`refused: COPY is not planned; ${only}`);
    expect(analysis('ddl').error).toBe(`refused: ALTER ROLE is not planned; ${only}`);
    expect(analysis('createTable').error).toBe(`refused: CREATE TABLE is not planned; ${only}`);
    expect(analysis('set').error).toBe(`refused: SET is not planned; ${only}`);
    expect(analysis('call').error).toBe(`refused: CALL is not planned; ${only}`);
    expect(analysis('doBlock').error).toBe(`refused: DO is not planned; ${only}`);
    expect(analysis('explain').error).toBe(`refused: EXPLAIN is not planned; ${only}`);
    for (const hash of ['multi', 'copy', 'ddl', 'createTable', 'set', 'call', 'doBlock', 'explain'] as const) {
      expect(analysis(hash)).toMatchObject({ plan: null, cost: null, recommendations: [] });
    }
  });

  it('still plans the other queries and recommends indexes for them', () => {
    const [rec] = analysis('score').recommendations;
    expect(rec).toMatchObject({ table: 'public.account', columns: ['score'] });
    // The index on an expression of a user function survives with the function's signature.
    expect(analysis('normIndex').planShape).toContain('using account_norm');
    for (const hash of ['view', 'setReturning', 'paramDefault', 'insert', 'aggregate', 'stable', 'normFolded'] as const) {
      expect(analysis(hash).error, hash).toBeNull();
      expect(analysis(hash).plan, hash).not.toBeNull();
    }
    // A user operator is not copied: the query says so instead of running it.
    expect(analysis('operator').error).toMatch(/operator does not exist/);
  });

  it('ran none of the planted code: no file appeared on this machine', () => {
    expect(readdirSync(sentinels)).toEqual([]);
  });

  it('left the shadow with its one bootstrap superuser and no role or database of the analysis', async () => {
    const admin = new pg.Client(shadow.connection());
    await admin.connect();
    try {
      const roles = await admin.query(`SELECT rolname FROM pg_roles WHERE rolsuper ORDER BY 1`);
      expect(roles.rows.map((r) => r.rolname)).toEqual(['postgres']);
      expect((await admin.query(`SELECT rolname FROM pg_roles WHERE rolname LIKE 'qt\\_%' ORDER BY 1`)).rows).toEqual([{ rolname: 'qt_planners' }]);
      expect((await admin.query(`SELECT 1 FROM pg_database WHERE datname LIKE 'shadow_%'`)).rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

describe('the shadow server process', () => {
  // PostgreSQL only starts on a data directory owned by the user it runs as.
  it.runIf(process.getuid?.() === 0)('runs as its own system user when we are root, never as postgres', () => {
    const uid = (user: string) => Number(execFileSync('id', ['-u', user]).toString().trim());
    expect(statSync(shadow.dataDir).uid).toBe(uid(SHADOW_OS_USER));
    expect(statSync(shadow.dataDir).uid).not.toBe(uid('postgres'));
    expect(execFileSync('getent', ['passwd', SHADOW_OS_USER]).toString()).toMatch(/:\/usr\/sbin\/nologin\n$/);
  });
});

/** Functions of the fixture's schema, not those pg_trgm put there. */
const USER_FUNCTION = `p.pronamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`;

describe('the rebuilt schema', () => {
  let snapshot: Snapshot;
  let db: ShadowDatabase;
  const name = 'shadow_inspected';
  const asSuperuser = async <T extends pg.QueryResultRow>(sql: string) => {
    const c = new pg.Client(shadow.connection(name));
    await c.connect();
    try {
      return (await c.query<T>(sql)).rows;
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    snapshot = await readSnapshot(productionUrl);
    db = await createShadowDatabase(shadow, snapshot, name);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await dropShadowAccess(shadow, name);
  });

  it('keeps tables, keys, NOT NULL, indexes, views and every function signature', async () => {
    const cols = await asSuperuser(`SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'public.account'::regclass AND attnum > 0 ORDER BY attnum`);
    expect(cols).toEqual([
      { attname: 'id', attnotnull: true },
      { attname: 'email', attnotnull: true },
      { attname: 'created', attnotnull: true },
      { attname: 'score', attnotnull: false },
      { attname: 'rank', attnotnull: false },
    ]);
    const indexes = await asSuperuser(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'public.account'::regclass ORDER BY 1`);
    expect(indexes.map((i) => i.name)).toEqual(['account_email_trgm', 'account_norm', 'account_pkey', 'account_rank']);
    const fns = await asSuperuser<{ sig: string; volatile: string; strict: boolean; kind: string; rows: number }>(
      `SELECT p.oid::regprocedure::text AS sig, provolatile AS volatile, proisstrict AS strict, prokind AS kind, prorows AS rows
       FROM pg_proc p WHERE ${USER_FUNCTION} ORDER BY 1`,
    );
    expect(fns.map((f) => f.sig)).toEqual([
      'cat_step(text,text)',
      'check_fn(integer)',
      'concat_all(text)',
      'dom_ok(integer)',
      'next_score()',
      'norm(text)',
      'op_fn(integer,integer)',
      'pairs()',
      'payload(text)',
      'plus_one(integer)',
      'proc(integer)',
      'pwn(text)',
      'stable_fn(text)',
      'trg()',
    ]);
    expect(fns.find((f) => f.sig === 'norm(text)')).toMatchObject({ volatile: 'i', strict: true });
    expect(fns.find((f) => f.sig === 'stable_fn(text)')).toMatchObject({ volatile: 's' });
    expect(fns.find((f) => f.sig === 'pairs()')).toMatchObject({ rows: 7 });
    expect(fns.find((f) => f.sig === 'proc(integer)')).toMatchObject({ kind: 'p' });
    expect(fns.find((f) => f.sig === 'concat_all(text)')).toMatchObject({ kind: 'a' });
    expect((await asSuperuser(`SELECT 1 FROM pg_views WHERE viewname = 'account_view'`)).length).toBe(1);
  });

  it('holds no code: inert bodies, no CHECK, default, trigger, rule, cast, operator or event trigger', async () => {
    const bodies = await asSuperuser<{ lang: string; src: string }>(
      `SELECT l.lanname AS lang, p.prosrc AS src FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE ${USER_FUNCTION} AND prokind <> 'a'`,
    );
    for (const b of bodies) {
      expect(b.lang).toBe('plpgsql');
      expect(['BEGIN RETURN NULL; END', 'BEGIN RETURN; END', 'BEGIN END']).toContain(b.src);
    }
    const count = async (sql: string) => (await asSuperuser(sql)).length;
    // information_schema's own domains (cardinal_number, ...) carry built-in CHECKs
    expect(
      await count(
        `SELECT 1 FROM pg_constraint k LEFT JOIN pg_type t ON t.oid = k.contypid WHERE k.contype = 'c' AND coalesce(t.typnamespace <> 'information_schema'::regnamespace, true)`,
      ),
    ).toBe(0);
    expect(await count(`SELECT 1 FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE a.attgenerated = ''`)).toBe(0);
    expect(
      await count(
        `SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND pg_get_function_arguments(p.oid) LIKE '%DEFAULT%' AND pg_get_function_arguments(p.oid) NOT LIKE '%DEFAULT NULL%'`,
      ),
    ).toBe(0);
    expect(await count(`SELECT 1 FROM pg_trigger WHERE NOT tgisinternal`)).toBe(0);
    expect(
      await count(
        `SELECT 1 FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE r.rulename <> '_RETURN' AND c.relnamespace <> 'pg_catalog'::regnamespace`,
      ),
    ).toBe(0);
    const notFromExtension = (catalog: string) =>
      `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = x.oid AND d.deptype = 'e')`;
    expect(await count(`SELECT 1 FROM pg_cast x WHERE oid >= 16384 AND ${notFromExtension('pg_cast')}`)).toBe(0);
    expect(await count(`SELECT 1 FROM pg_operator x WHERE oid >= 16384 AND ${notFromExtension('pg_operator')}`)).toBe(0);
    expect(await count(`SELECT 1 FROM pg_event_trigger`)).toBe(0);
  });

  it('recreates allow-listed extensions only, and says which were left out', async () => {
    expect((await asSuperuser(`SELECT extname FROM pg_extension ORDER BY 1`)).map((e) => e.extname)).toEqual(['pg_trgm', 'plpgsql']);
    expect(db.notCopied).toEqual([expect.stringMatching(/^not copied \(extension dblink\): extension not on the shadow allow-list/)]);
  });

  it('belongs to a planner role that is no superuser and cannot become one', async () => {
    const role = plannerRoleOf(name);
    const [r] = await asSuperuser(`SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = '${role}'`);
    expect(r).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false });
    expect((await asSuperuser(`SELECT tableowner FROM pg_tables WHERE tablename = 'account'`))[0]!.tableowner).toBe(role);
    // Its one membership: the group that may turn foreign keys off for the endpoint rows.
    expect(await asSuperuser(`SELECT m.roleid::regrole::text AS grp FROM pg_auth_members m WHERE m.member = '${role}'::regrole`)).toEqual([
      { grp: 'qt_planners' },
    ]);
    const attempt = (sql: string) =>
      db.session.query(sql).then(
        () => 'succeeded',
        (e: Error) => e.message,
      );
    expect(await attempt(`ALTER ROLE CURRENT_USER SUPERUSER`)).toMatch(/permission denied/);
    expect(await attempt(`COPY (SELECT 1) TO PROGRAM 'cat > ${sentinels}/direct'`)).toMatch(/permission denied/);
    expect(await attempt(`UPDATE pg_index SET indisvalid = false`)).toMatch(/permission denied/);
    expect(await attempt(`CREATE EXTENSION plperl`)).toMatch(/permission denied/);
    expect(await attempt(`RESET ROLE`)).toBe('succeeded');
    expect(
      (await db.session.query(`SELECT current_user = '${role}' AS planner, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su`)).rows[0],
    ).toEqual({
      planner: true,
      su: false,
    });
  });

  it('runs nothing, through any path: every function called, a row written, a procedure called, as the planner and as the superuser', async () => {
    const calls = await asSuperuser<{ sql: string }>(
      `SELECT CASE WHEN prokind = 'p' THEN 'CALL ' ELSE 'SELECT ' END || oid::regproc::text || '(' ||
              coalesce((SELECT string_agg('NULL::' || t::regtype::text, ', ') FROM unnest(proargtypes) t), '') || ')' AS sql
       FROM pg_proc p WHERE ${USER_FUNCTION} AND prorettype <> 'trigger'::regtype AND prokind <> 'a'`,
    );
    expect(calls.length).toBe(12);
    calls.push({ sql: `SELECT public.concat_all(email) FROM account` });
    for (const { sql } of calls) {
      await db.session.query(sql);
      await asSuperuser(sql);
    }
    await db.session.query(`INSERT INTO account (id, email, created, rank) VALUES (-1, 'x', now(), 3)`);
    await db.session.query(`UPDATE account SET rank = 4 WHERE id = -1`);
    await db.session.query(`DELETE FROM account WHERE id = -1`);
    expect(readdirSync(sentinels)).toEqual([]);
  });
});

describe('the one-statement check on the server', () => {
  // With standard_conforming_strings off this text is two statements to the server, one to
  // libpg_query (which always lexes with it on): only the server's own parse can see the second.
  const smuggled = (file: string) => `SELECT 'a\\''; COPY (SELECT 1) TO PROGRAM $$cat > ${file}$$; --'`;

  it('the smuggled COPY is real: a superuser session with the simple protocol runs it', async () => {
    const file = path.join(sentinels, 'control-smuggled');
    const c = new pg.Client({ connectionString: productionUrl });
    await c.connect();
    try {
      // Its own message: a query string is lexed whole before its first statement runs.
      await c.query(`SET standard_conforming_strings = off`);
      await c.query(smuggled(file));
    } finally {
      await c.end();
    }
    expect(existsSync(file)).toBe(true);
    rmSync(file);
  });

  it('refuses it even in a superuser session, with and without $n placeholders', async () => {
    const session = await ShadowSession.connect(shadow.connection(), 10_000);
    try {
      await session.query(`SET standard_conforming_strings = off`);
      for (const text of [
        smuggled(path.join(sentinels, 'smuggled')),
        `SELECT $1::int, ${smuggled(path.join(sentinels, 'smuggled-param')).slice('SELECT '.length)}`,
      ]) {
        await session.query('BEGIN');
        await expect(session.explain(text)).rejects.toThrow('cannot insert multiple commands into a prepared statement');
        await session.query('ROLLBACK');
      }
    } finally {
      await session.end();
    }
    expect(readdirSync(sentinels)).toEqual([]);
  });
});

describe('concurrent analyses', () => {
  const queries = [{ hash: 'score', query: QUERIES.score }];

  it('refuses a second analysis with ShadowBusyError when the one slot is taken and there is no queue; the first completes', async () => {
    const slots = new ShadowSlots({ maxConcurrent: 1, queue: 0 });
    const first = analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } });
    const second = analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } });
    await expect(second).rejects.toBeInstanceOf(ShadowBusyError);
    await expect(second).rejects.toThrow('Every shadow planner is busy');
    const done = await first;
    expect(done.queries[0]!.recommendations[0]).toMatchObject({ columns: ['score'] });
    // The slot is free again afterwards.
    expect((await analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } })).queries[0]!.plan).not.toBeNull();
  }, 60_000);

  it('queues one more when the queue has room, and runs it after the first', async () => {
    const slots = new ShadowSlots({ maxConcurrent: 1, queue: 1 });
    const order: string[] = [];
    const first = analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } }).then((r) => (order.push('first'), r));
    const second = analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } }).then((r) => (order.push('second'), r));
    const third = analyzeQueries({ connectionString: productionUrl, queries, options: { shadow, slots } });
    await expect(third).rejects.toBeInstanceOf(ShadowBusyError);
    const [a, b] = await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect(a.queries[0]!.plan).not.toBeNull();
    expect(b.queries[0]!.plan).not.toBeNull();
  }, 60_000);
});
