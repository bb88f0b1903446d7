// A PGlite store lets the event loop run between its statements: a timer that comes due while a
// long chain of awaited statements runs fires before the chain ends, in and out of a transaction, so
// a request arriving meanwhile is answered between two statements rather than after the chain.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from './store';

let store: Store;
beforeAll(async () => {
  store = await openStore({});
}, 120_000);
afterAll(() => store?.close());

const STATEMENTS = 2_000;

type Execute = (statement: ReturnType<typeof sql>) => Promise<unknown>;

/** Runs 2,000 statements awaited one after another (far longer than a slice); how many had completed when a timer set at the start fired. */
async function timerFiredAfter(chain: (run: (execute: Execute) => Promise<void>) => Promise<void>): Promise<number | undefined> {
  let completed = 0;
  let firedAt: number | undefined;
  const timer = setTimeout(() => (firedAt = completed), 0);
  await chain(async (execute) => {
    for (let i = 0; i < STATEMENTS; i++) {
      await execute(sql`SELECT ${i}::int AS i`);
      completed++;
    }
  });
  clearTimeout(timer);
  return firedAt;
}

it('runs a timer between two statements of a chain', async () => {
  const firedAt = await timerFiredAfter((run) => run((statement) => store.db.execute(statement)));
  expect(firedAt).toBeDefined();
  expect(firedAt!).toBeLessThan(STATEMENTS);
});

it('runs a timer between two statements of a transaction', async () => {
  const firedAt = await timerFiredAfter((run) => store.db.transaction((tx) => run((statement) => tx.execute(statement))));
  expect(firedAt).toBeDefined();
  expect(firedAt!).toBeLessThan(STATEMENTS);
});
