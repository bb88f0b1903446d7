// A running job's heartbeat does not wait for its server's event loop (server/queue/heartbeat.ts):
// a process whose loop is held three times as long as the heartbeat keeps its job, and another
// process does not run it a second time. Two processes on one PostgreSQL, as two servers run: this
// one and busy-job-process.ts. (A killed server's job is still run by another: server-jobs.test.ts.)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it, onTestFinished } from 'vitest';
import { openStore, type Store } from '../../server/db/store';
import { openQueue, type RunningQueue } from '../../server/queue/index';
import { startPostgres, type PostgresServer } from '../support/postgres';

const root = path.resolve(import.meta.dirname, '..', '..');
const settings = { heartbeatSeconds: 10, retryLimit: 2, retryDelaySeconds: 1, pollSeconds: 1 };

let postgres: PostgresServer | undefined;
let store: Store | undefined;
let queue: RunningQueue | undefined;
afterAll(async () => {
  await queue?.stop();
  await store?.close();
  await postgres?.stop();
});

/** busy-job-process.ts, its handler holding the loop `busyMs`; `seen(text)` resolves once it printed `text`. */
function busyProcess(databaseUrl: string, busyMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/multi-process/busy-job-process.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, BUSY_MS: String(busyMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: (() => void)[] = [];
  const listen = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', listen);
  child.stderr.on('data', listen);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return {
    output: () => output,
    async seen(pattern: RegExp): Promise<RegExpExecArray> {
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the busy process exited; it printed:\n${output}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
      }
    },
  };
}

async function jobOf(id: string) {
  const { rows } = await postgres!.query<{ state: string; retry_count: number }>('SELECT state::text, retry_count FROM pgboss.job WHERE id = $1', [id], 'jobs');
  return rows[0];
}

it('keeps the job of a process whose event loop is held past the heartbeat: no other process runs it again', async () => {
  postgres = await startPostgres({ statStatements: false });
  const url = await postgres.createDatabase('jobs');
  store = await openStore({ databaseUrl: url });
  queue = await openQueue(store, settings);
  const busy = busyProcess(url, 3 * settings.heartbeatSeconds * 1000);
  await busy.seen(/^ready$/m);

  // the busy process takes the first job (nothing else works on `busy` yet)
  const first = (await queue.send('busy', { n: 1 }))!;
  await busy.seen(new RegExp(`^running ${first} 1$`, 'm'));
  // then this process works on `busy` too, and watches for jobs it could take over
  const ranHere: { id: string; attempt: number }[] = [];
  await queue.work('busy', async (_data, job) => void ranHere.push(job));

  await busy.seen(new RegExp(`^done ${first}$`, 'm'));
  expect(await queue.settled('busy', first)).toBe('completed');
  expect(await jobOf(first)).toEqual({ state: 'completed', retry_count: 0 });
  expect(ranHere).toEqual([]);
}, 240_000);
