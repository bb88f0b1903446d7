// Pagila filled with ~15 million generated, skewed rows (advisor-data.ts), in its own database.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { SHARED_DATA_DIR } from '../../test/support/data';
import type { PostgresServer } from '../../test/support/postgres.js';
import { LOAD_SQL, WORKLOAD_INDEXES } from '../advisor-data.js';

const SCHEMA = path.join(SHARED_DATA_DIR, 'pagila-schema-no-pgvector.sql');

/** Creates and fills `pagila`, with the workload's indexes when asked, analyzed; its connection string. */
export async function loadPagila(db: PostgresServer, options: { workloadIndexes: boolean }): Promise<string> {
  const url = await db.createDatabase('pagila');
  execFileSync('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-q', '-d', url, '-f', SCHEMA], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (const sql of LOAD_SQL) await db.query(`SET session_replication_role = replica; ${sql}`, [], 'pagila');
  if (options.workloadIndexes) for (const w of WORKLOAD_INDEXES) await db.query(w.sql, [], 'pagila');
  await db.query('VACUUM ANALYZE', [], 'pagila');
  return url;
}
