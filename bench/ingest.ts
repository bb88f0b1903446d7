// npm run bench:ingest — CI run ingestion into a large catalog, on PGlite and on PostgreSQL.
//
// Each run carries 500 distinct queries (450 already in the catalog, 50 new), ingested into an
// environment whose catalog holds 50,000 queries. Beside every ingested run, the same kind of rows
// go through a bare multi-row INSERT ... ON CONFLICT DO UPDATE sent straight through the driver
// (pg, or PGlite's own client): the floor, what the catalog upsert alone costs with no run row, no
// per-run query list, no transaction and no ORM. Fingerprinting is measured apart (queries sent
// with their hash vs without), since the ci-report command fingerprints on the client.
//
// Options (environment): BENCH_RUNS (default 40), BENCH_CATALOG (50000), BENCH_QUERIES (500),
// BENCH_BACKENDS (pglite,postgres).
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { openStore, type Store } from '../server/db/store';
import { ingestRun } from '../server/catalog/ingest';
import { prepareQueries } from '../server/catalog/prepare';
import { rowsOf } from '../server/catalog/sql';
import { newId } from '../server/ids';
import { loadParser, fingerprintQuery } from '../shared/sql-fingerprint';
import type { CiQueryInput } from '../shared/ci';
import { startPostgres } from '../test/support/postgres';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const CATALOG = Number(process.env.BENCH_CATALOG ?? 50_000);
const PER_RUN = Number(process.env.BENCH_QUERIES ?? 500);
const NEW_PER_RUN = Math.round(PER_RUN / 10);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');

const queryText = (i: number) =>
  `SELECT o.id, o.total, c.name FROM orders_${i % 97} o JOIN customers c ON c.id = o.customer_id WHERE o.status = $1 AND o.id > ${i} ORDER BY o.id LIMIT 50`;
const seedHash = (i: number) => `seed${i.toString(16).padStart(12, '0')}`;

let fresh = 0;
/** 450 random known hashes + 50 never seen, with hash and formatted text precomputed (as ci-report sends them). */
function makeRun(): CiQueryInput[] {
  const known = new Set<number>();
  while (known.size < PER_RUN - NEW_PER_RUN) known.add(Math.floor(Math.random() * CATALOG));
  const queries: CiQueryInput[] = [...known].map((i) => ({ query: queryText(i), hash: seedHash(i), formattedQuery: queryText(i), calls: 3, meanTimeMs: 0.4 }));
  for (let k = 0; k < NEW_PER_RUN; k++) {
    const n = CATALOG + ++fresh;
    queries.push({ query: queryText(n), hash: seedHash(n), formattedQuery: queryText(n), calls: 1, meanTimeMs: 1.2 });
  }
  return queries;
}

interface Floor {
  query(text: string, params: unknown[]): Promise<unknown>;
}

/** The floor: one multi-row INSERT ... ON CONFLICT with bind parameters, nothing else. */
async function bareUpsert(client: Floor, environmentId: string, queries: CiQueryInput[]) {
  const now = new Date().toISOString();
  const params: unknown[] = [environmentId, now];
  const values = queries.map((q) => {
    params.push(newId('q'), q.hash, q.query, q.formattedQuery);
    const n = params.length;
    return `($${n - 3}, $1, $${n - 2}, $${n - 1}, $${n}, $2, $2, 'ci', 1, $2, $2)`;
  });
  await client.query(
    `INSERT INTO catalog_queries AS c (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source, ci_run_count, created_at, updated_at)
     VALUES ${values.join(', ')}
     ON CONFLICT (environment_id, hash) DO UPDATE SET query = excluded.query, formatted_query = excluded.formatted_query,
       last_seen_at = excluded.last_seen_at, last_seen_source = 'ci', ci_run_count = c.ci_run_count + 1, updated_at = excluded.updated_at`,
    params,
  );
}

async function seed(store: Store): Promise<string> {
  const environmentId = newId('env');
  await store.db.execute(sql`INSERT INTO environments (id, name, slug) VALUES (${environmentId}, 'Bench', ${`bench-${environmentId.slice(4, 12)}`})`);
  await store.db.execute(sql`INSERT INTO repo_links (id, environment_id, repo) VALUES (${newId('repo')}, ${environmentId}, 'bench/app')`);
  await store.db.execute(sql`
    INSERT INTO catalog_queries (id, environment_id, hash, query, formatted_query, first_seen_at, last_seen_at, last_seen_source, ci_run_count)
    SELECT 'seed_' || g, ${environmentId}, 'seed' || lpad(to_hex(g), 12, '0'),
           'SELECT o.id, o.total, c.name FROM orders_' || (g % 97) || ' o WHERE o.id > ' || g,
           'SELECT o.id, o.total, c.name FROM orders_' || (g % 97) || ' o WHERE o.id > ' || g,
           now(), now(), 'ci', 1
    FROM generate_series(0, ${CATALOG - 1}) g`);
  await store.db.execute(sql`ANALYZE catalog_queries`);
  return environmentId;
}

