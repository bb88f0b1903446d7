// An analytic workload of our own for bench:advisor's index selection: a retail star schema (one
// fact table, sales, and its dimensions; product and customer snowflake into category and region),
// generated with generate_series and no random(): the same rows every run. At scale 1 the data is
// about 1 GB, nearly all of it sales (~12 million rows); a smaller scale shrinks the fact table
// and the large dimensions alike, for development.

/** Rows of sales at scale 1. */
const SALES = 12_000_000;

export const ANALYTIC_DDL = `
CREATE TABLE region (region_id int PRIMARY KEY, name text NOT NULL, zone text NOT NULL);
CREATE TABLE category (category_id int PRIMARY KEY, name text NOT NULL, department text NOT NULL);
CREATE TABLE date_dim (
  date_id int PRIMARY KEY, d date NOT NULL, year int NOT NULL, quarter int NOT NULL, month int NOT NULL,
  day_of_week int NOT NULL, is_weekend boolean NOT NULL, is_holiday boolean NOT NULL);
CREATE TABLE store (store_id int PRIMARY KEY, city text NOT NULL, region_id int NOT NULL REFERENCES region, size_sqm int NOT NULL, opened date NOT NULL);
CREATE TABLE promotion (promo_id int PRIMARY KEY, name text NOT NULL, kind text NOT NULL, discount_pct int NOT NULL);
CREATE TABLE product (
  product_id int PRIMARY KEY, name text NOT NULL, category_id int NOT NULL REFERENCES category, brand text NOT NULL,
  list_price numeric(10,2) NOT NULL, weight_g int NOT NULL);
CREATE TABLE customer (
  customer_id int PRIMARY KEY, name text NOT NULL, segment text NOT NULL, region_id int NOT NULL REFERENCES region,
  birth_year int NOT NULL, signup_date date NOT NULL);
CREATE TABLE sales (
  sale_id bigint PRIMARY KEY, date_id int NOT NULL REFERENCES date_dim, store_id int NOT NULL REFERENCES store,
  product_id int NOT NULL REFERENCES product, customer_id int NOT NULL REFERENCES customer, promo_id int REFERENCES promotion,
  channel smallint NOT NULL, quantity int NOT NULL, unit_price numeric(10,2) NOT NULL, discount numeric(4,2) NOT NULL);
`;

/** The rows at `scale` (1: ~1 GB). A pseudo-random but fixed value per row comes from hashing its number. */
export function analyticLoadSql(scale: number): string[] {
  const sales = Math.round(SALES * scale);
  const customers = Math.max(1000, Math.round(400_000 * scale));
  const products = Math.max(500, Math.round(50_000 * scale));
  // u(g, k): a fixed number in [0, 1) for row g, salt k
  const u = (g: string, k: number) => `((hashint8extended(${g}::bigint, ${k}) & 2147483647)::float8 / 2147483648)`;
  return [
    `INSERT INTO region SELECT g, 'Region ' || g, (ARRAY['north','south','east','west'])[1 + g % 4] FROM generate_series(1, 20) g`,
    `INSERT INTO category SELECT g, 'Category ' || g, 'Dept ' || (1 + g % 8) FROM generate_series(1, 60) g`,
    `INSERT INTO date_dim
       SELECT to_char(d, 'YYYYMMDD')::int, d, extract(year FROM d), extract(quarter FROM d), extract(month FROM d),
              extract(isodow FROM d), extract(isodow FROM d) >= 6, to_char(d, 'MM-DD') IN ('01-01', '05-01', '07-14', '11-11', '12-24', '12-25', '12-31')
       FROM generate_series(date '2016-01-01', date '2025-12-31', interval '1 day') d`,
    `INSERT INTO store SELECT g, 'City ' || (g % 300), 1 + g % 20, 200 + (g * 37) % 5000, date '2000-01-01' + (g * 13) % 8000 FROM generate_series(1, 800) g`,
    `INSERT INTO promotion SELECT g, 'Promo ' || g, (ARRAY['clearance','seasonal','loyalty','bundle','launch'])[1 + g % 5], 5 + g % 40 FROM generate_series(1, 400) g`,
    `INSERT INTO product
       SELECT g, 'Product ' || g, 1 + floor(60 * ${u('g', 1)} ^ 2)::int, 'Brand ' || (1 + floor(300 * ${u('g', 2)})::int),
              round((2 + 500 * ${u('g', 3)} ^ 3)::numeric, 2), 10 + floor(20000 * ${u('g', 4)})::int
       FROM generate_series(1, ${products}) g`,
    `INSERT INTO customer
       SELECT g, 'Customer ' || g, (ARRAY['consumer','consumer','consumer','smb','enterprise'])[1 + floor(5 * ${u('g', 5)})::int], 1 + floor(20 * ${u('g', 6)} ^ 1.5)::int,
              1940 + floor(65 * ${u('g', 7)})::int, date '2012-01-01' + floor(5100 * ${u('g', 8)} ^ 0.6)::int
       FROM generate_series(1, ${customers}) g`,
    // recent days sell more; products and stores are skewed, a fifth of sales carry a promotion
    `INSERT INTO sales
       SELECT g, to_char(date '2016-01-01' + floor(3652 * ${u('g', 9)} ^ 0.6)::int, 'YYYYMMDD')::int, 1 + floor(800 * ${u('g', 10)} ^ 2)::int,
              1 + floor(${products} * ${u('g', 11)} ^ 3)::int, 1 + floor(${customers} * ${u('g', 12)})::int,
              CASE WHEN ${u('g', 13)} < 0.2 THEN 1 + floor(400 * ${u('g', 14)})::int END, floor(4 * ${u('g', 15)})::smallint,
              1 + floor(50 * ${u('g', 16)} ^ 4)::int, round((1 + 400 * ${u('g', 17)} ^ 3)::numeric, 2), round((0.5 * ${u('g', 18)} ^ 3)::numeric, 2)
       FROM generate_series(1, ${sales}) g`,
  ];
}
