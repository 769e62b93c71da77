// The type-aware lint of `npm test` (`npm run lint`): rules the compiler cannot give, chiefly about
// promises, which it checks with the types of each file's own project (tsconfig.json; the console's
// console/tsconfig.json; the packages' sources and tests through the root's, which includes them).
// Formatting is Prettier's, not this.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'src/api-types/**', 'console/vite.config.ts'] },
  {
    files: [
      'src/**/*.ts',
      'test/**/*.ts',
      'scripts/**/*.ts',
      'bench/**/*.ts',
      'packages/*/src/**/*.ts',
      'packages/*/test/**/*.ts',
      'console/src/**/*.{ts,tsx}',
    ],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process).
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      // A promise where a void callback or a condition is expected runs unobserved or is always truthy.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Only errors are thrown, so every failure has a stack and can carry a cause.
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
);
