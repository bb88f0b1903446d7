import { defineConfig } from 'vitest/config';

// Each test file starts the real PostgreSQL servers it needs (test/support/postgres.ts); files run
// in two worker processes, one per core. The JSON report feeds the summary line of .ci/run.
// The run has a temp directory of its own and fails when it leaves a process or a cluster folder
// behind (test/global/nothing-left-behind.ts).
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global/nothing-left-behind.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
