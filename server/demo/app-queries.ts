// What the demo's application, "pagila-app", runs: the statements of its pages and jobs as
// pg_stat_statements keeps them ($n parameters). The production workload runs them against the
// demo database with parameters drawn like real traffic; the CI runs report those its test suite
// covers. A few need an index production lacks, so the analysis has something to recommend.

export interface AppQuery {
  name: string;
  sql: string;
  /** Times the production workload runs it. */
  calls: number;
  /** Run by the test suite, so reported by CI runs on main (and the pull request). */
  tested: boolean;
}

/** Parameters drawn from the loaded data (customers' emails, films), so lookups find rows. */
export interface Draw {
  customer(): number;
  film(): number;
  store(): number;
  email(): string;
  rental(): number;
  inventory(): number;
  daysAgo(days: number): Date;
}

type Query = AppQuery & { params: (d: Draw) => unknown[] };

export const APP_QUERIES: Query[] = [
  {
    name: 'film page',
    sql: 'SELECT film_id, title, description, release_year, rental_rate, length, rating FROM film WHERE film_id = $1',
    calls: 300,
    tested: true,
    params: (d) => [d.film()],
  },
  {
    name: 'film cast',
    sql: 'SELECT a.actor_id, a.first_name, a.last_name FROM actor a JOIN film_actor fa ON fa.actor_id = a.actor_id WHERE fa.film_id = $1 ORDER BY a.last_name',
    calls: 200,
    tested: true,
    params: (d) => [d.film()],
  },
  {
    name: 'title search',
    sql: 'SELECT film_id, title, rating FROM film WHERE title LIKE $1 ORDER BY title LIMIT $2',
    calls: 100,
    tested: true,
    params: (d) => [`${['ACADEMY', 'ALIEN', 'BABY', 'ANGELS'][d.film() % 4]}%`, 20],
  },
  {
    name: 'films of a category',
    sql: 'SELECT f.film_id, f.title FROM film f JOIN film_category fc ON fc.film_id = f.film_id WHERE fc.category_id = $1 ORDER BY f.title LIMIT $2',
    calls: 80,
    tested: true,
    params: (d) => [1 + (d.film() % 16), 50],
  },
  {
    name: 'sign-in by email',
    sql: 'SELECT customer_id, first_name, last_name, store_id FROM customer WHERE email = $1 AND activebool',
    calls: 200,
    tested: true,
    params: (d) => [d.email()],
  },
  {
    name: 'rental history',
    sql: `SELECT r.rental_id, r.rental_date, r.return_date, f.title
FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film f ON f.film_id = i.film_id
WHERE r.customer_id = $1 ORDER BY r.rental_date DESC LIMIT $2`,
    calls: 200,
    tested: true,
    params: (d) => [d.customer(), 20],
  },
  {
    name: 'payments of a customer',
    sql: 'SELECT payment_id, amount, payment_date FROM payment WHERE customer_id = $1 ORDER BY payment_date DESC LIMIT $2',
    calls: 150,
    tested: true,
    params: (d) => [d.customer(), 20],
  },
  {
    name: 'copies available in a store',
    sql: `SELECT i.inventory_id FROM inventory i
WHERE i.film_id = $1 AND i.store_id = $2
  AND NOT EXISTS (SELECT 1 FROM rental r WHERE r.inventory_id = i.inventory_id AND r.return_date IS NULL)`,
    calls: 250,
    tested: true,
    params: (d) => [d.film(), d.store()],
  },
  {
    name: 'rent a copy',
    sql: 'INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id) VALUES ($1, $2, $3, $4) RETURNING rental_id',
    calls: 80,
    tested: true,
    params: (d) => [new Date(), d.inventory(), d.customer(), 1 + (d.film() % 8)],
  },
  {
    name: 'return a copy',
    sql: 'UPDATE rental SET return_date = $1, last_update = now() WHERE rental_id = $2',
    calls: 80,
    tested: true,
    params: (d) => [new Date(), d.rental()],
  },
  {
    name: 'take a payment',
    sql: 'INSERT INTO payment (customer_id, staff_id, rental_id, amount, payment_date) VALUES ($1, $2, $3, $4, $5)',
    calls: 80,
    tested: true,
    params: (d) => [d.customer(), 1 + (d.film() % 8), d.rental(), 4.99, new Date()],
  },
  {
    name: 'update profile',
    sql: 'UPDATE customer SET first_name = $1, last_name = $2, last_update = now() WHERE customer_id = $3',
    calls: 30,
    tested: true,
    params: (d) => ['Mary', 'Smith', d.customer()],
  },
  // Back-office reports production runs and the test suite does not cover.
  {
    name: 'overdue rentals',
    sql: `SELECT r.rental_id, r.customer_id, r.rental_date FROM rental r
WHERE r.return_date IS NULL AND r.rental_date < $1 ORDER BY r.rental_date LIMIT $2`,
    calls: 8,
    tested: false,
    params: (d) => [d.daysAgo(14), 100],
  },
  {
    name: 'daily revenue',
    sql: `SELECT date_trunc('day', payment_date) AS day, sum(amount) AS revenue, count(*) AS payments
FROM payment WHERE payment_date >= $1 AND payment_date < $2 GROUP BY 1 ORDER BY 1`,
    calls: 6,
    tested: false,
    params: (d) => [d.daysAgo(30), d.daysAgo(0)],
  },
  {
    name: 'top films this month',
    sql: `SELECT f.film_id, f.title, count(*) AS rentals
FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film f ON f.film_id = i.film_id
WHERE r.rental_date >= $1 GROUP BY f.film_id, f.title ORDER BY rentals DESC LIMIT $2`,
    calls: 4,
    tested: false,
    params: (d) => [d.daysAgo(30), 10],
  },
];

/** Added to the catalog by hand: a yearly report nobody runs in CI or has run in production yet. */
export const MANUAL_QUERY = `SELECT c.customer_id, c.email, max(r.rental_date) AS last_rental
FROM customer c LEFT JOIN rental r ON r.customer_id = c.customer_id
WHERE c.activebool
GROUP BY c.customer_id, c.email
HAVING max(r.rental_date) < now() - interval '180 days' OR max(r.rental_date) IS NULL`;

/** The pull request's new query: the payments of one rental, for the new receipt page. payment has no index on rental_id. */
export const PULL_REQUEST_QUERY = 'SELECT payment_id, amount, payment_date, staff_id FROM payment WHERE rental_id = $1';

/** The index the pull request's migration drops, believing it unused: "copies available in a store" relies on it. */
export const DROPPED_INDEX = 'rental_inventory_id_idx';
