import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

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
  // tests read JSON response bodies whose shape is the thing under test
  { files: ['**/*.test.ts', '**/*.test.tsx'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
