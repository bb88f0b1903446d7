// The gateway attacked on a real PostgreSQL 18: a database whose non-superuser owner planted code
// that writes (and, run by a superuser, writes a file on the database host) in every place our
// reads could reach it: operators shadowing LIKE and =, casts to json and text, a row-security
// policy, a view. We read it as a superuser and as the owner, through every reader (the analyzer's
// sync, the advisor's snapshot, production sync); the evidence table, the sentinel files and the
// functions' call counters prove none of it ran. The last tests show each plant does fire when
// read the way querytrail used to, so the measures can fail.
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema, RemoteSyncResponse, Table } from '../shared/analyzer-schema';
import { readSnapshot } from '../snapshot/read';
import { syncDatabase, DEFAULT_SYNC_SETTINGS } from '../analyzer/sync';
import { readDatabaseStatements } from '../analyzer/statements';
import { freePort, startPostgres, type PostgresServer } from '../test/support/postgres';
import { GatewayError, MARKER, openGateway } from './index';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function plantedSql(sentinelDir: string): string {
  return `
CREATE TABLE public.evidence (what text);
GRANT SELECT, INSERT ON public.evidence TO PUBLIC;

-- What every plant calls: make the session writable for what follows, write a row, and (when the
-- caller is a superuser) write a file on the database host.
CREATE FUNCTION public.evil(what text) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM pg_catalog.set_config('default_transaction_read_only', 'off', false);
  BEGIN
    INSERT INTO public.evidence VALUES (what);
  EXCEPTION WHEN OTHERS THEN NULL;
  END;
  BEGIN
    EXECUTE pg_catalog.format('COPY (SELECT 1) TO %L', '${sentinelDir}/' || what);
  EXCEPTION WHEN OTHERS THEN NULL;
  END;
  RETURN false;
END $f$;

-- Operators that capture comparisons on name and text written without a schema.
CREATE FUNCTION public.name_not_like(name, name) RETURNS boolean LANGUAGE plpgsql AS $f$ BEGIN RETURN public.evil('op_not_like'); END $f$;
CREATE OPERATOR public.!~~ (LEFTARG = name, RIGHTARG = name, FUNCTION = public.name_not_like);
CREATE FUNCTION public.name_like(name, name) RETURNS boolean LANGUAGE plpgsql AS $f$ BEGIN RETURN public.evil('op_like'); END $f$;
CREATE OPERATOR public.~~ (LEFTARG = name, RIGHTARG = name, FUNCTION = public.name_like);
CREATE FUNCTION public.text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS $f$ BEGIN RETURN public.evil('op_text_eq'); END $f$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.text_eq);

-- Types with casts to json and to text whose functions write.
CREATE TYPE public.mood AS ENUM ('sad', 'happy');
CREATE TYPE public.pair AS (a int, b public.mood);
CREATE DOMAIN public.positive AS int CHECK (VALUE > 0);
CREATE FUNCTION public.mood_json(public.mood) RETURNS json LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_mood_json'); RETURN '"x"'; END $f$;
CREATE FUNCTION public.mood_text(public.mood) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_mood_text'); RETURN 'x'; END $f$;
CREATE FUNCTION public.pair_json(public.pair) RETURNS json LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_pair_json'); RETURN '"x"'; END $f$;
CREATE FUNCTION public.pair_text(public.pair) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_pair_text'); RETURN 'x'; END $f$;
CREATE FUNCTION public.positive_json(public.positive) RETURNS json LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_positive_json'); RETURN '1'; END $f$;
CREATE FUNCTION public.positive_text(public.positive) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('cast_positive_text'); RETURN 'x'; END $f$;
CREATE CAST (public.mood AS json) WITH FUNCTION public.mood_json(public.mood);
CREATE CAST (public.mood AS text) WITH FUNCTION public.mood_text(public.mood);
CREATE CAST (public.pair AS json) WITH FUNCTION public.pair_json(public.pair);
CREATE CAST (public.pair AS text) WITH FUNCTION public.pair_text(public.pair);
CREATE CAST (public.positive AS json) WITH FUNCTION public.positive_json(public.positive);
CREATE CAST (public.positive AS text) WITH FUNCTION public.positive_text(public.positive);
CREATE TABLE public.typed (id int PRIMARY KEY, m public.mood, p public.pair, d public.positive, ms public.mood[]);
CREATE INDEX typed_m ON public.typed (m);
INSERT INTO public.typed VALUES (1, 'sad', ROW(2, 'happy'), 3, '{happy}'), (2, 'happy', ROW(4, 'sad'), 5, '{sad,happy}');
ANALYZE public.typed;
-- The application reads the enum column through its index: the snapshot probes the extremes of
-- indexed columns only through indexes already in use.
SET enable_seqscan = off;
SELECT count(*) FROM public.typed WHERE m = 'sad';
RESET enable_seqscan;
SELECT pg_stat_force_next_flush();

-- A policy whose expression would run as whoever reads the table (the owner included: FORCE).
CREATE FUNCTION public.policy_check(int) RETURNS boolean LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.evil('policy'); RETURN true; END $f$;
CREATE TABLE public.guarded (id int);
INSERT INTO public.guarded VALUES (1);
ALTER TABLE public.guarded ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.guarded FORCE ROW LEVEL SECURITY;
CREATE POLICY guarded_policy ON public.guarded USING (public.policy_check(id));

-- A view whose query runs user code.
CREATE VIEW public.trap AS SELECT public.evil('view') AS x;

-- Functions the gateway tests call on purpose, as a stand-in for any user code that gets to run.
CREATE FUNCTION public.flip() RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM pg_catalog.set_config('default_transaction_read_only', 'off', false);
  PERFORM pg_catalog.set_config('search_path', 'public, pg_catalog', false);
  PERFORM pg_catalog.set_config('row_security', 'on', false);
  PERFORM pg_catalog.set_config('statement_timeout', '0', false);
  RETURN pg_catalog.current_setting('default_transaction_read_only');
END $f$;
CREATE FUNCTION public.make_writable() RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM pg_catalog.set_config('transaction_read_only', 'off', false);
END $f$;`;
}

