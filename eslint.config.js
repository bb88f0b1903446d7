import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// A user's database is reached only through gateway/ (read-only transactions, pinned search_path,
// timeouts, the connection-string allow-list, the marker), and only through its index.
const PG_MESSAGE = "Connect to a user's database through gateway/index (openGateway). Only code that connects to our own databases (the store, the shadow planner, tests, benchmarks) may use pg.";
const GATEWAY_INDEX_ONLY = {
  group: ['**/gateway/*', '!**/gateway/index', '!**/gateway/index.js'],
  message: 'Import the gateway through gateway/index only.',
};
const PG_IMPORTS = {
  paths: ['pg', 'pg-pool', 'pg-connection-string'].map((name) => ({ name, message: PG_MESSAGE })),
  patterns: [{ group: ['pg/*', 'pg-pool/*', 'pg-connection-string/*'], message: PG_MESSAGE }, GATEWAY_INDEX_ONLY],
};
// Code that connects to our OWN databases: the app's store, the shadow planner's scratch server,
// tests and benchmarks (which set up the databases they then read through the gateway).
const OWN_DATABASES = [
  'server/db/**',
  'advisor/shadow*.ts',
  'advisor/postgres-process.ts',
  'test/**',
  'bench/**',
  '**/*.test.ts',
  '**/*.test.tsx',
];

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
  { files: ['**/*.{ts,tsx,js,mjs}'], ignores: ['gateway/**'], rules: { 'no-restricted-imports': ['error', PG_IMPORTS] } },
  { files: OWN_DATABASES, ignores: ['gateway/**'], rules: { 'no-restricted-imports': ['error', { patterns: [GATEWAY_INDEX_ONLY] }] } },
  // tests read JSON response bodies whose shape is the thing under test
  { files: ['**/*.test.ts', '**/*.test.tsx'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
