// A large CI run is fingerprinted and formatted on a worker thread: while it is being prepared, the
// server goes on answering everyone else.
import { afterAll, expect, it } from 'vitest';
import { runsPreparing } from '../../server/catalog/prepare-pool';
import { requestJson } from '../support/api';
import { openTestServices, startTestServer, stopTestPostgres } from '../support/services';

afterAll(() => stopTestPostgres());

/** Thousands of distinct statements without fingerprints: every one is parsed and pretty-printed. */
const bigRun = Array.from({ length: 4000 }, (_, i) => ({
  query: `SELECT o.id, o.total, c.name, (SELECT count(*) FROM items i WHERE i.order_id = o.id AND i.kind = 'k')
          FROM orders o JOIN customers c ON c.id = o.customer_id
          WHERE o.status IN ('open', 'paid') AND o.f${i} > now() - interval '7 days' ORDER BY o.id DESC LIMIT 50`,
}));

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

it('answers a small request sent while a large run is being prepared before that preparation ends', async () => {
  const server = await startTestServer(await openTestServices('postgres'));
  try {
    const order: string[] = [];
    const big = requestJson(`${server.url}/api/ci/runs`, { method: 'POST', json: { repo: 'acme/shop', runId: 'big', queries: bigRun } }).then((answer) => {
      order.push('big POST answered');
      return answer;
    });
    // the loop keeps turning while the server reads, validates and hands the run to a thread
    while (runsPreparing() === 0) {
      if (order.length) throw new Error('the run was answered before it was seen being prepared');
      await nextTurn();
    }
    const small = await requestJson(`${server.url}/api/env`);
    order.push(runsPreparing() > 0 ? 'small GET answered while the run was being prepared' : 'small GET answered after preparation');
    expect(small.status).toBe(200);

    const answer = await big;
    expect(answer.status).toBe(201);
    expect(answer.body.queryCount).toBe(bigRun.length);
    expect(order).toEqual(['small GET answered while the run was being prepared', 'big POST answered']);
  } finally {
    await server.close();
  }
}, 120_000);
