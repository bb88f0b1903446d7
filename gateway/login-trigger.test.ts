// Login event triggers (PostgreSQL 17+) run when a session starts, as the role that logs in. The
// gateway asks for event_triggers=off, which a superuser's session accepts: a trigger that writes
// does not run when we connect as one. A server that refuses the setting (a role that is not a
// superuser, or PostgreSQL 16 and older) gets a second attempt without it; such a role's triggers
// run inside a read-only transaction and cannot write either.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { openGateway } from './index';

const SETUP = `
CREATE TABLE public.logins (who text);
GRANT SELECT, INSERT ON public.logins TO PUBLIC;
CREATE FUNCTION public.on_login() RETURNS event_trigger LANGUAGE plpgsql AS $f$
BEGIN
  INSERT INTO public.logins VALUES (session_user);
END $f$;
CREATE EVENT TRIGGER record_login ON login EXECUTE FUNCTION public.on_login();
CREATE ROLE plain LOGIN PASSWORD 'plain';`;

describe.each([17, 18] as const)('login event triggers on PostgreSQL %i', (major) => {
  let server: PostgresServer;
  let url: string;

  // Read with triggers off, so that the reading session does not log itself in.
  const logins = async () => {
    const reader = new pg.Client({ connectionString: url, options: '-c event_triggers=off' });
    await reader.connect();
    try {
      return (await reader.query<{ who: string }>('SELECT who FROM public.logins ORDER BY who')).rows.map((r) => r.who);
    } finally {
      await reader.end();
    }
  };

  beforeAll(async () => {
    server = await startPostgres({ major, statStatements: false });
    url = await server.createDatabase('app');
    await server.query(SETUP, [], 'app');
    expect(await logins()).toEqual([]);
  }, 120_000);
  afterAll(() => server?.stop());

  it('do not run when the gateway connects as a superuser', async () => {
    const before = await logins();
    const gateway = openGateway(url, { limits: { poolSize: 2 } });
    try {
      const [first, second] = await Promise.all([
        gateway.rows<{ event_triggers: string }>(`SELECT current_setting('event_triggers') AS event_triggers, pg_sleep(0.1)`),
        gateway.rows<{ event_triggers: string }>(`SELECT current_setting('event_triggers') AS event_triggers, pg_sleep(0.1)`),
      ]);
      expect([first, second]).toEqual([[{ event_triggers: 'off', pg_sleep: '' }], [{ event_triggers: 'off', pg_sleep: '' }]]);
    } finally {
      await gateway.close();
    }
    expect(await logins()).toEqual(before);
  });

  it('cannot write when they do run, for a role that may not turn them off', async () => {
    const before = await logins();
    const gateway = openGateway(url.replace('postgres:postgres@', 'plain:plain@'));
    try {
      // The trigger's write fails in the session's read-only transaction, and the login with it.
      await expect(gateway.rows('SELECT 1')).rejects.toMatchObject({ code: 'connection_failed', message: expect.stringMatching(/read-only transaction/) });
    } finally {
      await gateway.close();
    }
    expect(await logins()).toEqual(before);
  });

  it('control: the trigger runs for a session opened without the gateway', async () => {
    const before = await logins();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.end();
    expect(await logins()).toEqual([...before, 'postgres'].sort());
  });
});
