// Production's relation sizes restored in a shadow with thousands of relations: a workload's
// candidate indexes can number thousands, and each restore locks its relation until its statement
// ends, more than the server's lock table holds at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShadowServer } from './server.js';
import type { ShadowServer } from './types.js';
import { ShadowSession } from './session.js';
import { restoreRelationsStats } from './statistics.js';

const INDEXES = 10000;
let server: ShadowServer;
let session: ShadowSession;

beforeAll(async () => {
  server = await startShadowServer();
  const admin = await ShadowSession.connect(server.connection(), 60_000);
  await admin.query('CREATE DATABASE many_relations');
  await admin.end();
  session = await ShadowSession.connect(server.connection('many_relations'), 60_000);
  // Tables of 20 indexes each (one table's indexes are slow to build once there are thousands),
  // in transactions of 500 indexes: building them takes a lock each too.
  for (let built = 0; built < INDEXES; built += 500)
    await session.query(
      `DO $$ BEGIN FOR t IN ${built / 20}..${(built + 500) / 20 - 1} LOOP
         EXECUTE format('CREATE TABLE t%s (a int)', t);
         FOR i IN 1..20 LOOP EXECUTE format('CREATE INDEX ON t%s (a)', t); END LOOP;
       END LOOP; END $$`,
    );
}, 120_000);

afterAll(async () => {
  await session?.end();
  await server?.stop();
});

describe('relation sizes restored in the shadow', () => {
  it(`restores ${INDEXES} indexes' sizes, more locks than the server holds at once`, async () => {
    const { rows } = await session.query<{ oid: number }>(
      `SELECT c.oid::int AS oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'i'`,
    );
    expect(rows.length).toBe(INDEXES);
    await restoreRelationsStats(
      session,
      rows.map((r) => ({ oid: r.oid, relpages: 7, reltuples: 1000, relallvisible: 0 })),
    );
    const restored = await session.query<{ n: string }>(`SELECT count(*) AS n FROM pg_class WHERE relpages = 7 AND reltuples = 1000 AND relkind = 'i'`);
    expect(Number(restored.rows[0]!.n)).toBe(INDEXES);
  });
});
