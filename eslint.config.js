// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The package graph is one-way: protocol depends on nothing of ours, pillars depend on protocol,
 * cache may read the bus, the conformance suite sits on top (protocol, queue, bus and the testkit's
 * servers) and nothing imports it, the operator tools sit on top as well (the dashboard reads the
 * pillars, the CLI reads them and the dashboard, nothing imports the CLI), and nothing reaches into
 * another package's files. These rules make a wrong import a lint failure rather than a review
 * comment.
 */
const deepImports = {
  group: [
    '@echo/*/*',
    '!@echo/*/package.json',
    '!@echo/queue/internal',
    '!@echo/protocol/queue',
    '!@echo/protocol/bus',
    '!@echo/protocol/cache',
    '!@echo/protocol/extend',
    '**/packages/*/src/**',
    '**/packages/*/dist/**',
    '../../*/src/**',
  ],
  message: 'Import another package through its public entry point only (its `exports` map).',
};

/** The top of the graph: it runs the suite against the packages, so no package, bench or example may import it. */
const conformance = { group: ['@echo/conformance', '@echo/conformance/*'], message: '@echo/conformance sits on top of the graph; nothing imports it.' };

/** The operator tools sit on top too: the CLI serves the dashboard (`emq dashboard`), and nothing imports the CLI. */
const cli = { group: ['@echo/cli', '@echo/cli/*'], message: '@echo/cli is a tool on top of the graph; nothing imports it.' };
const dashboard = { group: ['@echo/dashboard', '@echo/dashboard/*'], message: '@echo/dashboard is a tool on top of the graph; only @echo/cli imports it.' };
/** The BullMQ face sits on top of the queue: an application (or the bench) imports it, no package does. */
const bullmq = { group: ['@echo/bullmq', '@echo/bullmq/*'], message: '@echo/bullmq is a face on top of the queue; no package imports it.' };

/** The pillars reach Redis through the protocol's `Connection` only; their tests may still drive ioredis. */
const noDriver = {
  group: ['ioredis', 'ioredis/*'],
  message: 'A pillar talks to Redis through @echo/protocol (Connection and its primitives), never through ioredis.',
};

/**
 * @param {string[]} forbidden @param {string} why @param {object[]} [paths]
 * @param {{ group: string[], message: string }[]} [extra]
 * @param {{ group: string[], message: string }[]} [tops] the tools on top of the graph this package may not import
 */
const graph = (forbidden, why, paths = [], extra = [], tops = [cli, dashboard]) => ({
  'no-restricted-imports': [
    'error',
    {
      paths,
      patterns: [deepImports, conformance, bullmq, ...tops, ...forbidden.map((name) => ({ group: [name, `${name}/*`], message: why })), ...extra],
    },
  ],
});

/**
 * A pillar is a thin reading of the substrate: it imports its own protocol subpath
 * (`@echo/protocol/queue`, `/bus`, `/cache`), which holds its contract (keys, typed transitions,
 * reads, formats) on the shared machinery and none of the script machinery (`scripts`, `bind`,
 * `defineScript`): it sends typed transitions and never names a script, builds a KEYS array or
 * holds the driver. Its tests may also reach `@echo/protocol/extend`; no file of a pillar reads
 * another pillar's contract.
 *
 * @param {'queue' | 'bus' | 'cache'} pillar @param {boolean} src
 */
const protocolFace = (pillar, src) => {
  const others = ['queue', 'bus', 'cache', ...(src ? ['extend'] : [])].filter((p) => p !== pillar);
  return {
    paths: [{ name: '@echo/protocol', message: `A pillar imports its own contract, @echo/protocol/${pillar}; the root is the application's face.` }],
    patterns: [
      {
        group: others.map((p) => `@echo/protocol/${p}`),
        message: src
          ? `The ${pillar} reads its own contract, @echo/protocol/${pillar}: no other pillar's, and not the library authors' @echo/protocol/extend.`
          : `The ${pillar}'s tests read @echo/protocol/${pillar} (or /extend), not another pillar's contract.`,
      },
    ],
  };
};
/**
 * No raw command by name: a pillar (and the dashboard) reads and writes through the protocol's typed
 * reads and writes (`reads.*`, `writes.*` with `sendRead`/`sendWrite`), whose builders own the
 * argument shape and whose parsers check the reply; the ACL lists derive from them.
 */
