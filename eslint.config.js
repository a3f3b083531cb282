// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The package graph is one-way: protocol depends on nothing of ours, pillars depend on protocol,
 * cache may read the bus, and nothing reaches into another package's files. These rules make a
 * wrong import a lint failure rather than a review comment.
 */
const deepImports = {
  group: ['@echo/*/*', '!@echo/*/package.json', '!@echo/testkit/conformance', '**/packages/*/src/**', '**/packages/*/dist/**', '../../*/src/**'],
  message: 'Import another package through its public entry point only (its `exports` map).',
};

/** @param {string[]} forbidden @param {string} why @param {{ group: string[], message: string }[]} [extra] */
const graph = (forbidden, why, extra = []) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [deepImports, ...forbidden.map((name) => ({ group: [name, `${name}/*`], message: why })), ...extra],
    },
  ],
});

/** The pillars reach Redis through the protocol's `Connection` only; their tests may still drive ioredis. */
const noDriver = {
  group: ['ioredis', 'ioredis/*'],
  message: 'A pillar talks to Redis through @echo/protocol (Connection and its primitives), never through ioredis.',
};

/**
 * A pillar's rule, over its whole package and, stricter, over its `src` (a later block replaces the
 * rule for the files it matches, so the `src` block repeats the graph and adds the driver ban).
 * @param {string} pillar @param {string[]} forbidden @param {string} why
 */
const pillar = (pillar, forbidden, why) => [
  { files: [`packages/${pillar}/**/*.ts`], rules: graph(forbidden, why) },
  { files: [`packages/${pillar}/src/**/*.ts`], rules: graph(forbidden, why, [noDriver]) },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/prefer-nullish-coalescing': 'off',
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      'no-restricted-imports': ['error', { patterns: [deepImports] }],
    },
  },
  {
    files: ['packages/protocol/**/*.ts'],
    rules: graph(['@echo/queue', '@echo/bus', '@echo/cache'], '@echo/protocol sits below every pillar and imports none.'),
  },
  ...pillar('queue', ['@echo/bus', '@echo/cache'], 'A pillar depends on @echo/protocol only; the queue reads no other pillar.'),
  ...pillar('bus', ['@echo/queue', '@echo/cache'], 'A pillar depends on @echo/protocol only; the bus reads no other pillar.'),
  ...pillar('cache', ['@echo/queue'], 'The cache reads the protocol and, for coherence, the bus; never the queue.'),
  {
    files: ['packages/testkit/src/**/*.ts'],
    ignores: ['packages/testkit/src/**/*.test.ts'],
    rules: graph(['@echo/queue', '@echo/bus', '@echo/cache', '@echo/protocol'], 'The testkit starts servers; it depends on no Echo package.'),
  },
  {
    files: ['**/*.test.ts', '**/*.test-d.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