describe('the gateway against a database whose owner planted code (PostgreSQL 18)', () => {
  let server: PostgresServer;
  let superUrl: string;
  let ownerUrl: string;
  let sentinelDir: string;

  /** Rows of public.evidence, files in the sentinel folder, calls of the owner's functions. */
  const traces = async () => {
    // Function counters reach the statistics when a session ends: wait for ours to be gone.
    for (let i = 0; i < 50; i++) {
      const { rows } = await server.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name IN ('querytrail-analyzer', 'querytrail-advisor')`,
      );
      if (rows[0]!.n === 0) break;
      await sleep(100);
    }
    const { rows } = await server.query<{ evidence: string[]; calls: number }>(
      `SELECT (SELECT coalesce(array_agg(what ORDER BY what), '{}') FROM public.evidence) AS evidence,
              (SELECT coalesce(sum(s.calls), 0)::int FROM pg_stat_user_functions s JOIN pg_proc p ON p.oid = s.funcid
               WHERE p.proowner = 'owner'::regrole AND p.proname NOT IN ('flip', 'make_writable')) AS calls`,
      [],
      'hostile',
    );
    return { evidence: rows[0]!.evidence, calls: rows[0]!.calls, files: readdirSync(sentinelDir).sort() };
  };
  const clean = { evidence: [], calls: 0, files: [] };

  beforeAll(async () => {
    sentinelDir = mkdtempSync(path.join(tmpdir(), 'qt-sentinel-'));
    chmodSync(sentinelDir, 0o777); // the server may run as another OS user
    server = await startPostgres({ major: 18, settings: { track_functions: 'all' } });
    await server.query(`CREATE ROLE owner LOGIN PASSWORD 'owner' IN ROLE pg_read_all_stats`);
    await server.query('CREATE DATABASE hostile OWNER owner');
    superUrl = server.url('hostile');
    ownerUrl = superUrl.replace('postgres:postgres@', 'owner:owner@');
    await server.query('CREATE EXTENSION pg_stat_statements', [], 'hostile');
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      await owner.query(plantedSql(sentinelDir));
    } finally {
      await owner.end();
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(sentinelDir, { recursive: true, force: true });
  });

  describe('sessions', () => {
    it.each(['superuser', 'owner'])('runs every unit as a %s in a read-only transaction with search_path, row security and timeouts pinned', async (who) => {
      const gateway = openGateway(who === 'owner' ? ownerUrl : superUrl, { limits: { statementTimeoutMs: 12_000, lockTimeoutMs: 1_500 } });
      try {
        const settings = `SELECT current_setting('transaction_read_only') AS read_only, current_setting('default_transaction_read_only') AS default_read_only,
                  current_setting('transaction_isolation') AS isolation, current_setting('search_path') AS search_path,
                  current_setting('row_security') AS row_security, current_setting('statement_timeout') AS statement_timeout,
                  current_setting('lock_timeout') AS lock_timeout, current_setting('idle_in_transaction_session_timeout') AS idle,
                  current_setting('application_name') AS application_name, current_setting('event_triggers') AS event_triggers`;
        const pinned = {
          read_only: 'on',
          default_read_only: 'on',
          search_path: 'pg_catalog, pg_temp',
          row_security: 'off',
          statement_timeout: '12s',
          lock_timeout: '1500ms',
          idle: '12s',
          application_name: 'querytrail-analyzer',
          // Only a superuser may turn login event triggers off.
          event_triggers: who === 'superuser' ? 'off' : 'on',
        };
        expect(await gateway.rows(settings)).toEqual([{ ...pinned, isolation: 'read committed' }]);
        expect(await gateway.transaction((tx) => tx.rows(settings), { consistentSnapshot: true })).toEqual([{ ...pinned, isolation: 'repeatable read' }]);
        await expect(gateway.rows('CREATE TABLE public.nope (id int)')).rejects.toMatchObject({ code: '25006' });
      } finally {
        await gateway.close();
      }
    });

    it.each(['superuser', 'owner'])(
      'undoes what user code sets on the session (as a %s), so later statements on the same session still cannot write',
      async (who) => {
        const gateway = openGateway(who === 'owner' ? ownerUrl : superUrl, { limits: { poolSize: 1 } });
        const pid = async () => (await gateway.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
        try {
          const session = await pid();
          // Inside its own transaction the change holds...
          expect(await gateway.rows('SELECT public.flip() AS now')).toEqual([{ now: 'off' }]);
          // ...and the ROLLBACK that ends every unit takes it back.
          expect(await pid()).toBe(session);
          expect(
            await gateway.rows(
              `SELECT current_setting('default_transaction_read_only') AS d, current_setting('search_path') AS s, current_setting('row_security') AS r`,
            ),
          ).toEqual([{ d: 'on', s: 'pg_catalog, pg_temp', r: 'off' }]);
          await expect(gateway.rows(`INSERT INTO public.evidence VALUES ('after flip')`)).rejects.toMatchObject({ code: '25006' });
          // In the same transaction too: a read-only transaction cannot turn read-write after its first query.
          await expect(
            gateway.transaction(async (tx) => {
              await tx.rows('SELECT public.flip()');
              await tx.rows(`INSERT INTO public.evidence VALUES ('same transaction')`);
            }),
          ).rejects.toMatchObject({ code: '25006' });
          await expect(gateway.rows('SELECT public.make_writable()')).rejects.toMatchObject({ code: '25001' });
          expect(await pid()).toBe(session);
        } finally {
          await gateway.close();
        }
        const { rows } = await server.query<{ n: number }>('SELECT count(*)::int AS n FROM public.evidence', [], 'hostile');
        expect(rows[0]!.n).toBe(0);
      },
    );

    it('keeps a session after a statement fails, rolled back and ready for the next unit', async () => {
      const gateway = openGateway(superUrl, { limits: { poolSize: 1 } });
      try {
        const pid = (await gateway.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
        await expect(gateway.rows('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
        expect(await gateway.rows('SELECT pg_backend_pid() AS pid, 1 AS one')).toEqual([{ pid, one: 1 }]);
        // An attempt ends at its savepoint; the transaction goes on.
        const outcome = await gateway.transaction(async (tx) => {
          const failed = await tx.attempt(() => tx.rows('SELECT pg_sleep(2)'), { statementTimeoutMs: 50 });
          return { failed, after: await tx.rows<{ t: string }>(`SELECT current_setting('statement_timeout') AS t`) };
        });
        expect(outcome.failed).toMatchObject({ ok: false, error: { code: '57014' } });
        expect(outcome.after).toEqual([{ t: '30s' }]);
      } finally {
        await gateway.close();
      }
    });

    it('ends every statement with the marker, where PostgreSQL 18 keeps it in pg_stat_statements', async () => {
      const gateway = openGateway(superUrl);
      try {
        await gateway.rows('SELECT 4242 AS qt_marker_probe');
        await gateway.transaction((tx) => tx.rows('SELECT 4343 AS qt_marker_probe'), { consistentSnapshot: true, settings: { DateStyle: 'ISO, YMD' } });
      } finally {
        await gateway.close();
      }
      const { rows } = await server.query<{ query: string }>(`SELECT query FROM pg_stat_statements`, [], 'hostile');
      const ours = rows.map((r) => r.query).filter((q) => q.includes('qt_marker_probe') || q.includes('AS read_only') || /^(BEGIN ISOLATION|ROLLBACK)/.test(q));
      // the two probes, BEGIN in both isolation levels, the settings check, ROLLBACK
      expect(ours.length).toBeGreaterThanOrEqual(6);
      for (const query of ours) expect(query.trimEnd().endsWith(MARKER)).toBe(true);
    });

    it('classifies each way of failing to connect once, without the password in the message', async () => {
      const failure = async (url: string) => {
        const gateway = openGateway(url, { limits: { connectTimeoutMs: 2_000 } });
        try {
          return await gateway.rows('SELECT 1').then(
            () => undefined,
            (error: unknown) => error,
          );
        } finally {
          await gateway.close();
        }
      };
      const refused = await failure(`postgres://u:Pa55-word@127.0.0.1:${await freePort()}/x`);
      expect(refused).toBeInstanceOf(GatewayError);
      expect(refused).toMatchObject({ code: 'connection_refused' });
      const wrong = (await failure(superUrl.replace('postgres:postgres@', 'postgres:Wr0ng-Secret@'))) as GatewayError;
      expect(wrong).toMatchObject({ code: 'authentication_failed', message: expect.stringMatching(/password authentication failed/) });
      expect(wrong.message).not.toContain('Wr0ng-Secret');
      expect(await failure(server.url('no_such_db'))).toMatchObject({ code: 'database_not_found' });
      expect(() => openGateway(`${superUrl}?options=-c%20search_path%3Dpublic`)).toThrow(expect.objectContaining({ code: 'invalid_connection_string' }));
    });

    it.each(['PGPASSWORD', 'a password file'])(
      "never answers a server's password request from %s, which belongs to whoever runs querytrail",
      async (source) => {
        const withoutPassword = superUrl.replace('postgres:postgres@', 'postgres@');
        const passfile = path.join(sentinelDir, '..', `qt-pgpass-${process.pid}`);
        if (source === 'PGPASSWORD') process.env.PGPASSWORD = 'postgres';
        else {
          writeFileSync(passfile, '*:*:*:*:postgres\n', { mode: 0o600 });
          process.env.PGPASSFILE = passfile;
        }
        try {
          const gateway = openGateway(withoutPassword);
          try {
            await expect(gateway.rows('SELECT 1')).rejects.toMatchObject({ code: 'authentication_failed' });
          } finally {
            await gateway.close();
          }
          // The driver on its own would have sent it.
          const client = new pg.Client({ connectionString: withoutPassword });
          await client.connect();
          await client.end();
        } finally {
          delete process.env.PGPASSWORD;
          delete process.env.PGPASSFILE;
          rmSync(passfile, { force: true });
        }
      },
    );
  });

  describe('reading the planted database runs none of its code', () => {
    const sync = async (url: string): Promise<RemoteSyncResponse> => syncDatabase({ db: url, sampleRows: 5, queryLimit: 500 }, DEFAULT_SYNC_SETTINGS);
    const schemaOf = (response: RemoteSyncResponse): DatabaseSchema => {
      if (response.schema.type !== 'ok') throw new Error(response.schema.error);
      return response.schema.value;
    };
    const table = (schema: DatabaseSchema, name: string): Table => schema.tables.find((t) => t.schema === 'public' && t.name === name)!;

    it('syncs as a superuser and as the owner: samples read through output functions only, the policy table refused', async () => {
      const before = await traces();
      expect(before).toEqual(clean);
      const asSuperuser = await sync(superUrl);
      const asOwner = await sync(ownerUrl);
      for (const response of [asSuperuser, asOwner]) {
        expect(response.meta.type).toBe('ok');
        expect(response.queries.type).toBe('ok');
        expect(response.disabledIndexes.type).toBe('ok');
        const schema = schemaOf(response);
        // An enum, a composite holding one and an array of them print as text (enum_out,
        // record_out, array_out, never a cast); the domain over int goes through to_json, which
        // looks through domains to int.
        expect(table(schema, 'typed').sampleRows).toEqual({
          type: 'ok',
          value: [
            { id: 1, m: 'sad', p: '(2,happy)', d: 3, ms: '{happy}' },
            { id: 2, m: 'happy', p: '(4,sad)', d: 5, ms: '{sad,happy}' },
          ],
        });
        expect(schema.views.map((v) => v.name)).toContain('trap');
        expect(schema.types.enums).toEqual([{ schema: 'public', name: 'mood', labels: ['sad', 'happy'] }]);
      }
      // A superuser bypasses row security: the policy is not evaluated at all. The owner is subject
      // to it (FORCE), so with row_security off the read fails instead of running the policy.
      expect(table(schemaOf(asSuperuser), 'guarded').sampleRows).toEqual({ type: 'ok', value: [{ id: 1 }] });
      expect(table(schemaOf(asOwner), 'guarded').sampleRows).toEqual({ type: 'error', error: expect.stringMatching(/row-level security/) });
      expect(await traces()).toEqual(clean);
    });

    it('takes the advisor snapshot and reads pg_stat_statements for production sync, as a superuser and as the owner', async () => {
      for (const url of [superUrl, ownerUrl]) {
        const snapshot = await readSnapshot(url);
        expect(snapshot.relations.map((r) => r.name)).toEqual(expect.arrayContaining(['typed', 'guarded', 'evidence']));
        // The extremes of the enum column's index, as enum_out prints them.
        expect(snapshot.endpoints).toContainEqual({ schema: 'public', table: 'typed', column: 'm', min: 'sad', max: 'happy' });
        // The application's search_path, not our pinned one.
        expect(snapshot.searchPath).toBe('"$user", public');
        const statements = await readDatabaseStatements(url, { limit: 1000 });
        expect(statements.database).toBe('hostile');
      }
      expect(await traces()).toEqual(clean);
    });

    it('control: the plants do run when read the way querytrail used to (names resolved through public, row_to_json)', async () => {
      const victim = new pg.Client({ connectionString: superUrl, options: '-c default_transaction_read_only=on' });
      await victim.connect();
      try {
        await victim.query(`SELECT count(*) FROM pg_namespace n WHERE n.nspname NOT LIKE 'pg\\_toast%'`);
        // The operator flipped the session default: the next statement writes.
        await victim.query(`SELECT row_to_json(t) FROM public.typed t`);
      } finally {
        await victim.end();
      }
      const after = await traces();
      expect(after.evidence).toEqual(expect.arrayContaining(['cast_mood_json']));
      expect(after.files).toEqual(expect.arrayContaining(['op_not_like', 'cast_mood_json']));
      expect(after.calls).toBeGreaterThan(0);
    });
  });
  describe('a statement the parser cannot read', () => {
    let shopUrl: string;

    beforeAll(async () => {
      shopUrl = await server.createDatabase('savepoints');
      await server.query(
        `CREATE EXTENSION pg_stat_statements;
         CREATE TABLE items (id int PRIMARY KEY, name text, stock int NOT NULL DEFAULT 0);
         INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 20) g;
         SELECT pg_stat_statements_reset();`,
        [],
        'savepoints',
      );
      // What an ORM sends for a nested transaction: PostgreSQL 18 keeps it as SAVEPOINT $1.
      const app = new pg.Client({ connectionString: shopUrl });
      await app.connect();
      try {
        for (let i = 1; i <= 3; i++) {
          await app.query('BEGIN');
          await app.query(`SAVEPOINT nested_${i}`);
          await app.query('UPDATE items SET stock = stock + 1 WHERE id = $1', [i]);
          await app.query(`RELEASE SAVEPOINT nested_${i}`);
          await app.query('COMMIT');
          await app.query('SELECT name FROM items WHERE id = $1', [i]);
        }
      } finally {
        await app.end();
      }
      const { rows } = await server.query<{ query: string }>('SELECT query FROM pg_stat_statements', [], 'savepoints');
      expect(rows.map((r) => r.query)).toContain('SAVEPOINT $1');
    });

    it('is left out and counted by the sync, which still reads every other statement', async () => {
      const response = await syncDatabase({ db: shopUrl, sampleRows: 0, queryLimit: 500 }, DEFAULT_SYNC_SETTINGS);
      if (response.queries.type !== 'ok') throw new Error(`queries failed: ${response.queries.error}`);
      const texts = response.queries.value.map((q) => q.query);
      expect(texts).toEqual(expect.arrayContaining(['UPDATE items SET stock = stock + $2 WHERE id = $1', 'SELECT name FROM items WHERE id = $1']));
      expect(texts.filter((t) => /SAVEPOINT/.test(t))).toEqual([]);
      if (response.meta.type !== 'ok') throw new Error(response.meta.error);
      expect(response.meta.value.visibility.notes.join('\n')).toMatch(/\d+ pg_stat_statements entries could not be parsed/);
    });

    it('is left out and counted by production sync and ci-report, which keep the queries', async () => {
      const statements = await readDatabaseStatements(shopUrl, { limit: 1000 });
      expect(statements.queries.map((q) => q.query)).toEqual(
        expect.arrayContaining(['UPDATE items SET stock = stock + $2 WHERE id = $1', 'SELECT name FROM items WHERE id = $1']),
      );
      expect(statements.skipped).toBeGreaterThanOrEqual(1);
    });
  });
});
