// The API answers while a large verdict is being made: the CPU work of a verdict (starting a shadow
// PostgreSQL, reading and rebuilding production's schema, planning) leaves the server's event loop
// free, so a request made meanwhile waits neither for it nor long. Production is GitLab's
// structure.sql (about 900 tables and 4,000 indexes); the server is a fresh one, as
// `npm run serve` starts it, with nothing cached, so its first verdict does all of that work.
// Each answer is checked against a second, on a machine busy with other tests.
// On both stores: PostgreSQL (DATABASE_URL), as a company runs it, and PGlite in DATA_DIR, whose
// statements run on the server's own event loop (WebAssembly in its process), each one on a turn
// of the loop of its own (server/db/yielding-pglite.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { GITLAB_SQL, loadSqlFile } from '../support/analyzer';
import { requestJson } from '../support/api';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { listening, startServerProcess } from './server-process';

let postgres: PostgresServer;
let productionUrl: string;
beforeAll(async () => {
  postgres = await startPostgres({ statStatements: false });
  productionUrl = await postgres.createDatabase('gitlab');
  await loadSqlFile(productionUrl, GITLAB_SQL, 18);
  await postgres.query('ANALYZE', [], 'gitlab');
}, 240_000);
afterAll(() => postgres?.stop());

/** A pull request's queries on ten of GitLab's tables. */
const QUERIES = [
  'SELECT id, title FROM issues WHERE project_id = $1 AND state_id = $2 ORDER BY created_at DESC LIMIT 20',
  'SELECT id FROM merge_requests WHERE target_project_id = $1 AND state_id = $2',
  'SELECT * FROM projects WHERE namespace_id = $1 AND archived = false',
  'SELECT status, count(*) FROM ci_pipelines WHERE project_id = $1 GROUP BY status',
  "SELECT * FROM notes WHERE noteable_type = 'Issue' AND noteable_id = $1",
  'SELECT id FROM users WHERE username = $1',
  'SELECT * FROM p_ci_builds WHERE commit_id = $1 AND partition_id = 100',
  'SELECT * FROM namespaces WHERE parent_id = $1',
  'SELECT * FROM events WHERE author_id = $1 ORDER BY id DESC LIMIT 20',
  'SELECT title FROM labels WHERE project_id = $1 ORDER BY title',
];

describe.each(['postgres', 'pglite'] as const)('with the %s store', (store) => {
  it('answers every request made during a large verdict within a second', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'qt-responsive-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const storeUrl: Record<string, string> = store === 'postgres' ? { DATABASE_URL: await postgres.createDatabase(`querytrail_${store}`) } : {};
    const server = await listening(startServerProcess({ DATA_DIR: dataDir, ...storeUrl, SECRET_KEY: 'the test server key' }));
    onTestFinished(async () => void (await server.stop()));
    const api = `${server.url}/api`;
    const envId = (await requestJson(`${api}/env`, { method: 'POST', json: { name: 'GitLab', slug: 'gitlab' } })).body.id as string;
    expect(
      (await requestJson(`${api}/env/${envId}/connections`, { method: 'POST', json: { label: 'prod', role: 'production', connectionString: productionUrl } }))
        .status,
    ).toBe(201);
    expect((await requestJson(`${api}/env/${envId}/repos`, { method: 'POST', json: { repo: 'acme/gitlab' } })).status).toBe(201);

    const posted = await requestJson(`${api}/ci/runs`, {
      method: 'POST',
      json: { repo: 'acme/gitlab', runId: 'pr-1', branch: 'feature/a', queries: QUERIES.map((query) => ({ query })) },
    });
    expect(posted.status).toBe(201);

    // Until the verdict is in: the environments list (a light request, on a new connection each
    // time, as a browser polling the page makes it), then the verdict itself; each one timed.
    const answers: { path: string; ms: number; status: number | string; at: number }[] = [];
    const postedAt = performance.now();
    const timed = async (pathname: string) => {
      const asked = performance.now();
      const at = Math.round(asked - postedAt);
      try {
        const answer = await requestJson(`${api}${pathname}`, { headers: { connection: 'close' } });
        answers.push({ path: pathname, ms: performance.now() - asked, status: answer.status, at });
        return answer.body as { status?: string; reason?: string };
      } catch (error) {
        answers.push({ path: pathname, ms: performance.now() - asked, status: (error as Error).message, at });
        return undefined;
      }
    };
    let verdict: { status?: string; reason?: string } | undefined;
    for (;;) {
      await timed('/env');
      verdict = await timed(`/ci/runs/${posted.body.id}/verdict`);
      if (verdict?.status !== undefined && verdict.status !== 'pending') break;
      if (server.output().includes('[exited')) throw new Error(`the server exited; it printed:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(verdict.status, verdict.reason).toMatch(/^(pass|fail)$/);
    // the verdict took a while: many requests were made meanwhile
    expect(answers.length).toBeGreaterThan(10);
    const slow = answers.filter((a) => a.status !== 200 || a.ms > 1000);
    console.log(`${answers.length} requests during the verdict, the slowest answered in ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms`);
    expect(slow).toEqual([]);
  }, 300_000);
});
