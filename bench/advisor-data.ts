// Data and workload of the advisor benchmark: Pagila filled with skewed generated rows, a jsonb
// table Pagila lacks, ten indexes the workload needs, and 55 queries that use them or not.

/** Generated rows, each statement run with session_replication_role = replica (no FK checks or triggers). Power laws (random() ^ k) give hot customers, popular films, recent dates. */
export const LOAD_SQL = [
  `INSERT INTO language (language_id, name) SELECT g, (ARRAY['English','Italian','Japanese','Mandarin','French','German'])[g] FROM generate_series(1, 6) g`,
  `INSERT INTO category (category_id, name) SELECT g, 'Category ' || g FROM generate_series(1, 16) g`,
  `INSERT INTO country (country_id, country) SELECT g, 'Country ' || g FROM generate_series(1, 109) g`,
  `INSERT INTO city (city_id, city, country_id) SELECT g, 'City ' || g, 1 + g % 109 FROM generate_series(1, 2000) g`,
  `INSERT INTO address (address_id, address, district, city_id, postal_code, phone)
     SELECT g, g || ' Main Street', 'District ' || g % 300, 1 + floor(1999 * random() ^ 2)::int, lpad((g % 99999)::text, 5, '0'), '555' || g
     FROM generate_series(1, 300000) g`,
  `INSERT INTO actor (actor_id, first_name, last_name) SELECT g, 'First' || g % 500, 'Last' || g % 2000 FROM generate_series(1, 20000) g`,
  `INSERT INTO film (film_id, title, description, release_year, language_id, rental_duration, rental_rate, length, replacement_cost, rating, special_features, fulltext)
     SELECT g, 'Film ' || g, 'A story number ' || g, 1990 + floor(35 * random() ^ 0.5)::int, 1 + g % 6, 3 + g % 5, 0.99 + g % 5, 46 + g % 140,
       9.99 + g % 20, (enum_range(NULL::mpaa_rating))[1 + floor(5 * random() ^ 1.5)::int],
       (CASE g % 4 WHEN 0 THEN '{Trailers}' WHEN 1 THEN '{Commentaries,"Deleted Scenes"}' WHEN 2 THEN '{"Behind the Scenes"}' ELSE '{Trailers,"Behind the Scenes"}' END)::text[],
       to_tsvector('simple', 'Film ' || g)
     FROM generate_series(1, 50000) g`,
  `INSERT INTO film_actor (actor_id, film_id) SELECT 1 + g % 20000, 1 + (g * 7919) % 50000 FROM generate_series(1, 250000) g ON CONFLICT DO NOTHING`,
  `INSERT INTO film_category (film_id, category_id) SELECT g, 1 + floor(16 * random() ^ 2)::int FROM generate_series(1, 50000) g`,
  `INSERT INTO staff (staff_id, first_name, last_name, address_id, email, store_id, username) SELECT g, 'Staff' || g, 'Member' || g, g, 's' || g || '@example.com', g, 'staff' || g FROM generate_series(1, 100) g`,
  `INSERT INTO store (store_id, manager_staff_id, address_id) SELECT g, g, g FROM generate_series(1, 100) g`,
  `INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, activebool, create_date, active)
     SELECT g, 1 + floor(100 * random() ^ 2)::int, 'F' || g % 3000, 'L' || g % 20000, 'c' || g || '@example.com', 1 + g % 300000, g % 20 <> 0,
       date '2025-12-31' - floor(3650 * random() ^ 3)::int, (g % 20 <> 0)::int
     FROM generate_series(1, 600000) g`,
  `INSERT INTO inventory (inventory_id, film_id, store_id) SELECT g, 1 + floor(49999 * random() ^ 3)::int, 1 + g % 100 FROM generate_series(1, 1500000) g`,
  `INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id)
     SELECT g, d, 1 + floor(1499999 * random() ^ 2)::int, 1 + floor(599999 * random() ^ 2.5)::int,
       CASE WHEN g % 60 = 0 THEN NULL ELSE d + (1 + g % 9) * interval '1 day' END, 1 + g % 100
     FROM (SELECT g, timestamptz '2022-01-01' + (random() ^ 0.7) * interval '1400 days' AS d FROM generate_series(1, 5000000) g) s`,
  `INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date)
     SELECT g, 1 + floor(599999 * random() ^ 2.5)::int, 1 + g % 100, 1 + (g * 7) % 5000000, (0.99 + floor(random() ^ 2 * 10))::numeric(5, 2),
       timestamptz '2022-01-01' + (random() ^ 0.7) * interval '1400 days'
     FROM generate_series(1, 4000000) g`,
  `CREATE TABLE customer_event (event_id bigint PRIMARY KEY, customer_id int NOT NULL, kind text NOT NULL, payload jsonb NOT NULL,
     tags text[] NOT NULL, created_at timestamptz NOT NULL)`,
  `INSERT INTO customer_event
     SELECT g, 1 + floor(599999 * random() ^ 2.5)::int, k,
       jsonb_build_object('type', k, 'channel', (ARRAY['web','ios','android','store'])[1 + g % 4], 'priority', g % 5, 'v', g % 1000),
       ARRAY['t' || g % 50, 't' || (g * 7) % 53], timestamptz '2025-12-31' - (random() ^ 3) * interval '700 days'
     FROM (SELECT g, CASE WHEN g % 100 = 0 THEN 'refund' WHEN g % 10 = 0 THEN 'purchase' WHEN g % 3 = 0 THEN 'review' ELSE 'login' END AS k
           FROM generate_series(1, 2000000) g) s`,
  // Views the application reads through: one with a join, one with a condition, one on that one, one renaming columns.
  `CREATE VIEW customer_rentals AS SELECT r.rental_id, r.rental_date, r.return_date, r.customer_id, r.staff_id, i.film_id
     FROM rental r JOIN inventory i USING (inventory_id)`,
  `CREATE VIEW open_rentals AS SELECT rental_id, customer_id, rental_date, staff_id FROM rental WHERE return_date IS NULL`,
  `CREATE VIEW recent_open_rentals AS SELECT * FROM open_rentals WHERE rental_date > '2024-01-01'`,
  `CREATE VIEW customer_events AS SELECT event_id, customer_id, kind, created_at AS at FROM customer_event`,
];

