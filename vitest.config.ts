import { defineConfig } from 'vitest/config';

// Test files share a handful of real PostgreSQL servers started once per run (test/support/global-setup.ts);
// files run in parallel workers, each with its own databases on those servers.
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
