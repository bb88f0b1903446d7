// Size estimates against the sizes CREATE INDEX really gives, on a scratch database of our own
// (the benchmark's, a test's; never a user's: it creates and drops indexes). The tables must hold
// their rows and be ANALYZEd first. Each index is built, the snapshot is read as the advisor reads
// production (statistics and all), each index is estimated from that snapshot alone as a run
// schema's index is, and the estimate is set beside pg_relation_size. The indexes are dropped after.
import pg from 'pg';
import { readSnapshot } from '../../snapshot/read.js';
import { sizeInputs } from '../../advisor/size-inputs.js';
import { estimateIndexSize } from '../../advisor/sizing.js';

export interface SizeCase {
  /** The index's name, as `createIndex` creates it (unqualified, in `schema`). */
  name: string;
  schema?: string;
  /** `CREATE INDEX name ON ...`, or a recommendation's `CREATE INDEX ON ...`, which is given `name`. */
  createIndex: string;
}

export interface SizeError {
  name: string;
  estimatedBytes: number;
  builtBytes: number;
  /** (estimated - built) / built: positive when the estimate is larger. */
  error: number;
  exact: boolean;
  why?: string;
}

export interface SizeErrors {
  cases: SizeError[];
  /** Largest and median |error| over the cases whose estimate is exact. */
  maxError: number;
  medianError: number;
  /** Smallest error of the inexact ones: negative would mean an upper bound that did not hold. */
  worstUnderInexact: number | null;
}

export async function measureSizeErrors(connectionString: string, cases: SizeCase[]): Promise<SizeErrors> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    for (const c of cases) await client.query(c.createIndex.replace(/^CREATE INDEX ON /i, `CREATE INDEX ${pg.escapeIdentifier(c.name)} ON `));
    const snapshot = await readSnapshot(connectionString);
    const shapeOf = sizeInputs(snapshot);
    const blockSize = snapshot.blockSize || 8192;
    const out: SizeError[] = [];
    for (const c of cases) {
      const schema = c.schema ?? 'public';
      const index = snapshot.indexes.find((i) => i.schema === schema && i.name === c.name);
      if (!index) throw new Error(`index ${schema}.${c.name} was not read back`);
      const table = snapshot.relations.find((r) => r.schema === schema && r.name === index.table);
      let tuples = Math.max(table?.reltuples ?? 0, 0);
      if (index.predicate) tuples = Math.min(tuples, await plannedRows(client, schema, index.table, index.predicate));
      const am = index.am === 'gin' ? 'gin' : 'btree';
      const estimate = estimateIndexSize(
        shapeOf(
          { schema, table: index.table, am, keys: index.keys.map((k) => k ?? ''), include: index.include, unique: index.unique, definition: index.definition },
          tuples,
        ),
      );
      const built = await client.query<{ bytes: string }>(`SELECT pg_relation_size(format('%I.%I', $1::text, $2::text)::regclass) AS bytes`, [schema, c.name]);
      const builtBytes = Number(built.rows[0]!.bytes);
      const estimatedBytes = estimate.pages * blockSize;
      out.push({
        name: c.name,
        estimatedBytes,
        builtBytes,
        error: (estimatedBytes - builtBytes) / builtBytes,
        exact: estimate.exact,
        ...(estimate.why && { why: estimate.why }),
      });
    }
    const exact = out
      .filter((e) => e.exact)
      .map((e) => Math.abs(e.error))
      .sort((a, b) => a - b);
    const inexact = out.filter((e) => !e.exact).map((e) => e.error);
    return {
      cases: out,
      maxError: exact.length ? exact[exact.length - 1]! : 0,
      medianError: exact.length ? exact[Math.floor((exact.length - 1) / 2)]! : 0,
      worstUnderInexact: inexact.length ? Math.min(...inexact) : null,
    };
  } finally {
    for (const c of cases)
      await client.query(`DROP INDEX IF EXISTS ${pg.escapeIdentifier(c.schema ?? 'public')}.${pg.escapeIdentifier(c.name)}`).catch(() => undefined);
    await client.end();
  }
}

/** The planner's estimate of the rows a partial index's predicate keeps, as the advisor asks its shadow. */
async function plannedRows(client: pg.Client, schema: string, table: string, predicate: string): Promise<number> {
  const r = await client.query<{ 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ONLY ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE ${predicate}`,
  );
  return r.rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
}