/** The ten indexes the workload needs: dropped before the advisor runs, which must find them. */
export const WORKLOAD_INDEXES: { name: string; sql: string; table: string; am: 'btree' | 'gin'; keys: string[]; predicate: string | null; kind: string }[] = [
  {
    name: 'w_rental_customer_date',
    sql: 'CREATE INDEX w_rental_customer_date ON rental (customer_id, rental_date)',
    table: 'rental',
    am: 'btree',
    keys: ['customer_id', 'rental_date'],
    predicate: null,
    kind: 'multi-column',
  },
  {
    name: 'w_payment_customer',
    sql: 'CREATE INDEX w_payment_customer ON payment (customer_id)',
    table: 'payment',
    am: 'btree',
    keys: ['customer_id'],
    predicate: null,
    kind: 'partitioned',
  },
  {
    name: 'w_rental_open',
    sql: 'CREATE INDEX w_rental_open ON rental (rental_date) WHERE return_date IS NULL',
    table: 'rental',
    am: 'btree',
    keys: ['rental_date'],
    predicate: 'return_date IS NULL',
    kind: 'partial',
  },
  {
    name: 'w_inventory_film',
    sql: 'CREATE INDEX w_inventory_film ON inventory (film_id)',
    table: 'inventory',
    am: 'btree',
    keys: ['film_id'],
    predicate: null,
    kind: 'single',
  },
  {
    name: 'w_event_payload',
    sql: 'CREATE INDEX w_event_payload ON customer_event USING gin (payload)',
    table: 'customer_event',
    am: 'gin',
    keys: ['payload'],
    predicate: null,
    kind: 'GIN jsonb',
  },
  {
    name: 'w_event_customer_created',
    sql: 'CREATE INDEX w_event_customer_created ON customer_event (customer_id, created_at)',
    table: 'customer_event',
    am: 'btree',
    keys: ['customer_id', 'created_at'],
    predicate: null,
    kind: 'multi-column',
  },
  {
    name: 'w_customer_create_date',
    sql: 'CREATE INDEX w_customer_create_date ON customer (create_date)',
    table: 'customer',
    am: 'btree',
    keys: ['create_date'],
    predicate: null,
    kind: 'single',
  },
  {
    name: 'w_customer_email',
    sql: 'CREATE INDEX w_customer_email ON customer (email) INCLUDE (first_name, last_name)',
    table: 'customer',
    am: 'btree',
    keys: ['email'],
    predicate: null,
    kind: 'INCLUDE',
  },
  {
    name: 'w_payment_rental',
    sql: 'CREATE INDEX w_payment_rental ON payment (rental_id)',
    table: 'payment',
    am: 'btree',
    keys: ['rental_id'],
    predicate: null,
    kind: 'partitioned',
  },
  {
    name: 'w_film_year_rating',
    sql: 'CREATE INDEX w_film_year_rating ON film (release_year, rating)',
    table: 'film',
    am: 'btree',
    keys: ['release_year', 'rating'],
    predicate: null,
    kind: 'multi-column',
  },
];

