import { defineConfig } from 'vitest/config';

/**
 * Every package's tests read sibling packages from source through the `@echo/source` export
 * condition, so a test run never depends on a stale `dist/`.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['@echo/source'] },
  ssr: { resolve: { conditions: ['@echo/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The type tests (`*.test-d.ts`) are compile-time assertions, checked by the package's `typecheck`
    // task: `tsc -p tsconfig.json` over src and test, the very program vitest's typecheck ran again
    // inside `test` (as much CPU as the package's tests themselves). `pnpm test` runs both tasks; a
    // lone `vitest run --typecheck` still lists them as tests.
    typecheck: { enabled: false, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
