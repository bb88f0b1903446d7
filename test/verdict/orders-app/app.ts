// A small shop application, as the N+1 proof runs it: a few lines of ORM-style models over `pg`,
// the migrations of its database, and its test suite. Two versions of the orders page exist: the
// one on main loads the page's customers in one query; the "refactor" of the pull request reads
// `order.customer` lazily, as an ORM association does, so the page issues one query per order.
// Like an app with sqlcommenter, every statement carries a comment naming the controller, action
// and file that issued it: `/*action='index',controller='orders',file='app%2Fmodels%2Fcustomer.ts%3A12'*/`.
import pg from 'pg';

/** The request being served (Rails' CurrentAttributes, a Node AsyncLocalStorage): set by each page. */
let current = { controller: 'test', action: 'setup' };

/** The statement with its sqlcommenter comment: keys sorted, values URL-encoded, as sqlcommenter specifies. */
function tagged(sql: string, file: string): string {
  const tags = { action: current.action, controller: current.controller, file };
  const comment = Object.entries(tags)
    .map(([key, value]) => `${key}='${encodeURIComponent(value)}'`)
    .join(',');
  return `${sql} /*${comment}*/`;
}

/** Where each model's statements come from, as the app's sqlcommenter plugin would report it. */
export const SOURCE = {
  customerFind: 'app/models/customer.ts:41',
  customerFindAll: 'app/models/customer.ts:47',
  orderRecent: 'app/models/order.ts:60',
} as const;

export const MIGRATIONS = [
  'CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL)',
  `CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id),
     total_cents int NOT NULL, created_at timestamptz NOT NULL)`,
  'CREATE INDEX orders_customer_id_idx ON orders (customer_id)',
];

/** The rows a fixture (or production) holds: `customers` customers, `orders` orders spread over them. */
export const seedStatements = (customers: number, orders: number) => [
  `INSERT INTO customers SELECT g, 'Customer ' || g, 'c' || g || '@example.com' FROM generate_series(1, ${customers}) g`,
  `INSERT INTO orders SELECT g, 1 + g % ${customers}, (g * 37) % 10000, timestamptz '2026-01-01' - g * interval '1 hour'
   FROM generate_series(1, ${orders}) g`,
];

interface CustomerRow {
  id: number;
  name: string;
  email: string;
}

interface OrderRow {
  id: string;
  customer_id: number;
  total_cents: number;
}

/** The models: each finder is one parameterized statement, as an ORM sends it. */
class Customer {
  constructor(readonly row: CustomerRow) {}

  static async find(db: pg.ClientBase, id: number): Promise<Customer> {
    const { rows } = await db.query<CustomerRow>(tagged('SELECT id, name, email FROM customers WHERE id = $1', SOURCE.customerFind), [id]);
    return new Customer(rows[0]!);
  }

  /** Eager loading: the customers of many rows in one statement (`includes(:customer)`). */
  static async findAll(db: pg.ClientBase, ids: number[]): Promise<Map<number, Customer>> {
    const { rows } = await db.query<CustomerRow>(tagged('SELECT id, name, email FROM customers WHERE id = ANY($1)', SOURCE.customerFindAll), [ids]);
    return new Map(rows.map((row) => [row.id, new Customer(row)]));
  }
}

class Order {
  private loaded?: Customer;
  constructor(
    private readonly db: pg.ClientBase,
    readonly row: OrderRow,
  ) {}

  static async recent(db: pg.ClientBase, limit: number): Promise<Order[]> {
    const { rows } = await db.query<OrderRow>(tagged('SELECT id, customer_id, total_cents FROM orders ORDER BY created_at DESC LIMIT $1', SOURCE.orderRecent), [
      limit,
    ]);
    return rows.map((row) => new Order(db, row));
  }

  /** The association, read on first use: a statement per order unless preloaded. */
  async customer(): Promise<Customer> {
    this.loaded ??= await Customer.find(this.db, this.row.customer_id);
    return this.loaded;
  }

  preload(customer: Customer | undefined) {
    this.loaded = customer;
  }
}

export type Version = 'main' | 'refactor';

/** The orders page: one line per recent order with its customer's name. */
export async function ordersPage(db: pg.ClientBase, version: Version, perPage = 100): Promise<string[]> {
  current = { controller: 'orders', action: 'index' };
  const orders = await Order.recent(db, perPage);
  if (version === 'main') {
    const customers = await Customer.findAll(db, [...new Set(orders.map((o) => o.row.customer_id))]);
    for (const order of orders) order.preload(customers.get(order.row.customer_id));
  }
  // the refactor dropped the preload above: each order now reads its customer itself
  const lines: string[] = [];
  for (const order of orders) lines.push(`#${order.row.id} ${(await order.customer()).row.name} ${order.row.total_cents}`);
  return lines;
}

/** The customer page. */
export async function customerPage(db: pg.ClientBase, id: number): Promise<string> {
  current = { controller: 'customers', action: 'show' };
  const customer = await Customer.find(db, id);
  return `${customer.row.name} <${customer.row.email}>`;
}

/**
 * The application's test suite, as CI runs it against its database: two orders pages of 100
 * orders, then three customer pages. Returns what the pages showed, so a test can check both
 * versions agree. (pg_stat_statements keeps the first text of each statement: the order of the
 * tests decides which call site a statement shows.)
 */
export async function runTestSuite(db: pg.ClientBase, version: Version): Promise<string[]> {
  const shown: string[] = [];
  for (let page = 0; page < 2; page++) shown.push(...(await ordersPage(db, version)));
  for (const id of [1, 2, 3]) shown.push(await customerPage(db, id));
  return shown;
}
