/**
 * The shipped conformance suite's bus scenarios (18 and 74–79) against the real `Bus`, on a
 * standalone server and on a 3-master cluster. `@echo/queue`'s conformance test skips exactly these
 * (its target has no `openBus`), so the two runs together cover every built scenario once.
 */
import { Connection, IdMinter, idUnixMs, mintId } from '@echo/protocol';
import { startCluster, useRedis } from '@echo/testkit';
// The lint's deep-import pattern predates declared subpath exports; this one is in testkit's `exports` map.
import {
  CONFORMANCE_SCENARIOS,
  formatReport,
  runConformance,
  serverHarness,
  type ConformanceTarget,
  type ScenarioResult,
} from '@echo/testkit/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, xaddId } from '../src/index.js';

/** The bus scenarios: those a target without `openBus` reports skipped. */
const BUS_SCENARIOS = CONFORMANCE_SCENARIOS.filter((s) => s.needs.includes('openBus'));

function busTarget(conn: Connection): ConformanceTarget {
  return {
    ...serverHarness(conn),
    wire: { command: (name, ...args) => conn.command(name, ...args), stats: () => conn.stats() },
    mintId: (namespace) => mintId(namespace),
    openBus: (name) => Bus.open(name, { connection: conn }),
    openSubscriber: () => conn.duplicate(),
    ids: { minter: (options) => new IdMinter(options), unixMs: idUnixMs, xaddId },
  };
}

function busSuite(open: () => Promise<{ conn: Connection; close(): Promise<void> }>): void {
  let opened: { conn: Connection; close(): Promise<void> } | undefined;
  const results: ScenarioResult[] = [];
  beforeAll(async () => {
    opened = await open();
  }, 60_000);
  afterAll(async () => {
    const count = (verdict: ScenarioResult['verdict']): number => results.filter((r) => r.verdict === verdict).length;
    console.log(formatReport({ base: '', passed: count('ok'), failed: count('fail'), skipped: count('skip'), results }));
    await opened?.close();
  });

  it('names exactly the resubscribe drill and the six stream scenarios', () => {
    expect(BUS_SCENARIOS.map((s) => s.name)).toEqual([
      'resubscribe',
      'stream_verbs',
      'stream_append',
      'stream_group',
      'stream_retention',
      'stream_archived',
      'stream_time_travel',
    ]);
  });

  for (const scenario of BUS_SCENARIOS) {
    it(scenario.name, { timeout: 40_000 }, async () => {
      if (!opened) throw new Error('the target did not open');
      const run = await runConformance(busTarget(opened.conn), { only: [scenario.name], timeoutMs: 30_000 });
      const [result] = run.results;
      if (result) results.push(result);
      if (result?.verdict === 'fail') throw result.error instanceof Error ? result.error : new Error(result.detail);
      expect(result?.verdict, result?.detail).toBe('ok');
    });
  }
}

describe('conformance (bus): standalone', () => {
  busSuite(async () => {
    const conn = await Connection.connect({ url: (await useRedis()).url });
    return { conn, close: () => conn.close() };
  });
});

describe('conformance (bus): 3-master cluster', () => {
  busSuite(async () => {
    const cluster = await startCluster({ masters: 3 });
    const conn = await Connection.connect({ cluster: cluster.seeds });
    return {
      conn,
      close: async () => {
        await conn.close();
        await cluster.stop();
      },
    };
  });
});
