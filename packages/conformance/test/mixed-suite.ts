/**
 * Registers the mixed conformance mode as one `it` per scenario and direction: Echo and the
 * spec-only runtime share each queue, and Echo's reads are checked against the rows.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, it } from 'vitest';
import type { ConformanceTarget } from '../src/index.js';
import { DIRECTIONS, MIXED_SCENARIOS, mixedName, runMixedOne } from '../src/mixed/index.js';
import { SpecRuntime } from '../src/spec-runtime/index.js';

/** The two runtimes on one server, and how to take down what was started for them. */
export interface OpenedMixed {
  readonly target: ConformanceTarget;
  readonly client: Redis | Cluster;
  close(): Promise<void>;
}

export function mixedSuite(open: () => Promise<OpenedMixed>): void {
  let opened: OpenedMixed | undefined;
  let runtime: SpecRuntime | undefined;

  beforeAll(async () => {
    opened = await open();
    runtime = await SpecRuntime.connect({ client: opened.client });
  }, 60_000);

  afterAll(async () => {
    await opened?.close();
  });

  for (const scenario of MIXED_SCENARIOS) {
    for (const direction of DIRECTIONS) {
      it(mixedName(scenario, direction), { timeout: 60_000 }, async () => {
        if (!opened || !runtime) throw new Error('the runtimes did not open');
        const result = await runMixedOne(opened.target, runtime, scenario, direction);
        if (result.verdict === 'fail') throw result.error instanceof Error ? result.error : new Error(result.detail);
      });
    }
  }
}