/** [label, SQL, production calls]. */
export const WORKLOAD: [string, string, number][] = [
  [
    'rentals of a customer, latest first',
    `SELECT rental_id, rental_date, return_date FROM rental WHERE customer_id = $1 ORDER BY rental_date DESC LIMIT 10`,
    50000,
  ],
  ['rentals of a customer since', `SELECT count(*) FROM rental WHERE customer_id = $1 AND rental_date >= $2`, 8000],
  ['payments total of a customer', `SELECT sum(amount) FROM payment WHERE customer_id = $1`, 20000],
  ['payments of a customer, latest', `SELECT payment_id, amount, payment_date FROM payment WHERE customer_id = $1 ORDER BY payment_date DESC LIMIT 20`, 15000],
  ['open rentals, oldest first', `SELECT rental_id, customer_id, rental_date FROM rental WHERE return_date IS NULL ORDER BY rental_date LIMIT 50`, 3000],
  ['overdue open rentals', `SELECT count(*) FROM rental WHERE return_date IS NULL AND rental_date < now() - interval '30 days'`, 1000],
  ['copies of a film', `SELECT inventory_id, store_id FROM inventory WHERE film_id = $1`, 40000],
  ['copies of a film by title', `SELECT f.title, count(*) FROM inventory i JOIN film f USING (film_id) WHERE f.film_id = $1 GROUP BY f.title`, 5000],
  ['refund events from ios', `SELECT event_id, created_at FROM customer_event WHERE payload @> '{"type": "refund", "channel": "ios"}'`, 500],
  ['events matching a document', `SELECT count(*) FROM customer_event WHERE payload @> $1::jsonb`, 2000],
  ['recent events of a customer', `SELECT * FROM customer_event WHERE customer_id = $1 AND created_at > $2 ORDER BY created_at`, 30000],
  ['event kinds of a customer', `SELECT kind, count(*) FROM customer_event WHERE customer_id = $1 GROUP BY kind`, 4000],
  ['customers created between', `SELECT customer_id, email FROM customer WHERE create_date BETWEEN $1 AND $2`, 300],
  ['store customers created since', `SELECT count(*) FROM customer WHERE create_date > $1 AND store_id = $2`, 200],
  ['customer by email', `SELECT first_name, last_name FROM customer WHERE email = $1`, 60000],
  ['customers by emails', `SELECT customer_id FROM customer WHERE email = ANY($1)`, 2000],
  ['payments of a rental', `SELECT p.amount, p.payment_date FROM payment p WHERE p.rental_id = $1`, 25000],
  [
    'rentals and payments of a customer',
    `SELECT r.rental_date, p.amount FROM rental r JOIN payment p ON p.rental_id = r.rental_id WHERE r.customer_id = $1`,
    3000,
  ],
  ['films of a year and rating', `SELECT film_id, title FROM film WHERE release_year = $1 AND rating = $2`, 10000],
  ['PG-13 films of a year', `SELECT count(*) FROM film WHERE release_year = $1 AND rating = 'PG-13'`, 1000],
  ['customer by id', `SELECT * FROM customer WHERE customer_id = $1`, 100000],
  ['film by title', `SELECT * FROM film WHERE title = $1`, 20000],
  [
    'customers by last name with phone',
    `SELECT c.first_name, c.last_name, a.phone FROM customer c JOIN address a USING (address_id) WHERE c.last_name = $1`,
    5000,
  ],
  ['films of an actor', `SELECT f.title FROM film f JOIN film_actor fa USING (film_id) WHERE fa.actor_id = $1`, 8000],
  ['actors of a film', `SELECT a.first_name, a.last_name FROM actor a JOIN film_actor fa USING (actor_id) WHERE fa.film_id = $1`, 8000],
  ['films per category', `SELECT c.name, count(*) FROM film_category fc JOIN category c USING (category_id) GROUP BY c.name ORDER BY 2 DESC`, 50],
  ['customers per store', `SELECT store_id, count(*) FROM customer GROUP BY store_id`, 20],
  [
    'monthly revenue, first half 2024',
    `SELECT date_trunc('month', payment_date) AS m, sum(amount) FROM payment WHERE payment_date >= '2024-01-01' AND payment_date < '2024-07-01' GROUP BY 1 ORDER BY 1`,
    30,
  ],
  ['revenue between dates', `SELECT sum(amount) FROM payment WHERE payment_date BETWEEN $1 AND $2`, 100],
  ['rental by id', `SELECT * FROM rental WHERE rental_id = $1`, 80000],
  [
    'rental with film title',
    `SELECT r.rental_id, f.title FROM rental r JOIN inventory i USING (inventory_id) JOIN film f USING (film_id) WHERE r.rental_id = $1`,
    20000,
  ],
  ['rentals in January 2025', `SELECT count(*) FROM rental WHERE rental_date >= '2025-01-01' AND rental_date < '2025-02-01'`, 20],
  ['top renting customers', `SELECT customer_id, count(*) FROM rental GROUP BY customer_id ORDER BY 2 DESC LIMIT 10`, 10],
  ['average length per rating', `SELECT f.rating, avg(f.length) FROM film f GROUP BY f.rating`, 10],
  ['films with trailers', `SELECT film_id, title FROM film WHERE special_features && ARRAY['Trailers']`, 200],
  ['long family films', `SELECT film_id FROM film WHERE rating IN ('G', 'PG') AND length > 150`, 100],
  ['addresses per city', `SELECT city.city, count(*) FROM address JOIN city USING (city_id) GROUP BY city.city ORDER BY 2 DESC LIMIT 20`, 10],
  [
    'full address',
    `SELECT a.address, ci.city, co.country FROM address a JOIN city ci USING (city_id) JOIN country co USING (country_id) WHERE a.address_id = $1`,
    30000,
  ],
  ['inventory per store', `SELECT s.store_id, count(*) FROM inventory i JOIN store s USING (store_id) GROUP BY s.store_id`, 10],
  ['copies of a film in a store', `SELECT * FROM inventory WHERE store_id = $1 AND film_id = $2`, 20000],
  ['refund count', `SELECT count(*) FROM customer_event WHERE kind = 'refund'`, 100],
  ['event kinds last week', `SELECT kind, count(*) FROM customer_event WHERE created_at >= now() - interval '7 days' GROUP BY kind`, 50],
  ['events with a tag', `SELECT event_id FROM customer_event WHERE tags @> ARRAY['t7']`, 100],
  [
    'top customers of a store',
    `SELECT c.customer_id, sum(p.amount) FROM customer c JOIN payment p USING (customer_id) WHERE c.store_id = $1 GROUP BY c.customer_id ORDER BY 2 DESC LIMIT 10`,
    20,
  ],
  ['staff by id', `SELECT * FROM staff WHERE staff_id = $1`, 5000],
  ['films per language', `SELECT l.name, count(*) FROM film f JOIN language l USING (language_id) GROUP BY l.name`, 10],
  ['films stocked in a store', `SELECT f.title FROM film f WHERE f.film_id IN (SELECT film_id FROM inventory WHERE store_id = $1) LIMIT 100`, 500],
  [
    'customers with open rentals',
    `SELECT c.email FROM customer c WHERE EXISTS (SELECT 1 FROM rental r WHERE r.customer_id = c.customer_id AND r.return_date IS NULL) LIMIT 100`,
    200,
  ],
  ['last rental per customer of a clerk', `SELECT r.customer_id, max(r.rental_date) FROM rental r WHERE r.staff_id = $1 GROUP BY r.customer_id LIMIT 50`, 50],
  ['paying customers since', `SELECT count(DISTINCT customer_id) FROM payment WHERE payment_date >= $1`, 20],
  ['customers by name prefix', `SELECT c.last_name, c.first_name FROM customer c WHERE c.last_name LIKE 'L12%' ORDER BY 1, 2 LIMIT 20`, 1000],
  ['most expensive films', `SELECT f.title, f.rental_rate FROM film f ORDER BY f.rental_rate DESC, f.title LIMIT 10`, 300],
  [
    'best customers of the quarter',
    `WITH recent AS (SELECT customer_id, count(*) AS n FROM rental WHERE rental_date > now() - interval '90 days' GROUP BY customer_id) SELECT c.email, r.n FROM recent r JOIN customer c USING (customer_id) ORDER BY r.n DESC LIMIT 10`,
    20,
  ],
  ['events per channel since', `SELECT payload ->> 'channel' AS ch, count(*) FROM customer_event WHERE created_at > $1 GROUP BY 1`, 50],
  ['payments taken by a clerk since', `SELECT p.payment_id FROM payment p WHERE p.staff_id = $1 AND p.payment_date > $2`, 300],
  // What the planner sees through: views, CTEs, subqueries, LATERAL; sorts by position, alias, mixed directions.
  [
    'rentals of a customer through a view with a join',
    `SELECT rental_id, rental_date FROM customer_rentals WHERE customer_id = $1 ORDER BY rental_date DESC LIMIT 10`,
    5000,
  ],
  ['open rentals of a customer through nested views', `SELECT rental_id FROM recent_open_rentals WHERE customer_id = $1`, 3000],
  [
    'latest events of a kind through a view, by alias',
    `SELECT event_id, at FROM customer_events WHERE kind = $1 AND customer_id = $2 ORDER BY at DESC LIMIT 20`,
    4000,
  ],
  [
    'payments total of a customer, inlined CTE',
    `WITH c AS (SELECT payment_id, customer_id, amount FROM payment) SELECT sum(amount) FROM c WHERE customer_id = $1`,
    3000,
  ],
  [
    'recent events of a customer, NOT MATERIALIZED CTE',
    `WITH e AS NOT MATERIALIZED (SELECT * FROM customer_event) SELECT event_id FROM e WHERE customer_id = $1 AND created_at > $2`,
    3000,
  ],
  [
    'films of a rating behind a MATERIALIZED CTE',
    `WITH f AS MATERIALIZED (SELECT film_id, title, rating FROM film) SELECT title FROM f WHERE rating = $1`,
    100,
  ],
  ['copies of a film, subquery in FROM', `SELECT s.inventory_id FROM (SELECT inventory_id, film_id AS f FROM inventory) s WHERE s.f = $1`, 4000],
  [
    'last rental of each customer of a store, LATERAL',
    `SELECT c.customer_id, l.rental_date FROM customer c CROSS JOIN LATERAL (SELECT rental_date FROM rental r WHERE r.customer_id = c.customer_id ORDER BY rental_date DESC LIMIT 1) l WHERE c.store_id = $1 LIMIT 20`,
    200,
  ],
  ['latest payments of a customer, ORDER BY position', `SELECT payment_date, amount FROM payment WHERE customer_id = $1 ORDER BY 1 DESC LIMIT 5`, 6000],
  ['latest events of a customer, SELECT * ORDER BY position', `SELECT * FROM customer_event WHERE customer_id = $1 ORDER BY 6 DESC LIMIT 10`, 6000],
  ['rentals of a clerk, mixed directions', `SELECT rental_id FROM rental WHERE staff_id = $1 ORDER BY customer_id DESC, rental_date LIMIT 20`, 500],
  [
    'latest payments taken by a clerk, equality and sort',
    `SELECT payment_id, amount FROM payment WHERE staff_id = $1 ORDER BY payment_date DESC LIMIT 20`,
    2000,
  ],
  ['rentals since a date, range and sort', `SELECT rental_id FROM rental WHERE rental_date > $1 ORDER BY rental_date LIMIT 20`, 1000],
];
