import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// What each part of querytrail may import (no-restricted-imports). ESLint applies the last matching
// block's options, so every block lists all that holds for its files.

// ---- Databases ----
// A user's database is reached only through gateway/ (read-only transactions, pinned search_path,
// timeouts, the connection-string allow-list, the marker), and only through its index.
const PG_MESSAGE =
  "Connect to a user's database through gateway/index (openGateway). Only code that connects to our own databases (the store, the shadow planner, tests, benchmarks) may use pg.";
const GATEWAY_INDEX_ONLY = {
  patterns: [{ group: ['**/gateway/*', '!**/gateway/index', '!**/gateway/index.js'], message: 'Import the gateway through gateway/index only.' }],
};
const NO_PG = {
  paths: ['pg', 'pg-pool', 'pg-connection-string'].map((name) => ({ name, message: PG_MESSAGE })),
  patterns: [{ group: ['pg/*', 'pg-pool/*', 'pg-connection-string/*'], message: PG_MESSAGE }, ...GATEWAY_INDEX_ONLY.patterns],
};
// Code that connects to our OWN databases: the app's store, the scratch PostgreSQL (shadow/, the
// only owner of connections to it), tests and benchmarks (which set up the databases they then
// read through the gateway).
const OWN_DATABASES = [
  'server/db/**',
  'server/demo/database.ts',
  'server/queue/heartbeat-worker.mjs',
  'shadow/**',
  'test/**',
  'bench/**',
  '**/*.test.ts',
  '**/*.test.tsx',
];

// ---- Layers ----
// Tests, the client's test kit and the test servers may reach into any layer to set it up.
const TEST_CODE = ['**/*.test.ts', '**/*.test.tsx', 'client/testing/**', 'test/**'];
/** A relative import into one of these top-level folders ('../server/x'; not the package '@trpc/server'). */
const into = (...names) => `^(\\.\\.?/)+(${names.join('|')})(/|$)`;

/** Production code runs without the test suite: it imports no test helper and no test library. */
const NO_TEST_HELPERS = {
  paths: ['vitest', 'playwright-core'].map((name) => ({ name, message: 'Test libraries are for tests only.' })),
  patterns: [
    {
      group: ['**/test/**', '**/testing/**', '**/*.test', '**/*.test.*', '**/test-helpers*', '@testing-library/*'],
      message: 'Production code imports no test helper (test/, client/testing/, *.test.*).',
    },
  ],
};
/** The shadow planner is used through what advisor/index exports (it owns the slots and the safety). */
const ADVISOR_GROUP = { group: ['**/advisor/*', '!**/advisor/index', '!**/advisor/index.js'], message: 'Use the advisor through advisor/index only.' };
const BELOW_ADVISOR = 'Read production snapshots and plan in the shadow through advisor/index (it owns the slots and the safety).';
const ADVISOR_INDEX_ONLY = { patterns: [ADVISOR_GROUP, { group: ['**/snapshot/*', '**/shadow/*'], message: BELOW_ADVISOR }] };
/** The demo's PostgreSQL is started by the shadow's launcher, and is reached for nothing else. */
const LAUNCHER_ONLY = {
  patterns: [
    ADVISOR_GROUP,
    {
      group: ['**/snapshot/*', '**/shadow/*', '!**/shadow/postgres-process', '!**/shadow/postgres-process.js'],
      message: 'Start a PostgreSQL through shadow/postgres-process only.',
    },
  ],
};
/** The SPA and shared/ run in the browser. */
const NO_NODE_MODULES = {
  paths: builtinModules.filter((name) => !name.startsWith('_')).map((name) => ({ name, message: 'Runs in the browser: no Node modules.' })),
  patterns: [{ group: ['node:*'], message: 'Runs in the browser: no Node modules.' }],
};
const NODE_GLOBALS = ['process', 'Buffer', 'global', '__dirname', '__filename', 'require', 'module'].map((name) => ({
  name,
  message: 'Runs in the browser: no Node globals.',
}));

