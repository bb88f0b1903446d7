// Equality on one column with ORDER BY another and a LIMIT: the index (equality column, sort
// column) serves both the filter and the order, so the plan reads the first rows in order and
// stops, without a Sort. Dexter's test data (posts: user_id = n % 10, blog_id = n % 1000), where
// an index on the sort column alone also avoids the Sort and looks tempting. Each recommendation
// is then built for real in a transaction rolled back, and the real planner's plan must use it and
// have no Sort node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planWithIndex } from '../test/support/plan-with-index.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { analyzeQueries, type AnalysisResult, type PlanNode } from './index.js';

let production: PostgresServer;
let result: AnalysisResult;

const QUERIES = {
  dexter: `SELECT * FROM posts WHERE user_id = 1 ORDER BY blog_id LIMIT 1000`,
  generic: `SELECT id, blog_id FROM posts WHERE user_id = $1 ORDER BY blog_id LIMIT 20`,
  descending: `SELECT * FROM posts WHERE user_id = $1 ORDER BY blog_id DESC LIMIT 20`,
  mixed: `SELECT id FROM posts WHERE user_id = $1 ORDER BY blog_id DESC, created LIMIT 20`,
  afterJoin: `SELECT p.id, b.name FROM posts p JOIN blogs b ON b.id = p.blog_id WHERE p.user_id = $1 ORDER BY p.created DESC LIMIT 10`,
};

/** Each query's first recommendation, as CREATE INDEX prints its key. */
const EXPECTED: Record<keyof typeof QUERIES, RegExp> = {
  dexter: /ON public\.posts \(user_id, blog_id\)/,
  generic: /ON public\.posts \(user_id, blog_id\)/,
  descending: /ON public\.posts \(user_id, blog_id\)/,
  mixed: /ON public\.posts \(user_id, blog_id, created DESC\)/,
  afterJoin: /ON public\.posts \(user_id, created\)/,
};

beforeAll(async () => {
  production = await startPostgres({ statStatements: false });
  await production.query(`
    CREATE TABLE blogs (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO blogs SELECT n, 'blog ' || n FROM generate_series(0, 999) n;
    CREATE TABLE posts (id int PRIMARY KEY, blog_id int NOT NULL, user_id int NOT NULL, created timestamptz NOT NULL);
    INSERT INTO posts SELECT n, n % 1000, n % 10, timestamptz '2025-01-01' + n * interval '1 minute' FROM generate_series(1, 100000) n;
    ANALYZE;`);
  result = await analyzeQueries({ connectionString: production.url(), queries: Object.entries(QUERIES).map(([hash, query]) => ({ hash, query, calls: 10 })) });
}, 120_000);

afterAll(async () => {
  await production?.stop();
});

const planWith = (createIndex: string, sql: string) => planWithIndex(production.url(), createIndex, sql);

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...((plan.Plans as PlanNode[] | undefined) ?? []).flatMap(nodes)];

describe('equality plus order', () => {
  for (const [hash, expected] of Object.entries(EXPECTED)) {
    it(`${hash}: recommends ${expected.source.replace(/\\/g, '')}, which the real plan uses without a Sort`, async () => {
      const q = result.queries.find((x) => x.hash === hash)!;
      expect(q.error).toBeNull();
      const first = q.recommendations[0]?.createIndex;
      expect(first, JSON.stringify(q.recommendations.map((r) => r.createIndex))).toMatch(expected);
      const plan = nodes(await planWith(first!, QUERIES[hash as keyof typeof QUERIES]));
      expect(plan.some((n) => n['Index Name'] === 'qt_tried')).toBe(true);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(plan.map((n) => n['Node Type'])).not.toContain('Incremental Sort');
    });
  }
});
