// The analytic workload's queries (schema.ts): reports over the star with joins, grouping, ranges
// and sorting, each with the calls a reporting tool would make of it.

/** [label, SQL, calls]. */
export const ANALYTIC_WORKLOAD: [string, string, number][] = [
  [
    'revenue by month of a year',
    `SELECT d.month, sum(s.quantity * s.unit_price) AS revenue FROM sales s JOIN date_dim d ON d.date_id = s.date_id
     WHERE d.year = 2024 GROUP BY d.month ORDER BY d.month`,
    20,
  ],
  [
    'top products of a category in a quarter',
    `SELECT p.product_id, p.name, sum(s.quantity * s.unit_price) AS revenue
     FROM sales s JOIN product p ON p.product_id = s.product_id JOIN category c ON c.category_id = p.category_id
     WHERE c.name = 'Category 42' AND s.date_id BETWEEN 20250101 AND 20250331
     GROUP BY p.product_id, p.name ORDER BY revenue DESC LIMIT 10`,
    60,
  ],
  [
    'revenue by region of the stores in a month',
    `SELECT r.name, sum(s.quantity * s.unit_price) AS revenue FROM sales s JOIN store st ON st.store_id = s.store_id JOIN region r ON r.region_id = st.region_id
     WHERE s.date_id BETWEEN 20251101 AND 20251130 GROUP BY r.name ORDER BY revenue DESC`,
    40,
  ],
  [
    'enterprise customers by region since a date',
    `SELECT c.region_id, count(DISTINCT c.customer_id) AS buyers, sum(s.quantity) AS units FROM sales s JOIN customer c ON c.customer_id = s.customer_id
     WHERE c.segment = 'enterprise' AND s.date_id >= 20251201 GROUP BY c.region_id ORDER BY units DESC`,
    15,
  ],
  [
    'clearance promotions by units',
    `SELECT p.promo_id, p.name, sum(s.quantity) AS units FROM sales s JOIN promotion p ON p.promo_id = s.promo_id
     WHERE p.kind = 'clearance' AND s.date_id >= 20250601 GROUP BY p.promo_id, p.name ORDER BY units DESC LIMIT 20`,
    10,
  ],
  [
    "a customer's latest purchases",
    `SELECT s.sale_id, s.date_id, p.name, s.quantity FROM sales s JOIN product p ON p.product_id = s.product_id
     WHERE s.customer_id = 4242 ORDER BY s.date_id DESC LIMIT 20`,
    3000,
  ],
  [
    'daily sales of a store in a month',
    `SELECT s.date_id, count(*) AS tickets, sum(s.quantity * s.unit_price) AS revenue FROM sales s JOIN store st ON st.store_id = s.store_id
     WHERE st.store_id = 17 AND s.date_id BETWEEN 20250301 AND 20250331 GROUP BY s.date_id ORDER BY s.date_id`,
    800,
  ],
  [
    'bulk orders by store since a date',
    `SELECT st.city, count(*) AS orders FROM sales s JOIN store st ON st.store_id = s.store_id
     WHERE s.quantity >= 45 AND s.date_id >= 20250101 GROUP BY st.city ORDER BY orders DESC LIMIT 25`,
    30,
  ],
  [
    'a brand by channel in a price band',
    `SELECT s.channel, sum(s.quantity) AS units FROM sales s JOIN product p ON p.product_id = s.product_id
     WHERE p.brand = 'Brand 12' AND s.unit_price BETWEEN 100 AND 200 GROUP BY s.channel ORDER BY s.channel`,
    50,
  ],
  [
    'weekend and weekday by department in a month',
    `SELECT c.department, d.is_weekend, sum(s.quantity * s.unit_price) AS revenue
     FROM sales s JOIN date_dim d ON d.date_id = s.date_id JOIN product p ON p.product_id = s.product_id JOIN category c ON c.category_id = p.category_id
     WHERE d.year = 2025 AND d.month = 6 GROUP BY c.department, d.is_weekend ORDER BY c.department, d.is_weekend`,
    12,
  ],
  [
    "new customers' spend in their first month",
    `SELECT c.customer_id, c.name, sum(s.quantity * s.unit_price) AS spend FROM customer c JOIN sales s ON s.customer_id = c.customer_id
     WHERE c.signup_date BETWEEN date '2025-01-01' AND date '2025-01-31' AND s.date_id BETWEEN 20250101 AND 20250228
     GROUP BY c.customer_id, c.name ORDER BY spend DESC LIMIT 50`,
    25,
  ],
  [
    "a product's units by month",
    `SELECT d.year, d.month, sum(s.quantity) AS units FROM sales s JOIN date_dim d ON d.date_id = s.date_id
     WHERE s.product_id = 123 GROUP BY d.year, d.month ORDER BY d.year, d.month`,
    1500,
  ],
  [
    'deep discounts by zone',
    `SELECT r.zone, count(*) AS sales, avg(s.discount) AS discount FROM sales s JOIN store st ON st.store_id = s.store_id JOIN region r ON r.region_id = st.region_id
     WHERE s.discount > 0.45 GROUP BY r.zone ORDER BY sales DESC`,
    8,
  ],
  [
    'holiday revenue by year',
    `SELECT d.year, sum(s.quantity * s.unit_price) AS revenue FROM sales s JOIN date_dim d ON d.date_id = s.date_id
     WHERE d.is_holiday AND d.year >= 2023 GROUP BY d.year ORDER BY d.year`,
    5,
  ],
  [
    "channel mix of a region's stores in a quarter",
    `SELECT s.channel, count(*) AS sales FROM sales s JOIN store st ON st.store_id = s.store_id
     WHERE st.region_id = 3 AND s.date_id BETWEEN 20250401 AND 20250630 GROUP BY s.channel ORDER BY s.channel`,
    40,
  ],
  [
    'top customers of a region in a year',
    `SELECT c.customer_id, c.name, sum(s.quantity * s.unit_price) AS spend FROM sales s JOIN customer c ON c.customer_id = s.customer_id
     WHERE c.region_id = 5 AND s.date_id BETWEEN 20250101 AND 20251231 GROUP BY c.customer_id, c.name ORDER BY spend DESC LIMIT 20`,
    20,
  ],
  [
    'heavy products sold with a promotion in a week',
    `SELECT p.product_id, sum(s.quantity * p.weight_g) / 1000 AS kg FROM sales s JOIN product p ON p.product_id = s.product_id
     WHERE s.promo_id IS NOT NULL AND s.date_id BETWEEN 20251215 AND 20251221 AND p.weight_g > 15000 GROUP BY p.product_id ORDER BY kg DESC LIMIT 10`,
    100,
  ],
  [
    'sales of a store and product',
    `SELECT s.date_id, s.quantity, s.unit_price FROM sales s WHERE s.store_id = 3 AND s.product_id = 77 ORDER BY s.date_id DESC LIMIT 50`,
    2000,
  ],
];
