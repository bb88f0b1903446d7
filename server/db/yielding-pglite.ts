// PGlite runs PostgreSQL inside this process: a statement executes synchronously on the event loop
// and its promise settles as a microtask. A chain of awaited statements (a verdict storing its run,
// its plans and its findings; a job claiming work) therefore runs as one block, and no request is
// answered until the whole chain ends. Every statement first waits for the loop's next turn, so the
// loop is never held longer than one statement: requests are answered between them.
import type { PGlite, Transaction } from '@electric-sql/pglite';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const afterTurn =
  (method: (...args: unknown[]) => unknown) =>
  async (...args: unknown[]) => {
    await nextTurn();
    return method(...args);
  };

/** The statement-running methods of a PGlite instance or of one of its transactions. */
const STATEMENTS = new Set<PropertyKey>(['query', 'exec', 'sql']);

function yieldingStatements<T extends object>(target: T, wrap: (name: PropertyKey, method: (...args: unknown[]) => unknown) => unknown): T {
  return new Proxy(target, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name, object);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(object);
      return wrap(name, method);
    },
  });
}

function yieldingTransaction(tx: Transaction): Transaction {
  return yieldingStatements(tx, (name, method) => (STATEMENTS.has(name) ? afterTurn(method) : method));
}

/** The same PGlite instance, its statements (and those of its transactions) started on a later turn of the loop. */
export function yieldingPglite(client: PGlite): PGlite {
  return yieldingStatements(client, (name, method) => {
    if (STATEMENTS.has(name)) return afterTurn(method);
    if (name === 'transaction')
      return async (callback: (tx: Transaction) => Promise<unknown>) => {
        await nextTurn();
        return method((tx: Transaction) => callback(yieldingTransaction(tx)));
      };
    return method;
  });
}