// The SPA talks to the server over tRPC only (the router's type) and shares its zod schemas.
const CLIENT = {
  patterns: [
    {
      regex: '^(\\.\\.?/)+server/(?!routers/root$)',
      message: 'The SPA reaches the server over tRPC: import only the AppRouter type (server/routers/root) and shared/.',
    },
    { regex: '^(\\.\\.?/)+server/routers/root$', allowTypeImports: true, message: 'Import only the AppRouter type: `import type { AppRouter }`.' },
    {
      regex: into('analyzer', 'advisor', 'snapshot', 'shadow', 'gateway', 'cli', 'bench'),
      message: 'The SPA imports only shared/ (and the AppRouter type); it calls the analyzer over HTTP.',
    },
  ],
};
// Used by every layer, the browser included, so it depends on none of them.
const SHARED = {
  patterns: [
    { regex: into('server', 'analyzer', 'advisor', 'snapshot', 'shadow', 'gateway', 'client', 'cli', 'bench'), message: 'shared/ depends on no other layer.' },
  ],
};
// Runs in users' CI as a client of the API: it shares the analyzer's read of pg_stat_statements and
// shared/, never the server's internals.
const CLI = { patterns: [{ regex: into('server', 'client'), message: 'The CLI is a client of the API: it imports nothing of server/ (nor client/).' }] };
const SERVER = { patterns: [{ regex: into('client', 'cli'), message: 'The server imports neither the SPA nor the CLI.' }] };
// Runs on users' machines on its own, without the web server.
const ANALYZER = { patterns: [{ regex: into('server', 'client', 'cli'), message: 'The analyzer imports nothing of the web server, the SPA or the CLI.' }] };
// The stack below the server and the analyzer, each layer on the ones under it only:
// advisor/ (what to recommend) -> shadow/ (our scratch PostgreSQL) and snapshot/ (production read
// through the gateway) -> gateway/ -> shared/. The shadow knows a snapshot by its types alone.
const ADVISOR = {
  patterns: [
    { regex: into('server', 'analyzer', 'gateway', 'client', 'cli', 'bench'), message: 'The advisor depends on shadow/, snapshot/ and shared/ only.' },
  ],
};
const SHADOW = {
  patterns: [
    {
      regex: into('server', 'analyzer', 'advisor', 'gateway', 'client', 'cli', 'bench'),
      message: "The shadow depends on shared/ (and the snapshot's types) only.",
    },
    { regex: '^(\\.\\.?/)+snapshot/(?!types(\\.js)?$)', message: 'The shadow knows a snapshot by its types only (snapshot/types).' },
  ],
};
const SNAPSHOT = {
  patterns: [
    {
      regex: into('server', 'analyzer', 'advisor', 'shadow', 'client', 'cli', 'bench'),
      message: 'The snapshot reads production through the gateway and depends on shared/ only.',
    },
  ],
};
const GATEWAY = {
  patterns: [{ regex: into('server', 'analyzer', 'advisor', 'snapshot', 'shadow', 'client', 'cli'), message: 'The gateway depends on shared/ only.' }],
};

/** One no-restricted-imports rule out of several lists of restrictions. */
function restrict(...parts) {
  return {
    'no-restricted-imports': ['error', { paths: parts.flatMap((p) => p.paths ?? []), patterns: parts.flatMap((p) => p.patterns ?? []) }],
  };
}
/** The restrictions on the production files among `files`: theirs, and no test helpers. */
const production = (files, ...parts) => ({ files, ignores: TEST_CODE, rules: restrict(NO_TEST_HELPERS, ...parts) });

export default tseslint.config(
  { ignores: ['node_modules', 'dist', '.data', 'server/db/migrations'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['client/**/*.{ts,tsx}'], ...reactHooks.configs.flat['recommended-latest'] },
  // we do not use the React Compiler, so its memoization warnings do not apply
  { files: ['client/**/*.{ts,tsx}'], rules: { 'react-hooks/incompatible-library': 'off' } },

  // imports: the general case first, each later block narrower
  { files: ['**/*.{ts,tsx,js,mjs}'], rules: restrict(NO_PG) },
  { files: OWN_DATABASES, rules: restrict(GATEWAY_INDEX_ONLY) },
  { files: ['gateway/**'], rules: { 'no-restricted-imports': 'off' } },
  production(['client/**'], NO_PG, NO_NODE_MODULES, CLIENT),
  production(['shared/**'], NO_PG, NO_NODE_MODULES, SHARED),
  production(['cli/**'], NO_PG, ADVISOR_INDEX_ONLY, CLI),
  production(['server/**'], NO_PG, ADVISOR_INDEX_ONLY, SERVER),
  production(['server/db/**'], GATEWAY_INDEX_ONLY, ADVISOR_INDEX_ONLY, SERVER),
  // the demo database is ours: it is created, filled and given a workload as its owner
  production(['server/demo/database.ts'], GATEWAY_INDEX_ONLY, ADVISOR_INDEX_ONLY, SERVER),
  production(['server/demo/postgres.ts'], NO_PG, LAUNCHER_ONLY, SERVER),
  // the job queue's heartbeat thread writes to the store, on a connection of its own
  production(['server/queue/heartbeat-worker.mjs'], GATEWAY_INDEX_ONLY, ADVISOR_INDEX_ONLY, SERVER),
  production(['analyzer/**'], NO_PG, ADVISOR_INDEX_ONLY, ANALYZER),
  production(['gateway/**'], ADVISOR_INDEX_ONLY, GATEWAY),
  production(['advisor/**'], NO_PG, ADVISOR),
  production(['snapshot/**'], NO_PG, SNAPSHOT),
  production(['shadow/**'], SHADOW),
  { files: ['client/**', 'shared/**'], ignores: TEST_CODE, rules: { 'no-restricted-globals': ['error', ...NODE_GLOBALS] } },

  // tests read JSON response bodies whose shape is the thing under test
  { files: ['**/*.test.ts', '**/*.test.tsx'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
