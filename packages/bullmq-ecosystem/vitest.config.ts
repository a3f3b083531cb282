import { defineConfig } from 'vitest/config';

/**
 * Not the shared config: that one hands the `@echo/source` condition to Node too, and then the
 * ecosystem packages' own `require('bullmq')` would load TypeScript. Here only vitest's transform
 * reads sources (the testkit); `bullmq` itself is loaded built, as an application would load it.
 */
export default defineConfig({
  resolve: { conditions: ['@echo/source', 'import', 'module', 'node', 'default'] },
  test: { include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000 },
});