const ms = (t0: number) => performance.now() - t0;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function benchBackend(kind: string) {
  let store: Store;
  let floor: Floor;
  let cleanup: () => Promise<void>;
  if (kind === 'postgres') {
    const server = await startPostgres({ statStatements: false });
    const url = await server.createDatabase('bench');
    store = await openStore({ databaseUrl: url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    floor = client;
    cleanup = async () => {
      await client.end();
      await store.close();
      await server.stop();
    };
  } else {
    // The floor on PGlite goes through PGlite's own client on the same database.
    store = await openStore({});
    floor = (store.connection as { pglite: PGlite }).pglite;
    cleanup = () => store.close();
  }

  const environmentId = await seed(store);
  // warm up both paths (plan caches, WASM, JIT)
  for (let i = 0; i < 3; i++) {
    await ingestRun(store.db, { repo: 'bench/app', runId: `warm-${i}`, queries: makeRun() });
    await bareUpsert(floor, environmentId, makeRun());
  }
  let ingestMs = 0;
  let floorMs = 0;
  for (let r = 0; r < RUNS; r++) {
    const runQueries = makeRun();
    const floorQueries = makeRun();
    let t0 = performance.now();
    const result = await ingestRun(store.db, { repo: 'bench/app', runId: `run-${r}`, queries: runQueries });
    ingestMs += ms(t0);
    if (result.queryCount !== PER_RUN || result.newQueryCount !== NEW_PER_RUN) throw new Error(`unexpected counts ${JSON.stringify(result)}`);
    t0 = performance.now();
    await bareUpsert(floor, environmentId, floorQueries);
    floorMs += ms(t0);
  }

  // Concurrency (PostgreSQL only; PGlite serializes): 4 clients posting at once.
  let concurrent = '';
  if (kind === 'postgres') {
    const t0 = performance.now();
    const perWorker = Math.max(1, Math.floor(RUNS / 4));
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let r = 0; r < perWorker; r++) await ingestRun(store.db, { repo: 'bench/app', runId: `c-${w}-${r}`, queries: makeRun() });
      }),
    );
    concurrent = `${fmt((perWorker * 4) / (ms(t0) / 1000))} runs/s with 4 concurrent clients`;
  }

  const [counted] = await rowsOf<{ total: number }>(store.db, sql`SELECT count(*)::int AS total FROM catalog_queries`);
  await cleanup();
  return { kind, ingestMs: ingestMs / RUNS, floorMs: floorMs / RUNS, concurrent, catalogRows: counted?.total ?? 0 };
}

async function benchFingerprinting() {
  await loadParser();
  const raw: CiQueryInput[] = Array.from({ length: PER_RUN }, (_, i) => ({ query: queryText(i).replace('$1', `'shipped'`) }));
  const hashed: CiQueryInput[] = [];
  for (const q of raw) hashed.push({ ...q, ...(await fingerprintQuery(q.query)) });
  await prepareQueries(raw.slice(0, 20)); // warm-up
  let t0 = performance.now();
  await prepareQueries(hashed);
  const withHash = ms(t0);
  t0 = performance.now();
  await prepareQueries(raw);
  const withoutHash = ms(t0);
  return { withHash, withoutHash };
}

console.log(
  `CI ingestion: runs of ${PER_RUN} distinct queries (${PER_RUN - NEW_PER_RUN} known, ${NEW_PER_RUN} new) into a catalog of ${CATALOG}, ${RUNS} runs per backend\n`,
);
console.log('| backend | ingest ms/run | runs/s | floor ms/run (bare INSERT ... ON CONFLICT) | ingest / floor | notes |');
console.log('|---|---|---|---|---|---|');
for (const kind of BACKENDS) {
  const r = await benchBackend(kind);
  console.log(
    `| ${r.kind} | ${fmt(r.ingestMs)} | ${fmt(1000 / r.ingestMs)} | ${fmt(r.floorMs)} | ${fmt(r.ingestMs / r.floorMs, 2)}x | ${r.concurrent || '-'}; catalog ${r.catalogRows} rows at the end |`,
  );
}
const fp = await benchFingerprinting();
console.log(`\nFingerprinting ${PER_RUN} queries before storing (CPU, no database):`);
console.log(`  sent with hash and formattedQuery: ${fmt(fp.withHash)} ms per run`);
console.log(`  sent without (server fingerprints and pretty-prints): ${fmt(fp.withoutHash)} ms per run (${fmt(fp.withoutHash / PER_RUN, 2)} ms per query)`);
