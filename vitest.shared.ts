import { availableParallelism } from 'node:os';
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
    // A worker process runs file after file with one module graph: importing the packages from
    // source in a fresh process per file was more than half of most packages' test time. Files stay
    // apart as they did when each had its own process: every file closes what it opened and works
    // under its own names (uniqueName) or its own server, and `useRedis` hands the files of one
    // worker its one shared server, as it is built to. (Reverted once, in a58f246: a claim whose
    // reply a failover cut off held its job for a whole lease, so a chaos drain beside another file
    // missed its bound; a worker now recovers such claims by their ticket within a round trip of the
    // reconnect, and the fault files that race the machine run in a project of their own: queue's
    // vitest.config.ts.)
    isolate: false,
    // At least two files at a time. Most of a file's time is spent waiting on Redis, timers and
    // child processes, so vitest's default on a 2-core machine (cores - 1: one file at a time) left a
    // core idle through every fault test's outage and lease.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The type tests (`*.test-d.ts`) are compile-time assertions, checked by the package's `typecheck`
    // task: `tsc -p tsconfig.json` over src and test, the very program vitest's typecheck ran again
    // inside `test` (as much CPU as the package's tests themselves). `pnpm test` runs both tasks; a
    // lone `vitest run --typecheck` still lists them as tests.
    typecheck: { enabled: false, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