const rawCommand = {
  selector: "CallExpression[callee.property.type='Identifier'][callee.property.name=/^(command|commandBuffer|pipeline)$/]",
  message: 'Send a typed read or write from @echo/protocol (`reads.*`/`writes.*`), never a raw command by name.',
};
const pillarSyntax = {
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.property.type='Identifier'][callee.property.name=/^(run|runBatch)$/]",
      message: 'Pillars send typed transitions with `execute`/`executeAll`, never `run(script, keys, args)`.',
    },
    rawCommand,
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**', '**/.bundle/**'] },
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
      'no-restricted-imports': ['error', { patterns: [deepImports, conformance, cli, dashboard] }],
    },
  },
  {
    files: ['packages/protocol/**/*.ts'],
    rules: graph(['@echo/queue', '@echo/bus', '@echo/cache'], '@echo/protocol sits below every pillar and imports none.'),
  },
  {
    files: ['packages/queue/**/*.ts'],
    rules: graph(['@echo/bus', '@echo/cache'], 'A pillar depends on @echo/protocol only; the queue reads no other pillar.', protocolFace('queue', false).paths, protocolFace('queue', false).patterns),
  },
  {
    files: ['packages/queue/src/**/*.ts'],
    rules: { ...graph(['@echo/bus', '@echo/cache'], 'A pillar depends on @echo/protocol only; the queue reads no other pillar.', protocolFace('queue', true).paths, [noDriver, ...protocolFace('queue', true).patterns]), ...pillarSyntax },
  },
  {
    files: ['packages/bus/**/*.ts'],
    rules: graph(['@echo/queue', '@echo/cache'], 'A pillar depends on @echo/protocol only; the bus reads no other pillar.', protocolFace('bus', false).paths, protocolFace('bus', false).patterns),
  },
  {
    files: ['packages/bus/src/**/*.ts'],
    rules: { ...graph(['@echo/queue', '@echo/cache'], 'A pillar depends on @echo/protocol only; the bus reads no other pillar.', protocolFace('bus', true).paths, [noDriver, ...protocolFace('bus', true).patterns]), ...pillarSyntax },
  },
  {
    files: ['packages/cache/**/*.ts'],
    rules: graph(['@echo/queue', '@echo/bus'], 'A pillar depends on @echo/protocol only; the cache reads no other pillar (its coherence log is its own).', protocolFace('cache', false).paths, protocolFace('cache', false).patterns),
  },
  {
    files: ['packages/cache/src/**/*.ts'],
    rules: { ...graph(['@echo/queue', '@echo/bus'], 'A pillar depends on @echo/protocol only; the cache reads no other pillar (its coherence log is its own).', protocolFace('cache', true).paths, [noDriver, ...protocolFace('cache', true).patterns]), ...pillarSyntax },
  },
  {
    files: ['packages/bullmq/**/*.ts'],
    rules: graph(['@echo/bus', '@echo/cache'], '@echo/bullmq is a reading of the queue: it imports @echo/queue and @echo/protocol, and nothing imports it.', protocolFace('queue', false).paths, protocolFace('queue', false).patterns),
  },
  {
    files: ['packages/bullmq/src/**/*.ts'],
    rules: graph(['@echo/bus', '@echo/cache', '@echo/testkit'], '@echo/bullmq is a reading of the queue: it imports @echo/queue and @echo/protocol, and nothing imports it.', protocolFace('queue', true).paths, [noDriver, ...protocolFace('queue', true).patterns]),
  },
  {
    files: ['packages/conformance/**/*.ts'],
    rules: graph(['@echo/cache'], '@echo/conformance judges the queue and the bus; it reads protocol, queue, bus and the testkit, never the cache.'),
  },
  {
    files: ['packages/dashboard/**/*.ts'],
    rules: graph(['@echo/conformance'], 'The dashboard reads protocol, queue, bus and cache; the testkit only in tests.'),
  },
  {
    files: ['packages/dashboard/src/**/*.ts'],
    rules: { ...graph(['@echo/testkit'], 'The dashboard ships no test servers.', [], [noDriver]), 'no-restricted-syntax': ['error', rawCommand] },
  },
  {
    files: ['packages/cli/**/*.ts'],
    rules: graph(['@echo/conformance'], 'The CLI reads protocol, queue, bus, cache and the dashboard; the testkit only in tests.', [], [], [cli]),
  },
  {
    files: ['packages/cli/src/**/*.ts'],
    rules: graph(['@echo/testkit'], 'The CLI ships no test servers.', [], [noDriver], [cli]),
  },
  {
    files: ['packages/otel/src/**/*.ts'],
    rules: graph(['@echo/queue', '@echo/bus', '@echo/cache', '@echo/testkit'], '@echo/otel reads the hooks of @echo/protocol only; it needs no pillar.', [], [noDriver]),
  },
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
    // BullMQ's guides write processors as async functions that may not await; the tests keep them unchanged.
    files: ['packages/bullmq/test/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
