// Lint for the whole tree: type-aware rules on the TypeScript (each file is
// checked against its own tsconfig, found by the project service: tsconfig.json
// for src/ and machines/, test/tsconfig.json and bench/tsconfig.json for the
// rest), plain JavaScript rules on the .mjs scripts. Formatting is prettier's
// job, not eslint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test/fixtures/', 'workflows/', '**/.raymond/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection: every one is awaited, caught, or marked `void` on purpose.
      // node:test's test() and describe() return promises the runner itself tracks.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: [
                'test',
                'describe',
                'it',
                'suite',
                'before',
                'after',
                'beforeEach',
                'afterEach',
              ],
            },
          ],
        },
      ],
      // A switch over a union names every member, or has a default: a new event or state kind is not silently
      // ignored. A default counts as exhaustive because a dozen switches over the run's events handle a few kinds
      // and let the rest pass on purpose (run-progress, debug-log, sanitize, live-snapshot...).
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // Off: the project's objects are closures returned by factories (createX() { return { method() {} } }),
      // not classes using `this`, so a method taken off its object (`const { release } = placed`) works.
      '@typescript-eslint/unbound-method': 'off',
      // Off: an async function without await still turns a throw into a rejection, which is why the
      // interface implementations that return promises (scriptPath, close, readText) are written async.
      '@typescript-eslint/require-await': 'off',
      // A timer assigned after the callback that clears it is declared stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_`-prefixed names are deliberately unused (a callback's position, a rest sibling).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // One purpose per file: a source file that grows past 300 lines holds two, and is split.
    files: ['src/**/*.ts', 'machines/**/*.ts', 'scripts/**/*.{ts,mjs}'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // Tests read the CLI's JSON output and the state files as `any` and assert on them: the assertions
    // are the check, and typing every parsed reply would double the tests' size for nothing.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests strip the terminal's escape sequences from what the CLI printed.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [js.configs.recommended],
    // Node's globals the scripts use (the `globals` package is not a dependency for five names).
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'URL',
          'setTimeout',
          'setImmediate',
          'clearTimeout',
          'performance',
          'Buffer',
        ].map((n) => [n, 'readonly']),
      ),
    },
  },
);
