import { createRequire } from 'node:module';
import type * as BullmqModule from 'bullmq';

/** The `bullmq` module this package depends on: `@echo/bullmq`, by the workspace alias. */
export type Bullmq = typeof BullmqModule;

/**
 * Loads `bullmq` the way the ecosystem packages do (Node's own resolution, the built `dist/`), so
 * the classes the test makes are the very ones bull-board and @nestjs/bullmq check against. An
 * `import` in a test file would go through vitest's transform and make a second copy.
 */
export function loadBullmq(): Bullmq {
  return createRequire(import.meta.url)('bullmq') as Bullmq;
}

/** Resolves with the arguments of the next `event` of `emitter`, or rejects after `timeoutMs`. */
export function nextEvent(emitter: { once(event: string, listener: (...args: unknown[]) => void): unknown }, event: string, timeoutMs = 15_000): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${String(timeoutMs)} ms`)), timeoutMs);
    emitter.once(event, (...args: unknown[]) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}
