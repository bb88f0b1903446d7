// PGlite runs PostgreSQL inside this process: a statement executes synchronously on the event loop
// and its promise settles as a microtask. A chain of awaited statements (a verdict storing its run,
// its plans and its findings; a job claiming work) would therefore run as one block, and no request
// would be answered until the whole chain ends. A statement that starts after the loop has been held
// for a slice (SLICE_MS) first waits for the loop's next turn, so the loop is never held much longer
// than a slice and one statement: requests are answered in between. Statements within a slice do not
// wait, so short chains (most requests) pay nothing for it.
import type { PGlite, Transaction } from '@electric-sql/pglite';

const SLICE_MS = 10;

/** When the loop last turned, as far as a statement has seen: a slice starts there. */
let sliceStart = performance.now();
let turnWatched = false;

function watchTurn(): void {
  if (turnWatched) return;
  turnWatched = true;
  setImmediate(() => {
    turnWatched = false;
    sliceStart = performance.now();
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const afterTurn =
  (method: (...args: unknown[]) => unknown) =>
  async (...args: unknown[]) => {
    watchTurn();
    if (performance.now() - sliceStart >= SLICE_MS) await nextTurn();
    return method(...args);
  };

/** The statement-running methods of a PGlite instance or of one of its transactions. */
const STATEMENTS = new Set<PropertyKey>(['query', 'exec', 'sql']);

function yieldingStatements<T extends object>(target: T, wrap: (name: PropertyKey, method: (...args: unknown[]) => unknown) => unknown): T {
  // Each method is bound and wrapped once, on its first use: every statement reads one.
  const wrapped = new Map<PropertyKey, { value: unknown; method: unknown }>();
  return new Proxy(target, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name, object);
      if (typeof value !== 'function') return value;
      const known = wrapped.get(name);
      if (known?.value === value) return known.method;
      const method = wrap(name, (value as (...args: unknown[]) => unknown).bind(object));
      wrapped.set(name, { value, method });
      return method;
    },
  });
}

function yieldingTransaction(tx: Transaction): Transaction {
  return yieldingStatements(tx, (name, method) => (STATEMENTS.has(name) ? afterTurn(method) : method));
}

/** The same PGlite instance, its statements (and those of its transactions) started on a later turn of the loop once a slice is used up. */
export function yieldingPglite(client: PGlite): PGlite {
  return yieldingStatements(client, (name, method) => {
    if (STATEMENTS.has(name)) return afterTurn(method);
    if (name === 'transaction')
      return afterTurn((callback) => method((tx: Transaction) => (callback as (tx: Transaction) => unknown)(yieldingTransaction(tx))));
    return method;
  });
}
