// @ts-check
import path from 'node:path';
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
    '!@echo/bus/wire',
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

/**
 * Imports inside a package run one way: down. A module in folder D of a package's `src` may import
 *
 * - a module of D itself, or of a folder below D;
 * - a module of a sibling folder S (or below it) only when S sits lower than D's own branch in the
 *   layer order declared for their common parent folder (the lowest first).
 *
 * It never imports a file of an ancestor folder: those are the composing modules (`queue.ts`,
 * `bus.ts`, `stream.ts`) that import the families, so an import back up is a cycle in waiting; what
 * several families share lives in a folder of its own low in the order (`core/`). Because each
 * parent's order is a total order, no two folders can import each other: the folder graph has no
 * cycle. A sibling folder missing from its parent's order is an error too, so a new folder is
 * placed on purpose. Only relative imports are checked (`import`, `import type`, `export … from`,
 * `import()`); other packages are the package graph's business (`no-restricted-imports`).
 *
 * Options: `{ root, order }`: `root` the package's `src` folder (absolute), `order` each parent
 * folder (relative to `root`, `.` for `root` itself) mapped to its child folders, lowest first.
 */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports run one way inside a package: never up to an ancestor folder, sideways only down a declared layer order.' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, order: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
        required: ['root', 'order'],
        additionalProperties: false,
      },
    ],
    messages: {
      up: "'{{spec}}' is a file of an ancestor folder ({{folder}}): imports run one way, down. Move what this module needs into a folder at or below its own (what families share goes in a low folder such as core/).",
      against: "'{{spec}}': {{from}}/ may not import {{to}}/, which sits above it in the layer order of {{parent}} ({{order}}). Move what both need lower, or into {{from}}/.",
      unlisted: "'{{spec}}': folder {{missing}}/ is not in the layer order declared for {{parent}} in eslint.config.js; place it there on purpose.",
    },
  },
  /** @param {import('eslint').Rule.RuleContext} context */
  create(context) {
    const [{ root, order }] = /** @type {[{ root: string, order: Record<string, string[]> }]} */ (context.options);
    const file = context.filename;
    const fromDir = path.relative(root, path.dirname(file));
    if (fromDir.startsWith('..') || path.isAbsolute(fromDir)) return {};
    const segments = (/** @type {string} */ dir) => (dir === '' ? [] : dir.split(path.sep));
    /** @param {import('estree').Node} node @param {unknown} source */
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const toDir = path.relative(root, path.dirname(path.resolve(path.dirname(file), source)));
      if (toDir.startsWith('..') || path.isAbsolute(toDir)) return;
      const from = segments(fromDir);
      const to = segments(toDir);
      let common = 0;
      while (common < from.length && common < to.length && from[common] === to[common]) common++;
      // Same folder, or a folder below this one.
      if (common === from.length) return;
      // The target's folder holds this one: an import back up.
      if (common === to.length) {
        context.report({ node, messageId: 'up', data: { spec: source, folder: toDir === '' ? 'src/' : `${toDir}/` } });
        return;
      }
      const parent = common === 0 ? '.' : from.slice(0, common).join('/');
      const mine = /** @type {string} */ (from[common]);
      const theirs = /** @type {string} */ (to[common]);
      const layers = order[parent] ?? [];
      const missing = [mine, theirs].find((name) => !layers.includes(name));
      if (missing !== undefined) {
        context.report({ node, messageId: 'unlisted', data: { spec: source, missing, parent: parent === '.' ? 'src/' : `${parent}/` } });
        return;
      }
      if (layers.indexOf(theirs) < layers.indexOf(mine)) return;
      context.report({ node, messageId: 'against', data: { spec: source, from: mine, to: theirs, parent: parent === '.' ? 'src/' : `${parent}/`, order: layers.join(' < ') } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => check(node, node.source?.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
    };
  },
};
const echoPlugin = { rules: { layers: layersRule } };

/**
 * Each pillar's layer order, lowest first: `core/` (the context, the shared shapes and checks), then
 * the families in the order they build on each other. The composing modules sit at `src/` itself.
 *
 * @param {'queue' | 'bus' | 'cache'} pillar @param {Record<string, string[]>} order @param {'error' | 'warn'} [level]
 */
const layers = (pillar, order, level = 'error') => ({
  files: [`packages/${pillar}/src/**/*.ts`],
  plugins: { echo: echoPlugin },
  rules: { 'echo/layers': [level, { root: path.join(import.meta.dirname, 'packages', pillar, 'src'), order }] },
});

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
  layers('queue', { '.': ['core', 'reads', 'admin', 'producer', 'flows', 'lease', 'worker'] }),
  layers('bus', { '.': ['core', 'record', 'telemetry', 'events', 'groups', 'read', 'append', 'dead-letters', 'retention', 'consumer'] }),
  layers('cache', { '.': ['base', 'l2', 'coherence', 'core', 'keyed', 'tables'] }),
  {
    // The bus was rebuilt in the queue's house (a context built once, a folder per verb family) so
    // that each file holds one role; a file past 250 lines is a role that wants splitting again.
    files: ['packages/bus/src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
