// The thread that keeps the heartbeats of this process's running jobs (heartbeat.ts), on a
// connection of its own: a job's heartbeat goes on while the server's event loop is busy, and stops
// only when the process does (killed, it takes this thread with it, and another process retries the
// job). Plain .mjs with only `pg`, so Node starts it as it is, under tsx or from the bundle.
import { clearInterval, setInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

/** @type {{ connectionString: string, schema: string, intervalMs: number }} */
const { connectionString, schema, intervalMs } = workerData;

/** Held jobs: id -> { name, attempt key "id:retry_count" }. */
const held = new Map();
let client;
let closing = false;

// The same statement as pg-boss's own touch(), fenced to the attempt this process runs: a job retried
// elsewhere meanwhile (another retry_count) is not kept alive by this one.
const touch = `
  UPDATE ${schema}.job SET heartbeat_on = ${schema}.job_now()
  WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' AND (id::text || ':' || retry_count::text) = ANY($3::text[])`;

async function connected() {
  if (client) return client;
  const next = new pg.Client({ connectionString, application_name: 'querytrail-heartbeat' });
  next.on('error', () => {
    if (client === next) client = undefined;
  });
  await next.connect();
  client = next;
  return client;
}

async function beat() {
  if (held.size === 0) return;
  const byName = new Map();
  for (const [id, job] of held) {
    const list = byName.get(job.name) ?? { ids: [], attempts: [] };
    list.ids.push(id);
    list.attempts.push(`${id}:${job.retryCount}`);
    byName.set(job.name, list);
  }
  try {
    const db = await connected();
    for (const [name, { ids, attempts }] of byName) await db.query(touch, [name, ids, attempts]);
  } catch (error) {
    // the next beat tries again on a new connection; pg-boss's own heartbeat also goes on
    parentPort.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    const lost = client;
    client = undefined;
    await lost?.end().catch(() => undefined);
  }
}

let running = Promise.resolve();
const timer = setInterval(() => {
  running = running.then(beat);
}, intervalMs);

parentPort.on('message', (message) => {
  if (message.type === 'hold') {
    held.set(message.id, { name: message.name, retryCount: message.retryCount });
    // at once: the job may have waited in the event loop's queue before it reached its handler
    running = running.then(beat);
  } else if (message.type === 'release') {
    held.delete(message.id);
  } else if (message.type === 'close' && !closing) {
    closing = true;
    clearInterval(timer);
    held.clear();
    void running
      .then(() => client?.end())
      .catch(() => undefined)
      .finally(() => parentPort.close());
  }
});
