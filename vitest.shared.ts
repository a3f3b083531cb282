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
    testTimeout: 20_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
