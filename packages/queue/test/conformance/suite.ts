/** Registers every scenario as its own `it`, against whatever server `open` reaches. */
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Connection } from '@echo/protocol';
import { report, scenarioEnv } from './harness.js';
import { scenarios } from './scenarios.js';

/** What a suite runs against: a fenced connection and a way to empty every node's script cache. */
export interface Target {
  readonly conn: Connection;
  flushScripts(): Promise<void>;
  close(): Promise<void>;
}

export function conformanceSuite(open: () => Promise<Target>): void {
  const base = uniqueName('conf');
  const results = scenarios.map((s) => ({ name: s.name, contract: s.contract, verdict: s.skip === undefined ? 'FAIL not run' : `skip (${s.skip})` }));
  let target: Target | undefined;

  beforeAll(async () => {
    target = await open();
  }, 60_000);
  afterAll(async () => {
    console.log(report(results));
    await target?.close();
  });

  it('lists its scenarios once each, in conformance order', () => {
    const numbered = scenarios.flatMap((s) => (s.no === undefined ? [] : [s.no]));
    expect(numbered).toEqual([...numbered].sort((a, b) => a - b));
    expect(new Set(scenarios.map((s) => s.name)).size).toBe(scenarios.length);
    expect(scenarios.findIndex((s) => s.no === undefined)).toBe(numbered.length);
  });

  for (const [index, scenario] of scenarios.entries()) {
    const result = results[index] as (typeof results)[number];
    if (scenario.skip !== undefined) {
      it.skip(scenario.name, () => undefined);
      continue;
    }
    it(scenario.name, async () => {
      if (!target) throw new Error('no target');
      const { env, purge } = scenarioEnv(target.conn, base, scenario.name, () => target?.flushScripts() ?? Promise.resolve());
      try {
        await scenario.run(env);
        result.verdict = 'ok';
      } catch (error) {
        result.verdict = `FAIL ${String(error).split('\n')[0] ?? ''}`;
        throw error;
      } finally {
        await purge();
      }
    });
  }
}
